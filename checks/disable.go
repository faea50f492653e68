package checks

import (
	"fmt"
	"slices"
	"strings"
)

// ValidateDisabled checks a list of categories to turn off, as `mpidbg
// run --checks` and the debug adapter's "checks" take it (and the shim
// reads it from MPIDBG_CHECKS): comma-separated categories, each with a
// leading '-', such as "-leak,-overlap", and findings that are off by
// default (Entry.OptIn) to turn on, each with a leading '+', such as
// "+message-race-info". The empty list changes nothing.
func ValidateDisabled(list string) error {
	if list == "" {
		return nil
	}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if id, ok := strings.CutPrefix(item, "+"); ok {
			if e, ok := Lookup(id); !ok || !e.OptIn {
				return fmt.Errorf("%q: +ID turns on a finding that is off by default (%s)", item, strings.Join(OptIns(), ", "))
			}
			continue
		}
		cat, ok := strings.CutPrefix(item, "-")
		if !ok {
			return fmt.Errorf("%q: want -CATEGORY, a category to turn off", item)
		}
		if !slices.Contains(Categories, Category(cat)) {
			names := make([]string, len(Categories))
			for i, c := range Categories {
				names[i] = string(c)
			}
			return fmt.Errorf("unknown category %q (categories: %s)", cat, strings.Join(names, ", "))
		}
	}
	return nil
}

// OptIns lists the ids of the findings that are off unless asked for
// (Entry.OptIn), sorted.
func OptIns() []string {
	var ids []string
	for _, e := range All() {
		if e.OptIn {
			ids = append(ids, e.ID)
		}
	}
	slices.Sort(ids)
	return ids
}
