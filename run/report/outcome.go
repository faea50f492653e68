package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// How the job ended, rank by rank: what the ranks said before they went
// (a fatal signal with its place, MPI_Abort, an exit without
// MPI_Finalize), what the launcher said of their processes, and which
// ranks never started.

// Outcome is how the job ended.
type Outcome struct {
	// Ranks groups the ranks that ended the same way, ordered by first
	// rank; every rank of the job is in one group.
	Ranks []RankEnd `json:"ranks"`
	// Hosts groups the ranks by the host they ran on, ordered by first
	// rank, when they ran on more than one (hosts.go).
	Hosts []HostRanks `json:"hosts,omitempty"`
}

// How a group of ranks ended.
type How string

const (
	Finalized    How = "finalized"     // reached MPI_Finalize and ended without a bad status
	Signalled    How = "signal"        // a fatal signal: Signal, SignalName; Location when the rank said where
	Aborted      How = "abort"         // called MPI_Abort: AbortCode, Comm, Location
	NoFinalize   How = "exit"          // exited after MPI_Init without MPI_Finalize: ExitCode, Location (exit's call) or Returned
	MPIEnded     How = "mpi-error"     // the MPI library ended the rank on a fatal error: ExitCode when known; Call, Finding, Handler and Location when the rank had said it went on into MPI after that error
	ExitedBadly  How = "exit-status"   // ended with a non-zero exit code the launcher reported, without a word
	Vanished     How = "died"          // ended without MPI_Finalize and without a word; Status has the launcher's, if any
	EndedByTool  How = "ended"         // ended by mpidbg (Status says why: a deadlock)
	NeverStarted How = "never-started" // never connected: the launcher's error when it failed, else not known
)

// RankEnd is a group of ranks that ended the same way.
type RankEnd struct {
	Ranks []int `json:"ranks"`
	How   How   `json:"how"`
	// ExitCode is the process's exit status when known (exit's argument,
	// the launcher's account).
	ExitCode   *int   `json:"exit_code,omitempty"`
	Signal     int    `json:"signal,omitempty"`
	SignalName string `json:"signal_name,omitempty"` // "SIGSEGV"
	// Fault is what the kernel says of a fault ("address not mapped",
	// at Addr), empty for a signal sent.
	Fault string `json:"fault,omitempty"`
	Addr  uint64 `json:"addr,omitempty"`
	// AbortCode and Comm are MPI_Abort's arguments.
	AbortCode int    `json:"abort_code,omitempty"`
	Comm      string `json:"comm,omitempty"`
	// Returned: main returned (no exit() call to point at).
	Returned bool `json:"returned,omitempty"`
	// Location is the crash site (the program's innermost frame with a
	// source line), MPI_Abort's or exit()'s call.
	Location *checks.Location `json:"location,omitempty"`
	// Frames is a crashed rank's stack, innermost first, as resolved
	// (the fault's frame first).
	Frames []checks.Location `json:"frames,omitempty"`
	// Status is the launcher's word on the processes ("signal 11",
	// "exit code 3", "ended by mpidbg: deadlock"), when it gave one.
	Status string `json:"status,omitempty"`
	// After: the ranks had reached MPI_Finalize (then died).
	After bool `json:"after_finalize,omitempty"`
	// LaunchError is the launcher's message, for ranks that never
	// started.
	LaunchError string `json:"launch_error,omitempty"`
	// Call, Finding and Handler: the MPI call in which MPI's error
	// handler (Handler, "MPI_ERRORS_ARE_FATAL") ended the rank, and the
	// error the rank reported there (MPIEnded).
	Call    string `json:"call,omitempty"`
	Finding string `json:"finding,omitempty"`
	Handler string `json:"handler,omitempty"`
}

