package launch

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/checks/deadlock"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

// detector decides when the job has stopped: every rank that has not
// finished or died is blocked, and nothing has changed for the timeout.
// Then it analyses the wait-for graph (package deadlock) once per state.
type detector struct {
	col     *report.Collector
	size    int // ranks the job was started with
	timeout time.Duration
	zero    bool      // --buffering=zero
	seen    time.Time // the state last analysed (its Changed)
}

// found is a deadlock (the finding), or a job stuck where ranks reported
// errors (stuck), and the state it was found in.
type found struct {
	finding checks.Finding
	stuck   report.Stuck
	state   report.JobState
	result  deadlock.Result
}

// why is the id the job ends for: the deadlock's, or the first error's
// the stuck ranks wait at.
func (f found) why() string {
	if len(f.stuck.IDs) > 0 {
		return f.stuck.IDs[0]
	}
	return f.finding.ID
}

// text says what was found, for the note and for the ranks stopped.
func (f found) text() string {
	if len(f.stuck.Ranks) == 1 {
		return fmt.Sprintf("%s cannot leave the call where it reported %s", ranklist.Phrase(f.stuck.Ranks), strings.Join(f.stuck.IDs, ", "))
	}
	if len(f.stuck.Ranks) > 1 {
		return fmt.Sprintf("%s cannot leave the calls where they reported %s", ranklist.Phrase(f.stuck.Ranks), strings.Join(f.stuck.IDs, ", "))
	}
	return f.result.Describe()
}

// check looks at the job at now; it returns the deadlock when there is
// one. The cheap summary comes first: the whole state is copied and
// analysed only once the job has stopped for the timeout, once per
// state. A stopped job without a deadlock is slow, not stuck, unless
// ranks wait in the very calls where they reported errors (a collective
// called with different roots, which every rank reached): then the error
// is why nothing moves.
func (d *detector) check(now time.Time) (found, bool) {
	sum := d.col.Summary()
	if !sum.Stopped(d.size) || now.Sub(sum.Changed) < d.timeout || sum.Changed.Equal(d.seen) {
		return found{}, false
	}
	st := d.col.State()
	d.seen = st.Changed
	res := deadlock.Analyse(st.DeadlockRanks())
	if len(res.Deadlocked) == 0 {
		if s := st.StuckAtErrors(); len(s.Ranks) > 0 {
			return found{stuck: s, state: st}, true
		}
		return found{}, false // blocked but matched: slow, not stuck
	}
	return found{finding: report.DeadlockFinding(res, st, d.zero), state: st, result: res}, true
}

// watch runs d until it finds a deadlock, which it sends on out, or
// until done closes.
func (d *detector) watch(out chan<- found, done <-chan struct{}) {
	tick := time.NewTicker(min(max(d.timeout/10, 10*time.Millisecond), 100*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-tick.C:
			if f, ok := d.check(now); ok {
				out <- f
				return
			}
		}
	}
}

// stopRanks asks every blocked rank to stop itself for a debugger, and
// says on w how to attach to each.
func stopRanks(ln *Listener, f found, w io.Writer) {
	var b strings.Builder
	if len(f.stuck.Ranks) > 0 {
		fmt.Fprintf(&b, "mpidbg: %s\n", f.text())
	} else {
		fmt.Fprintf(&b, "mpidbg: %s: %s\n", f.finding.ID, f.finding.Message)
	}
	fmt.Fprintf(&b, "mpidbg: the blocked ranks stop for a debugger (--on-error=stop); attach with:\n")
	here, _ := os.Hostname()
	var ranks []int
	for n, r := range f.state.Ranks {
		if r.Blocked != nil {
			ranks = append(ranks, n)
		}
	}
	slices.Sort(ranks)
	for _, n := range ranks {
		h := f.state.Ranks[n].Hello
		where := ""
		if h.Host != "" && !sameHost(h.Host, here) {
			where = "ssh -t " + h.Host + " "
		}
		status := ""
		if err := ln.Send(n, wire.Message{Kind: wire.KindStop, Stop: &wire.Stop{Why: f.why()}}); err != nil {
			status = fmt.Sprintf("  (not stopped: %v)", err)
		}
		fmt.Fprintf(&b, "  rank %d  pid %d on %s:  %sgdb -p %d%s\n", n, h.PID, h.Host, where, h.PID, status)
	}
	b.WriteString("mpidbg: end the job with Ctrl-C (or kill mpiexec); the report follows\n")
	io.WriteString(w, b.String())
}

// sameHost compares host names, either of which may be a short name.
func sameHost(a, b string) bool {
	short := func(s string) string { s, _, _ = strings.Cut(s, "."); return s }
	return a == b || short(a) == short(b)
}
