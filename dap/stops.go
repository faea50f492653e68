package dap

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
	"github.com/mpidbg/mpidbg/internal/mpiframe"
)

// waitStop registers for the next stop, which then goes to the returned
// channel instead of the client (the adapter's own runs: to main).
func (ss *session) waitStop() chan gdbmi.Record {
	ch := make(chan gdbmi.Record, 1)
	ss.mu.Lock()
	ss.waiters = append(ss.waiters, ch)
	ss.mu.Unlock()
	return ch
}

// onStopped decides what a stop means and tells the client.
func (ss *session) onStopped(res gdbmi.Tuple) {
	rec := gdbmi.Record{Kind: gdbmi.ExecRecord, Class: "stopped", Results: res}
	if res.String("reason") == "exited-signalled" {
		ss.onRankSignalled(res) // whoever waits for this stop
	}
	ss.mu.Lock()
	if len(ss.waiters) > 0 {
		ch := ss.waiters[0]
		ss.waiters = ss.waiters[1:]
		ss.mu.Unlock()
		ch <- rec
		return
	}
	live := ss.live
	pause := ss.pause
	ss.mu.Unlock()
	if !live {
		return // the stop that attaching makes
	}
	reason := res.String("reason")
	tid := atoi(res.String("thread-id"))
	switch reason {
	case "exited-normally", "exited", "exited-signalled":
		// One rank ended; in all-stop mode gdb stopped the others with
		// it. They go on unless the client asked for a stop meanwhile.
		if !ss.nonStop && len(ss.liveRanks()) > 0 && pause == "" {
			go ss.resumeAll()
		}
		return
	case "breakpoint-hit":
		bp := res.String("bkptno")
		ss.mu.Lock()
		isFinding := bp != "" && bp == ss.findingBp
		isExit := bp != "" && bp == ss.exitBp
		ss.mu.Unlock()
		if isExit {
			go func() { // gdb commands wait for answers this goroutine reads
				ss.onRankExiting(tid, ss.exitArgument(tid))
			}()
			return
		}
		if isFinding {
			if status, ok := ss.exitAt(tid, res); ok {
				go ss.onRankExiting(tid, status)
				return
			}
			if !ss.wantsFindings() { // filters turned off since the stop
				ss.resume(tid)
				return
			}
			ss.onFindingStop(tid)
			return
		}
		ss.stopped(tid, "breakpoint", "", []int{atoi(bp)}, nil)
	case "end-stepping-range", "function-finished", "location-reached":
		ss.stopped(tid, "step", "", nil, nil)
	case "signal-received":
		sig := res.String("signal-name")
		if (sig == "SIGINT" || sig == "0") && pause != "" {
			if ss.nonStop {
				// every thread stops on its own: report the ranks' main
				// threads, and keep pause until the next resume
				if t := ss.threadOf(tid); t == nil || t.rank == nil || t.rank.main != tid {
					return
				}
			} else {
				ss.mu.Lock()
				ss.pause = ""
				ss.mu.Unlock()
			}
			if pause == "deadlock" {
				ss.onDeadlockStop(tid)
				return
			}
			ss.stopped(tid, "pause", "", nil, nil)
			return
		}
		if sig == "0" {
			// non-stop: the stop attaching made, reported late; the
			// program did not stop, so there is nothing to show and the
			// thread goes on
			if ss.nonStop && tid > 0 {
				go ss.mi("-exec-continue --thread %d", tid)
			}
			return
		}
		meaning := res.String("signal-meaning")
		ss.stopped(tid, "exception", fmt.Sprintf("%s, %s", sig, meaning), nil, &stopInfo{signal: sig + " (" + meaning + ")"})
	case "":
		if pause == "" && !ss.nonStop {
			// nobody asked for it: gdb 13 with native and remote ranks in
			// one all-stop session was seen to report its own stop at a
			// library load (_dl_debug_state) with no reason; the program
			// did not stop, so it goes on
			ss.srv.logf("a stop with no reason, not asked for: resumed")
			go ss.resumeAll()
			return
		}
		fallthrough
	default:
		ss.stopped(tid, "pause", "", nil, nil)
	}
}

