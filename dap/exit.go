package dap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// A rank's exit in all-stop mode. When a rank's process exits, gdb stops
// every other rank with it; if another rank is exiting at that moment
// (its main thread gone, its other threads dying), gdb cannot read their
// registers and the resume fails after it has already reported every
// thread running: the job then hangs at its end, no rank resumed, the
// dying one never reaped. So no rank exits under gdb: it stops with all
// its threads alive, the adapter reads the exit status and detaches the
// rank, which exits on its own.
//
// A launched rank stops in the shim's exit hook, on the breakpoint on
// mpidbg_break that findings use, with the status in mpidbg_exit_status
// (shim/debugger.c): a breakpoint on _exit did the same, but gdb sets
// every breakpoint again at each library an MPI library loads or
// unloads (Open MPI: about 94 loads and as many unloads per rank), and
// that one cost 2 s of a 4-rank Open MPI session (docs/dap.md). An
// attached process may have no shim: a breakpoint on _exit catches it,
// and the status is the call's first argument. A rank ended by a
// signal, or by an exit that runs no exit hooks (_exit called by the
// program, or by the MPI library in MPI_Abort), still exits under gdb.

// exitArgRegisters hold _exit's status argument, by architecture: the
// first that evaluates to an integer is the one.
var exitArgRegisters = []string{"$rdi", "$x0"}

// exitsOnFindingBreakpoint says whether the ranks' exits stop on the
// breakpoint on mpidbg_break: launched ranks in all-stop mode (in
// non-stop mode one rank's exit stops no other).
func (ss *session) exitsOnFindingBreakpoint() bool {
	return !ss.nonStop && ss.job != nil
}

// insertExitBreakpoint puts the breakpoint on _exit in every attached
// process, in all-stop mode.
func (ss *session) insertExitBreakpoint() {
	if ss.nonStop || ss.job != nil {
		return
	}
	rec, err := ss.mi("-break-insert -f _exit")
	if err != nil {
		ss.srv.logf("no breakpoint on _exit: %v", err)
		return
	}
	ss.mu.Lock()
	ss.exitBp = rec.Results.Tuple("bkpt").String("number")
	ss.mu.Unlock()
}

// exitAt says whether a stop on mpidbg_break is a rank's exit, and the
// status it exits with ("" unknown). The breakpoint's argument is NULL
// there (shim/debugger.c), and gdb shows it in the stop's frame; the
// status, or when gdb does not show the argument whether the rank is
// exiting at all, is in mpidbg_exit_status.
func (ss *session) exitAt(tid int, stop gdbmi.Tuple) (status string, ok bool) {
	null := false
	for _, v := range stop.Tuple("frame").List("args").Values {
		a, _ := v.(gdbmi.Tuple)
		w := strings.Fields(a.String("value"))
		if a.String("name") != "f" || len(w) == 0 {
			continue
		}
		n, err := strconv.ParseUint(w[0], 0, 64)
		if err == nil && n != 0 {
			return "", false // a finding
		}
		null = err == nil
	}
	rec, err := ss.mi("-data-evaluate-expression --thread %d mpidbg_exit_status", tid)
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(rec.Results.String("value"))); err == nil && n >= 0 {
			return strconv.Itoa(n), true
		}
	}
	return "", null
}

// onRankExiting handles a rank stopped in its exit: it records the
// status ("" unknown), detaches the rank and, in all-stop mode, resumes
// the others, unless the client asked for a stop meanwhile.
func (ss *session) onRankExiting(tid int, status string) {
	t := ss.threadOf(tid)
	if t == nil || t.rank == nil {
		ss.resumeAll()
		return
	}
	rk := t.rank
	ss.mu.Lock()
	rk.ending, rk.status = "exited", status
	pause := ss.pause
	ss.mu.Unlock()
	if _, err := ss.mi("-target-detach --thread-group %s", rk.group); err != nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: rank %d: cannot let it exit: %v\n", rk.n, err))
	}
	if !ss.nonStop && pause == "" && len(ss.liveRanks()) > 0 {
		ss.resumeAll()
	}
}

// exitArgument reads the status a thread stopped at _exit's entry calls
// it with, "" when no register says.
func (ss *session) exitArgument(tid int) string {
	for _, reg := range exitArgRegisters {
		rec, err := ss.mi("-data-evaluate-expression --thread %d %s", tid, quote("(int)"+reg))
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(rec.Results.String("value")), 10, 64); err == nil {
			return strconv.FormatInt(n&0xff, 10) // what the parent's wait sees
		}
	}
	return ""
}