// rankEnd is what a rank said of its end (collector state, under c.mu).
// A crash is provisional: a program may handle the signal and go on, so
// a crash the rank said before an Exit or a Bye is not how it ended.
type rankEnd struct {
	crash *wire.Crash
	abort *wire.Abort
	exit  *wire.Exit
	// fatal: the rank is inside a call that went on into MPI after an
	// error, under a handler that ends the job (nil once it returned)
	fatal *wire.Fatal
	// crashSeq and exitSeq order the crash and the exit (later is more)
	crashSeq, exitSeq, seq int
}

// outcomes is the collector's record of the ranks' last words.
type outcomes struct {
	byRank map[int]*rankEnd
}

// outcome records a Crash, Abort or Exit message (under c.mu).
func (cn *Conn) outcome(m wire.Message) {
	c := cn.c
	rank := cn.rank
	if rank < 0 {
		return
	}
	if c.outs.byRank == nil {
		c.outs.byRank = map[int]*rankEnd{}
	}
	e := c.outs.byRank[rank]
	if e == nil {
		e = &rankEnd{}
		c.outs.byRank[rank] = e
	}
	exe := ""
	if r := c.ranks[rank]; r != nil {
		exe = r.hello.Exe
	}
	switch {
	case m.Crash != nil:
		cr := *m.Crash
		cr.Stack = slices.Clone(cr.Stack)
		for i := range cr.Stack {
			cr.Stack[i] = programSite(cr.Stack[i], exe)
		}
		e.crash = &cr
		e.seq++
		e.crashSeq = e.seq
	case m.Abort != nil:
		a := *m.Abort
		a.Site = programSite(a.Site, exe)
		e.abort = &a
	case m.Fatal != nil:
		e.fatal = nil
		if !m.Fatal.Left {
			f := *m.Fatal
			f.Site = programSite(f.Site, exe)
			e.fatal = &f
		}
	case m.Exit != nil:
		x := *m.Exit
		x.Site = programSite(x.Site, exe)
		e.exit = &x
		e.seq++
		e.exitSeq = e.seq
	}
}

// signalNames are the names of the signals a rank may die of (Linux).
var signalNames = map[int]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
	9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
	16: "SIGSTKFLT", 17: "SIGCHLD", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU",
	23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF", 28: "SIGWINCH", 29: "SIGIO",
	30: "SIGPWR", 31: "SIGSYS",
}

// SignalName is "SIGSEGV" for 11, "signal 40" for a number without a name.
func SignalName(n int) string {
	if s, ok := signalNames[n]; ok {
		return s
	}
	return "signal " + strconv.Itoa(n)
}

// faultWords says what si_code means for the signals the shim reports
// (Linux's asm-generic/siginfo.h).
func faultWords(sig, code int) string {
	switch {
	case sig == 11 && code == 1:
		return "address not mapped"
	case sig == 11 && code == 2:
		return "invalid permissions for mapped object"
	case sig == 7 && code == 1:
		return "invalid address alignment"
	case sig == 7 && code == 2:
		return "nonexistent physical address"
	case sig == 8 && code == 1:
		return "integer divide by zero"
	case sig == 8 && code == 2:
		return "integer overflow"
	case sig == 8 && code >= 3 && code <= 8:
		return "floating-point exception"
	case sig == 4 && code >= 1 && code <= 8:
		return "illegal instruction"
	}
	return ""
}

