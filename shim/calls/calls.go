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
