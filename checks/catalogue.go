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
	// OptIn marks a finding that is off unless asked for by id
	// (`--checks +ID`): context a user wants only while reviewing, such as
	// the nondeterminism a correct program handles.
	OptIn bool
	// Access marks a finding about the program's own load or store into a
	// buffer an operation in progress owns: the report keys it by its
	// places alone (the offset and element it hit are one bug's).
	Access bool
}

// Check is one kind of finding, defined once: its catalogue entry and the
// function that writes its message from a detector's event. Each family
// of findings has its file in this package, in the spirit of go/analysis's
// one analyzer per file; docs/adding-a-check.md is the way to add one.
type Check struct {
	Entry
	// Message writes the finding's message (and, where a datatype is
	// involved, its element path) from the event. Its doc comment says
	// which event fields it reads.
	Message func(m *Message)
}

var catalogue = map[string]*Check{}

// register adds a check at package initialisation; a duplicate id is a
// programming error.
func register(c Check) *Check {
	if _, dup := catalogue[c.ID]; dup {
		panic("checks: duplicate finding id " + c.ID)
	}
	if c.Message == nil {
		panic("checks: finding " + c.ID + " has no Message")
	}
	catalogue[c.ID] = &c
	return &c
}

// Lookup returns the entry for id.
func Lookup(id string) (Entry, bool) {
	c, ok := catalogue[id]
	if !ok {
		return Entry{}, false
	}
	return c.Entry, true
}

// All returns every entry, by category (in Categories order) then id.
func All() []Entry {
	order := map[Category]int{}
	for i, c := range Categories {
		order[c] = i
	}
	out := make([]Entry, 0, len(catalogue))
	for _, c := range catalogue {
		out = append(out, c.Entry)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Category != out[j].Category {
			return order[out[i].Category] < order[out[j].Category]
		}
		return out[i].ID < out[j].ID
	})
	return out
}