// buildOutcome makes the report's Outcome from what c collected (under
// c.mu); resolve turns sites into locations.
func (r *Report) buildOutcome(c *Collector, resolve func(checks.Site) checks.Location) {
	var ends []RankEnd
	for rank, st := range c.ranks {
		status := ""
		c.statusesOf(rank, st, func(s procStatus) { status = s.status })
		e := RankEnd{Ranks: []int{rank}}
		said := c.outs.byRank[rank]
		var crash *wire.Crash
		var exit *wire.Exit
		var fatal *wire.Fatal
		if said != nil && !st.bye { // said before the Bye: the rank went on
			crash, exit, fatal = said.crash, said.exit, said.fatal
			if crash != nil && exit != nil && said.crashSeq < said.exitSeq {
				crash = nil // the program handled the signal, then exited
			}
		}
		switch {
		case crash != nil:
			cr := crash
			e.How, e.Signal, e.SignalName = Signalled, cr.Signal, SignalName(cr.Signal)
			if cr.Code > 0 {
				e.Fault, e.Addr = faultWords(cr.Signal, cr.Code), cr.Addr
			}
			for _, s := range cr.Stack {
				e.Frames = append(e.Frames, resolve(s))
			}
			e.Location = known(crashSite(e.Frames, cr.Stack, st.hello.Exe))
		case said != nil && said.abort != nil:
			a := said.abort
			e.How, e.AbortCode, e.Comm, e.Location = Aborted, a.Code, a.Comm, known(resolve(a.Site))
		case exit != nil && exit.ByMPI:
			code := exit.Status & 0xff // MPICH exits with its error code: the process's status is its low byte
			e.How, e.ExitCode = MPIEnded, &code
			e.fatalCall(fatal, resolve)
		case fatal != nil && exit == nil && r.Interrupted == "" && mpiMayHaveEnded(status) && !endedByTool(c, st, status):
			// MPI's handler ended the rank in the call: MPICH's
			// process manager kills it, Open MPI's ends it without an
			// exit the shim sees
			e.How = MPIEnded
			if n, ok := exitCode(status); ok {
				e.ExitCode = &n
			}
			e.fatalCall(fatal, resolve)
		case exit != nil:
			code := exit.Status
			e.How, e.ExitCode, e.Returned = NoFinalize, &code, exit.Returned
			if !exit.Returned {
				e.Location = known(resolve(exit.Site))
			}
		case strings.HasPrefix(status, "signal "):
			n, _ := strconv.Atoi(strings.TrimPrefix(status, "signal "))
			e.How, e.Signal, e.SignalName, e.After = Signalled, n, SignalName(n), st.bye
			if !st.bye && (n == 15 || n == 9) && closedAfterEnding(c, st) {
				e = RankEnd{Ranks: e.Ranks, How: EndedByTool, Status: "ended by mpidbg: " + c.ended}
			}
		case strings.HasPrefix(status, "exit code "):
			n, _ := exitCode(status)
			e.How, e.ExitCode, e.After = ExitedBadly, &n, st.bye
			if !st.bye && toolSignal(status) && closedAfterEnding(c, st) {
				e = RankEnd{Ranks: e.Ranks, How: EndedByTool, Status: "ended by mpidbg: " + c.ended}
			}
		case st.bye:
			e.How = Finalized
		case closedAfterEnding(c, st):
			e.How, e.Status = EndedByTool, "ended by mpidbg: "+c.ended
		default:
			e.How = Vanished
		}
		if e.How != EndedByTool && e.How != Finalized {
			e.Status = status
		}
		ends = append(ends, e)
	}
	if r.Size > 0 {
		for rank := 0; rank < r.Size; rank++ {
			if c.ranks[rank] == nil {
				ends = append(ends, RankEnd{Ranks: []int{rank}, How: NeverStarted, LaunchError: r.LaunchError})
			}
		}
	}
	r.Outcome = Outcome{Ranks: groupEnds(ends)}
	r.buildHosts(c)
}

// fatalCall adds the call in which MPI's error handler ended the rank,
// when the rank said it went on into it after an error.
func (e *RankEnd) fatalCall(f *wire.Fatal, resolve func(checks.Site) checks.Location) {
	if f == nil {
		return
	}
	e.Call, e.Finding, e.Handler, e.Location = f.Call, f.ID, f.Handler, known(resolve(f.Site))
}

// mpiMayHaveEnded says whether the launcher's word on a rank that was
// inside a call announced with wire.Fatal fits MPI's error handler ending
// it: none, a kill, or a failing exit code; not a clean exit or a Ctrl-C.
func mpiMayHaveEnded(status string) bool {
	switch status {
	case "exit code 0", "signal 2":
		return false
	}
	return true
}

