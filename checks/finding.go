package checks

import (
	"encoding/json"
	"fmt"
)

// Category is one of a fixed vocabulary; reports group by it and SARIF
// uses it as a rule property.
type Category string

const (
	CatArgument          Category = "argument"
	CatDatatypeLifecycle Category = "datatype-lifecycle"
	CatRequestLifecycle  Category = "request-lifecycle"
	CatLeak              Category = "leak"
	CatTypeMismatch      Category = "type-mismatch"
	CatCollective        Category = "collective-mismatch"
	CatOverlap           Category = "overlap"
	CatBufferRace        Category = "buffer-race"
	CatRMARace           Category = "rma-race"
	CatEpochLifecycle    Category = "epoch-lifecycle"
	CatDeadlock          Category = "deadlock"
	CatMessageRace       Category = "message-race"
	CatLostMessage       Category = "lost-message"
	// CatProcessLifecycle: the rank's own life as an MPI process (init,
	// finalize), which none of the object lifecycles covers.
	CatProcessLifecycle Category = "process-lifecycle"
)

// Categories lists the vocabulary in report order.
var Categories = []Category{
	CatArgument, CatDatatypeLifecycle, CatRequestLifecycle, CatLeak, CatTypeMismatch,
	CatCollective, CatOverlap, CatBufferRace, CatRMARace, CatEpochLifecycle, CatDeadlock, CatMessageRace, CatLostMessage,
	CatProcessLifecycle,
}

// Severity orders findings: errors break the MPI standard, warnings are
// legal but almost certainly unintended, info is context.
type Severity string

const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevInfo    Severity = "info"
)

// Location is a place in the program's source, resolved from a Site.
type Location struct {
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Function string `json:"function,omitempty"`
}

func (l Location) String() string {
	switch {
	case l.File != "" && l.Function != "":
		return fmt.Sprintf("%s:%d in %s", l.File, l.Line, l.Function)
	case l.File != "":
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	case l.Function != "":
		return "in " + l.Function
	}
	return "unknown location"
}

// Site is a code address as a rank saw it: the module (executable or
// shared library) it falls in and the address in the module's own terms,
// pc minus the module's load bias (its ELF address, which DWARF uses: the
// same as the offset from the load base for a position-independent
// module), which is what internal/symbolize needs to find file:line.
//
// A call a Python script made (through mpi4py) has its place in the
// script in Script, read by the rank from the interpreter's frame: the
// script's location, already resolved. Module and Offset are then the
// native code that called MPI (mpi4py's extension module), or empty for
// another rank's call.
type Site struct {
	Module string   `json:"module,omitempty"`
	Offset uint64   `json:"offset,omitempty"`
	Script Location `json:"script"` // left out when zero: MarshalJSON
}

// MarshalJSON writes a Site without "script" when it has none. The
// field stays a value, so that Sites compare with ==; omitzero would say
// the same, but only Go 1.24's encoding/json knows it, and go.mod asks
// for 1.23.
func (s Site) MarshalJSON() ([]byte, error) {
	type plain Site // without the method
	if s.Script != (Location{}) {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		Module string `json:"module,omitempty"`
		Offset uint64 `json:"offset,omitempty"`
	}{s.Module, s.Offset})
}

// Related is a second place that explains a finding: where the datatype
// was built, where the other operation started.
type Related struct {
	Message  string   `json:"message"`
	Call     string   `json:"call,omitempty"` // the MPI function called there, when one was
	Arg      string   `json:"arg,omitempty"`  // the argument of that call that concerns the finding ("sendtype"), when one does
	Location Location `json:"location"`
	Site     Site     `json:"site,omitempty"`
}

// Finding is one MPI usage error (or warning), as a rank reports it and as
// the report shows it once ranks are merged and sites resolved.
type Finding struct {
	ID       string    `json:"id"`
	Category Category  `json:"category"`
	Severity Severity  `json:"severity"`
	Message  string    `json:"message"`
	Ranks    []int     `json:"ranks"`
	Call     string    `json:"call"`
	Arg      string    `json:"arg,omitempty"` // the offending argument's parameter name in the standard ("recvtype"), when one is
	Location Location  `json:"location"`
	Path     string    `json:"path,omitempty"`
	Related  []Related `json:"related,omitempty"`
	Rule     string    `json:"rule,omitempty"` // the MPI standard section, e.g. "MPI-4.1 §5.1.9"
	Site     Site      `json:"site,omitempty"`
}