// stopped records info for tid and sends the stopped event. A hidden
// thread's stop is reported, and recorded, as its rank's main thread's:
// the client asks exceptionInfo and stackTrace of the thread it is told
// of.
func (ss *session) stopped(tid int, reason, text string, bps []int, info *stopInfo) {
	if t := ss.threadOf(tid); t != nil && !t.known {
		ss.classifyThreads() // a Go runtime thread is reported as its rank's main one
	}
	shown := ss.visible(tid)
	if info != nil && shown != tid && info.hide > 0 {
		// frames counted on the hidden thread's stack, not on this one
		hidden := *info
		hidden.hide = 0
		info = &hidden
	}
	ss.mu.Lock()
	if info != nil {
		ss.stops[shown] = info
	}
	ss.halted, ss.lastStop = true, tid
	ss.mu.Unlock()
	ev := &dap.StoppedEvent{Event: event("stopped")}
	ev.Body.Reason = reason
	ev.Body.ThreadId = shown
	ev.Body.AllThreadsStopped = !ss.nonStop
	ev.Body.HitBreakpointIds = bps
	if info != nil && info.exception != nil {
		ev.Body.Text = info.exception.id
		ev.Body.Description = fmt.Sprintf("mpidbg %s: %s", info.exception.severity, info.exception.id)
	} else if text != "" {
		ev.Body.Text = text
	}
	ss.srv.send(ev)
}

// visible maps a hidden thread (a Go runtime thread that hit something)
// to its rank's main thread, so the client is never told of a thread it
// cannot list.
func (ss *session) visible(tid int) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if t := ss.threads[tid]; t != nil && t.hidden && t.rank != nil {
		return t.rank.main
	}
	return tid
}

// onRankExited tells the client a rank ended; the session goes on. gdb
// gives the exit code (in octal) only when the process exited: a rank
// the adapter killed or detached has none, nor has one a signal ended,
// whose signal the "exited-signalled" stop that follows names.
func (ss *session) onRankExited(res gdbmi.Tuple) {
	group, code := res.String("id"), res.String("exit-code")
	ss.mu.Lock()
	rk := ss.groups[group]
	unnamed := ss.signalled // no stop named its signal
	ss.signalled = nil
	ending, status := "", ""
	if rk != nil {
		rk.exited = true
		ending, status = rk.ending, rk.status
		if code == "" && ending == "" {
			ss.signalled = rk
		}
	}
	ss.mu.Unlock()
	if unnamed != nil {
		ss.srv.output("console", rankEnded(unnamed, "ended without an exit status"))
	}
	if rk == nil {
		return
	}
	switch {
	case code != "":
		if n, err := strconv.ParseUint(code, 8, 32); err == nil {
			code = strconv.FormatUint(n, 10)
		}
		ss.srv.output("console", rankEnded(rk, "exited with status "+code))
	case ending == "exited" && status != "":
		ss.srv.output("console", rankEnded(rk, "exited with status "+status))
	case ending == "exited":
		ss.srv.output("console", rankEnded(rk, "exited"))
	case ending == "killed":
		ss.srv.output("console", rankEnded(rk, "was killed by the debugger"))
	case ending == "detached":
		ss.srv.output("console", rankEnded(rk, "was detached: it runs on without the debugger"))
	}
}

// onRankSignalled tells the client which signal ended the rank that
// just exited with no exit code.
func (ss *session) onRankSignalled(res gdbmi.Tuple) {
	ss.mu.Lock()
	rk := ss.signalled
	ss.signalled = nil
	ss.mu.Unlock()
	sig := fmt.Sprintf("%s (%s)", res.String("signal-name"), res.String("signal-meaning"))
	if rk == nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: a rank was ended by signal %s\n", sig))
		return
	}
	ss.srv.output("console", rankEnded(rk, "was ended by signal "+sig))
}

func rankEnded(rk *rank, how string) string {
	if rk.host != "" {
		return fmt.Sprintf("mpidbg: rank %d (pid %d on %s) %s\n", rk.n, rk.pid, rk.host, how)
	}
	return fmt.Sprintf("mpidbg: rank %d (pid %d) %s\n", rk.n, rk.pid, how)
}

