package dap

import (
	"fmt"
	"strconv"
	"strings"
)

// A rank's exit in all-stop mode. When a rank's process exits, gdb stops
// every other rank with it; if another rank is exiting at that moment
// (its main thread gone, its other threads dying), gdb cannot read their
// registers and the resume fails after it has already reported every
// thread running: the job then hangs at its end, no rank resumed, the
// dying one never reaped. So no rank exits under gdb: a breakpoint on
// _exit catches each one with all its threads alive, the adapter reads
// the exit status from the call's first argument and detaches the rank,
// which exits on its own. A rank ended by a signal, or by an exit that
// does not go through _exit, still exits under gdb as before.

// exitArgRegisters hold _exit's status argument, by architecture: the
// first that evaluates to an integer is the one.
var exitArgRegisters = []string{"$rdi", "$x0"}

// insertExitBreakpoint puts the breakpoint on _exit in every rank, in
// all-stop mode (in non-stop mode one rank's exit stops no other).
func (ss *session) insertExitBreakpoint() {
	if ss.nonStop {
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

// onRankExiting handles a rank stopped at _exit: it records the status,
// detaches the rank and resumes the others, unless the client asked for
// a stop meanwhile.
func (ss *session) onRankExiting(tid int) {
	t := ss.threadOf(tid)
	if t == nil || t.rank == nil {
		ss.resumeAll()
		return
	}
	rk := t.rank
	status := ""
	for _, reg := range exitArgRegisters {
		rec, err := ss.mi("-data-evaluate-expression --thread %d %s", tid, quote("(int)"+reg))
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(rec.Results.String("value")), 10, 64); err == nil {
			status = strconv.FormatInt(n&0xff, 10) // what the parent's wait sees
			break
		}
	}
	ss.mu.Lock()
	rk.ending, rk.status = "exited", status
	pause := ss.pause
	ss.mu.Unlock()
	if _, err := ss.mi("-target-detach --thread-group %s", rk.group); err != nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: rank %d: cannot let it exit: %v\n", rk.n, err))
	}
	if pause == "" && len(ss.liveRanks()) > 0 {
		ss.resumeAll()
	}
}
