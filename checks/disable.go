package checks

import (
	"fmt"
	"slices"
	"strings"
)

// ValidateDisabled checks a list of categories to turn off, as `mpidbg
// run --checks` and the debug adapter's "checks" take it (and the shim
// reads it from MPIDBG_CHECKS): comma-separated categories, each with a
// leading '-', such as "-leak,-overlap". The empty list turns nothing
// off.
func ValidateDisabled(list string) error {
	if list == "" {
		return nil
	}
	for _, item := range strings.Split(list, ",") {
		cat, ok := strings.CutPrefix(strings.TrimSpace(item), "-")
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
