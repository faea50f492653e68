package dap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/dap/gdbmi"
	"github.com/mpidbg/mpidbg/internal/mpiframe"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// Most findings are made in the faulty call, whose caller is then the
// finding's site and the stop's top frame. Some are made later than
// their site: a request never completed, a leak, found at MPI_Finalize,
// name the line that started the request or made the object. The stop
// then shows the site's frame when it is still on the stack (the
// registry's site is the call's return address, which is that frame's
// pc), and otherwise stays at the call that found it, and says so: an
// editor showing MPI_Finalize's line next to a finding that names
// another one must not look like a mistake.

// findingFrame is the level of the frame to show on top at a finding's
// stop, and, when that is not the finding's site, why.
func (ss *session) findingFrame(tid int, f *findingInfo) (level int, elsewhere string) {
	r, err := ss.mi("-stack-list-frames --thread %d 0 64", tid)
	if err != nil {
		return 0, ""
	}
	var tuples []gdbmi.Tuple
	var stack []mpiframe.Frame
	for _, r := range r.Results.List("stack").Results {
		t, _ := r.Value.(gdbmi.Tuple)
		tuples = append(tuples, t)
		stack = append(stack, frameOf(t))
	}
	callee := mpiframe.Find(stack) // the MPI function's frame, -1: none
	level = callee + 1
	if f == nil || f.siteAddr == 0 || registry.IsPySite(f.siteAddr) || level == 0 || level >= len(tuples) {
		return level, "" // a Python script's site is no frame of gdb's
	}
	for i := level; i < len(tuples); i++ {
		if pc, err := strconv.ParseUint(tuples[i].String("addr"), 0, 64); err == nil && pc == f.siteAddr {
			return i, ""
		}
	}
	user := tuples[level]
	where := fmt.Sprintf("%s:%s", user.String("file"), user.String("line"))
	if user.String("file") == "" {
		return level, ""
	}
	if f.file != "" && fmt.Sprintf("%s:%d", f.file, f.line) == where {
		return level, "" // the site's line, another call on it
	}
	call := strings.TrimPrefix(tuples[callee].String("func"), "P") // PMPI_Finalize is MPI_Finalize
	return level, fmt.Sprintf("mpidbg could tell only in %s at %s, where this stopped; the finding's site is %s",
		call, where, f.where)
}
