package checks

import "sort"

// Entry documents one kind of finding: what `mpidbg explain ID` prints and
// what reports and SARIF use as the rule.
type Entry struct {
	ID       string
	Category Category
	Severity Severity
	Title    string // one line
	Rule     string // the MPI standard's section and rule
	Doc      string // why it matters, an example, the fix
}

var catalogue = map[string]Entry{}

// register adds entries at init; a duplicate id is a programming error.
func register(es ...Entry) {
	for _, e := range es {
		if _, dup := catalogue[e.ID]; dup {
			panic("checks: duplicate finding id " + e.ID)
		}
		catalogue[e.ID] = e
	}
}

// Lookup returns the entry for id.
func Lookup(id string) (Entry, bool) {
	e, ok := catalogue[id]
	return e, ok
}

// All returns every entry, by category (in Categories order) then id.
func All() []Entry {
	order := map[Category]int{}
	for i, c := range Categories {
		order[c] = i
	}
	out := make([]Entry, 0, len(catalogue))
	for _, e := range catalogue {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Category != out[j].Category {
			return order[out[i].Category] < order[out[j].Category]
		}
		return out[i].ID < out[j].ID
	})
	return out
}
