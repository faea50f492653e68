// Package calls names the MPI functions the shim wraps by their call ids:
// the order of shim/calls.tbl, which is what the registry's request
// records (mpidbg_request.call) and the shim's events carry.
package calls

// Name returns the MPI function with call id id, or "" if there is none.
func Name(id int) string {
	if id < 0 || id >= len(names) {
		return ""
	}
	return names[id]
}

// Len is the number of call ids.
func Len() int { return len(names) }

// ID returns the call id of an MPI function, or -1.
func ID(name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}
