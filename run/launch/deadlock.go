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
// Then it analyses the wait-for graph (package deadlock) once per state,
// and before it reports a deadlock it asks the ranks in it whether they
// are still blocked (wire.Confirm).
//
// The question is needed because the launcher's view is made of messages
// and of its own clock. A rank that is not given the CPU (stopped by job
// control or a debugger, on an overloaded node, in a stalled virtual
// machine) sends nothing, so it looks blocked however long it is kept
// from taking a message that has arrived; ok_stopped_rank.c is such a
// job. The rank answers once its threads have had the CPU.
type detector struct {
	col     *report.Collector
	size    int // ranks the job was started with
	timeout time.Duration
	zero    bool      // --buffering=zero
	seen    time.Time // the state last analysed (its Changed)
	// send asks a rank (Listener.Send); nil reports without asking.
	send    func(rank int, m wire.Message) error
	probe   uint64    // the last question's number
	asking  *asking   // the deadlock asked about, nil when none
	retryAt time.Time // after an answer that it was not, or could not tell: look again then
	// unsure counts the answers that a rank could not tell, about the
	// state whose Changed is unsureOf
	unsure   int
	unsureOf time.Time
}

// maxUnsure bounds how often the same state is asked about while a rank
// answers that a thread of it got no CPU at all for its whole look (2 s):
// a node that starved for that long, that often, is not going to take
// the message either, and a job that hangs must not outlive its report.
const maxUnsure = 4

// asking is a deadlock found and not yet confirmed: the state it was
// found in (its Changed) and, for each rank asked, the call it was asked
// about.
type asking struct {
	f       found
	probe   uint64
	changed time.Time
	seqs    map[int]uint64
}

// found is a deadlock (the finding), or a job stuck where ranks reported
// errors (stuck), and the state it was found in.
type found struct {
	finding checks.Finding
	stuck   report.Stuck
	state   report.JobState
	result  deadlock.Result
	// unsure: ranks that never confirmed they were blocked, only that a
	// thread of theirs got no CPU while they looked (maxUnsure+1 times)
	unsure []int
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
	if d.asking != nil {
		return d.answered(now)
	}
	sum := d.col.Summary()
	if !sum.Stopped(d.size) || now.Sub(sum.Changed) < d.timeout || sum.Changed.Equal(d.seen) || now.Before(d.retryAt) {
		return found{}, false
	}
	st := d.col.State()
	d.seen = st.Changed
	res := deadlock.Analyse(st.DeadlockRanks())
	var f found
	if len(res.Deadlocked) > 0 {
		f = found{finding: report.DeadlockFinding(res, st, d.zero), state: st, result: res}
	} else if s := st.StuckAtErrors(); len(s.Ranks) > 0 {
		f = found{stuck: s, state: st}
	} else {
		return found{}, false // blocked but matched: slow, not stuck
	}
	if d.send == nil {
		return f, true
	}
	d.ask(f)
	return d.answered(now)
}

// asked is who must confirm f: the deadlocked ranks, or, for a job stuck
// at its errors, every blocked rank (any of them moving would change
// what is stuck).
func (f found) asked() []int {
	if len(f.stuck.Ranks) == 0 {
		return f.result.Deadlocked
	}
	var ns []int
	for n, r := range f.state.Ranks {
		if r.Blocked != nil {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns
}

// ask sends the question to every rank f.asked names. A rank that cannot
// be asked (its connection is gone or stopped taking messages, or its
// shim predates the question) is not waited for.
func (d *detector) ask(f found) {
	d.probe++
	a := &asking{f: f, probe: d.probe, changed: f.state.Changed, seqs: map[int]uint64{}}
	for _, n := range f.asked() {
		rs := f.state.Ranks[n]
		b := rs.Blocked
		if b == nil || rs.Hello.Version < wire.ConfirmVersion {
			continue
		}
		if d.send(n, wire.Message{Kind: wire.KindConfirm, Confirm: &wire.Confirm{Seq: b.Seq, Probe: a.probe}}) == nil {
			a.seqs[n] = b.Seq
		}
	}
	d.asking = a
}

// answered looks at the answers to the question under way. The deadlock
// is reported once every rank asked has said it is still in the call it
// was asked about. It is dropped when the job's state changed meanwhile
// (a call returned: the new state waits for the timeout again), and the
// same state is looked at again after the timeout when a rank says its
// call is over (its Unblocked may still be on its way) or that it could
// not tell; after maxUnsure such answers about one state it is reported
// all the same. A rank that does not answer (a process stopped for a
// debugger) holds the report back, as a rank stopped that way holds the
// job.
func (d *detector) answered(now time.Time) (found, bool) {
	a := d.asking
	if !d.col.Summary().Changed.Equal(a.changed) {
		d.asking = nil
		return found{}, false
	}
	over := false
	var unsure []int
	for n, seq := range a.seqs {
		c, ok := d.col.Confirmed(n)
		switch {
		case !ok || c.Probe != a.probe:
			return found{}, false // not every answer is in
		case c.Seq != seq:
			over = true
		case !c.Still:
			unsure = append(unsure, n)
		}
	}
	d.asking = nil
	if !a.changed.Equal(d.unsureOf) {
		d.unsure, d.unsureOf = 0, a.changed
	}
	if over || (len(unsure) > 0 && d.unsure < maxUnsure) {
		if !over {
			d.unsure++
		}
		d.seen = time.Time{}
		d.retryAt = now.Add(d.timeout)
		return found{}, false
	}
	slices.Sort(unsure)
	a.f.unsure = unsure
	return a.f, true
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