// endedByTool says whether mpidbg ended the rank: it was still connected
// when mpidbg began to end the job, and the launcher says nothing else or
// names the signal mpidbg's ending sends.
func endedByTool(c *Collector, st *rankState, status string) bool {
	return closedAfterEnding(c, st) && (status == "" || toolSignal(status))
}

// closedAfterEnding says whether the rank's connection closed once mpidbg
// had begun to end the job.
func closedAfterEnding(c *Collector, st *rankState) bool {
	return c.ended != "" && st.closed && !st.closedAt.Before(c.endedAt)
}

// exitCode is N of the launcher's "exit code N".
func exitCode(status string) (int, bool) {
	v, ok := strings.CutPrefix(status, "exit code ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// siteResolver resolves a site with res, quietly: a frame in a library
// without debug information is its function name, or nothing.
func siteResolver(res Resolver) func(checks.Site) checks.Location {
	return func(s checks.Site) checks.Location {
		if s.Script != (checks.Location{}) {
			return s.Script
		}
		if res == nil || s.Module == "" {
			return checks.Location{}
		}
		l, _ := res.Resolve(s)
		return l
	}
}

// known is l, or nil when it says nothing.
func known(l checks.Location) *checks.Location {
	if l == (checks.Location{}) {
		return nil
	}
	return &l
}

// crashSite is the place a crash is reported at: the innermost frame
// with a source line in the program itself, else the innermost with a
// source line, else the innermost.
func crashSite(frames []checks.Location, stack []checks.Site, exe string) checks.Location {
	for i, f := range frames {
		if f.File != "" && exe != "" && stack[i].Module == exe {
			return f
		}
	}
	for _, f := range frames {
		if f.File != "" {
			return f
		}
	}
	if len(frames) > 0 {
		return frames[0]
	}
	return checks.Location{}
}

// groupEnds merges the ends that say the same, ranks sorted, groups by
// first rank.
func groupEnds(ends []RankEnd) []RankEnd {
	slices.SortFunc(ends, func(a, b RankEnd) int { return cmp.Compare(a.Ranks[0], b.Ranks[0]) })
	var out []RankEnd
	idx := map[string]int{}
	for _, e := range ends {
		k := endKey(e)
		if i, ok := idx[k]; ok {
			out[i].Ranks = append(out[i].Ranks, e.Ranks...)
			continue
		}
		idx[k] = len(out)
		out = append(out, e)
	}
	return out
}

func endKey(e RankEnd) string {
	code := ""
	if e.ExitCode != nil {
		code = strconv.Itoa(*e.ExitCode)
	}
	return fmt.Sprint(e.How, "|", code, "|", e.Signal, "|", e.Fault, "|", e.AbortCode, "|", e.Comm, "|", e.Returned, "|",
		fmt.Sprint(e.Location), "|", e.Status, "|", e.After, "|", e.LaunchError, "|", fmt.Sprint(e.Frames), "|",
		e.Call, "|", e.Finding, "|", e.Handler)
}

// Abnormal says whether any rank ended other than by MPI_Finalize.
func (o Outcome) Abnormal() bool {
	for _, e := range o.Ranks {
		if e.How != Finalized {
			return true
		}
	}
	return false
}

// Where is a location in words for a report line: "segv.c:8 in main",
// "main" (no line), "" (nothing known); files inside dir relative to it.
func Where(loc *checks.Location, dir string) string {
	if loc == nil {
		return ""
	}
	l := *loc
	switch {
	case l.File != "" && l.Function != "":
		return fmt.Sprintf("%s:%d in %s", RelPath(dir, l.File), l.Line, l.Function)
	case l.File != "":
		return fmt.Sprintf("%s:%d", RelPath(dir, l.File), l.Line)
	case l.Function != "":
		return l.Function
	}
	return ""
}
