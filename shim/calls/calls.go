// Package calls names the MPI functions the shim wraps by their call ids:
// the order of shim/calls.tbl, which is what the registry's request
// records (mpidbg_request.call) and the shim's events carry.
package calls

import (
	"strings"
	"sync"
)

// Name returns the MPI function with call id id, or "" if there is none.
func Name(id int) string {
	if id < 0 || id >= len(names) {
		return ""
	}
	return names[id]
}

// Param is one parameter of an MPI function: its name in the standard's
// C binding ("recvtype") and the role calls.tbl gives it ("type", "R" for
// a buffer MPI writes, "S" one it reads, "" for none) and, for a buffer,
// its datatype parameter ("recvtype").
type Param struct {
	Name, Role, Type string
}

var byName = func() map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}()

// Params returns the parameters of the MPI function name in order (as the
// C binding declares them; the Fortran bindings have the same order, plus
// ierror), or nil for a function the shim does not wrap.
func Params(name string) []Param {
	i, ok := byName[name]
	if !ok {
		return nil
	}
	return params[i]
}

// byUpper is made at the first question, not at package initialisation:
// this package is in every rank, and only a Python finding or mpidbg
// explain asks.
var byUpper = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[strings.ToUpper(n)] = true
	}
	return m
})

// IsFunction reports whether name is one of the MPI functions the shim
// wraps, in any case: the standard's language-independent text writes
// them in capitals (MPI_TYPE_FREE), the C binding in mixed case.
func IsFunction(name string) bool { return byUpper()[strings.ToUpper(name)] }