// frameOf is a frame as package mpiframe takes it. gdb/MI names the
// library ("from") of a frame without debug information only.
func frameOf(f gdbmi.Tuple) mpiframe.Frame {
	return mpiframe.Frame{Func: f.String("func"), File: f.String("file"), Lib: f.String("from")}
}

// internalFrame tells whether f is MPI's or the shim's (mpiframe.Internal).
func internalFrame(f gdbmi.Tuple) bool { return mpiframe.Internal(frameOf(f)) }

// userFrame is the level of the program's frame that made the MPI call
// the thread is in, or 0 when there is none (mpiframe.Find, the rule
// the gdb extension's info mpi-call follows too).
func (ss *session) userFrame(tid int) int {
	r, err := ss.mi("-stack-list-frames --thread %d 0 64", tid)
	if err != nil {
		return 0
	}
	var stack []mpiframe.Frame
	for _, r := range r.Results.List("stack").Results {
		f, _ := r.Value.(gdbmi.Tuple)
		stack = append(stack, frameOf(f))
	}
	return mpiframe.Find(stack) + 1 // the caller's level; -1 + 1 is 0, none
}

// onFindingStop handles a stop on mpidbg_break: the finding the shim
// just made is the newest in its registry's ring (read through the
// extension's -mpi-errors). Filtered out: the job goes on.
func (ss *session) onFindingStop(tid int) {
	start := time.Now()
	f, err := ss.newestFinding(tid)
	if err != nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: a finding in thread %d, but it cannot be read: %v\n", tid, err))
	}
	if ss.suppress.covers(f) { // a reviewed site: the job goes on (suppress.go)
		ss.resume(tid)
		return
	}
	ss.srv.mu.Lock()
	want := f != nil && ss.srv.filters.wants(f.severity)
	ss.srv.mu.Unlock()
	if !want && err == nil {
		ss.srv.sendFinding(f)
		ss.resume(tid)
		return
	}
	hide, elsewhere := ss.findingFrame(tid, f)
	if f != nil {
		if elsewhere != "" {
			f.elsewhere = elsewhere
			f.details = strings.Replace(f.details, "\n", "\n  "+elsewhere+"\n", 1)
		}
		ss.srv.sendFinding(f)
	}
	ss.stopped(tid, "exception", "", nil, &stopInfo{hide: hide, exception: f})
	ss.srv.logf("finding stop handled in %v", time.Since(start))
}

// onDeadlockStop stops every rank at its blocked call after the
// interrupt the deadlock asked for.
func (ss *session) onDeadlockStop(tid int) {
	ss.mu.Lock()
	f := ss.deadlock
	ranks := append([]*rank(nil), ss.ranks...)
	ss.mu.Unlock()
	first := 0
	for _, rk := range ranks {
		if rk == nil || rk.exited || (ss.nonStop && rk.main != tid) {
			continue
		}
		hide := ss.userFrame(rk.main)
		ss.mu.Lock()
		ss.stops[rk.main] = &stopInfo{hide: hide, exception: f}
		ss.mu.Unlock()
		if first == 0 && f != nil && f.involves(rk.n) {
			first = rk.main
		}
	}
	if first == 0 {
		first = ss.visible(tid)
	}
	ss.stopped(first, "exception", "", nil, ss.stopOf(first))
}

func (ss *session) stopOf(tid int) *stopInfo {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.stops[tid]
}

// resume continues after a stop the client is not told of.
func (ss *session) resume(tid int) {
	if ss.nonStop {
		if t := ss.threadOf(tid); t != nil && t.rank != nil {
			ss.mi("-exec-continue --thread-group %s", t.rank.group)
			return
		}
	}
	ss.resumeAll()
}

// interrupt stops the job (all-stop) or every rank (non-stop) for why.
func (ss *session) interrupt(why string) error {
	ss.mu.Lock()
	ss.pause = why
	ss.mu.Unlock()
	_, err := ss.mi("-exec-interrupt --all")
	return err
}
