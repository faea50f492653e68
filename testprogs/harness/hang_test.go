// No hang outlives its report: the programs that hang, or can, run under
// a time limit of their deadlock timeout plus some slack.

package harness

import (
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
)

var hangSlack = flag.Duration("harness.hang-slack", 10*time.Second,
	"how long past its deadlock timeout a program that may hang may run (start-up, the report, ending the job)")

// defaultDeadlockTimeout is mpidbg run's --deadlock-timeout.
const defaultDeadlockTimeout = 2 * time.Second

// hangID tells the findings after which a job may hang: a deadlock, a
// collective the ranks called differently (MPI may never complete it),
// a one-sided epoch used wrongly (MPI_Win_free with a lock held).
func hangID(id string) bool {
	if id == "deadlock" || id == "potential-deadlock" {
		return true
	}
	e, ok := checks.Lookup(id)
	return ok && (e.Category == checks.CatCollective || e.Category == checks.CatEpochLifecycle)
}

// mayHang tells whether p (as forMPI made it) hangs natively or wants a
// finding after which the job may hang: mpidbg must end such a job
// within its deadlock timeout of the report, so it runs under
// hangBudget rather than the general time limit.
func (p program) mayHang() bool {
	if p.ok {
		return false
	}
	if p.nativeHangs {
		return true
	}
	for _, ids := range p.wants {
		if slices.ContainsFunc(ids, hangID) {
			return true
		}
	}
	return false
}

// deadlockTimeout is the --deadlock-timeout among flags, or mpidbg's
// default.
func deadlockTimeout(flags []string) time.Duration {
	d := defaultDeadlockTimeout
	for _, f := range flags {
		if v, ok := strings.CutPrefix(f, "--deadlock-timeout="); ok {
			if t, err := time.ParseDuration(v); err == nil {
				d = t
			}
		}
	}
	return d
}

// limitFor is the time limit of one run of p with flags under mpidbg:
// for a program that may hang, its deadlock timeout plus -harness.hang-slack
// (never more than -harness.timeout), and whether that budget applies.
func limitFor(p program, flags []string) (time.Duration, bool) {
	if !p.mayHang() {
		return *timeout, false
	}
	return min(*timeout, deadlockTimeout(flags)+*hangSlack), true
}

func TestHangBudget(t *testing.T) {
	tests := []struct {
		name  string
		p     program
		flags []string
		want  time.Duration
		hang  bool
	}{
		{"correct", program{ok: true, nativeHangs: false}, nil, *timeout, false},
		{"local_bug", program{wants: map[int][]string{3: {"negative-count"}}}, nil, *timeout, false},
		{"native_hangs", program{nativeHangs: true, wants: map[int][]string{3: {"request-active-start"}}}, nil, defaultDeadlockTimeout + *hangSlack, true},
		{"deadlock", program{wants: map[int][]string{3: {"deadlock"}}}, nil, defaultDeadlockTimeout + *hangSlack, true},
		{"root_mismatch", program{wants: map[int][]string{3: {"collective-root-mismatch"}}}, []string{"--deadlock-timeout=500ms"}, 500*time.Millisecond + *hangSlack, true},
		{"epoch", program{wants: map[int][]string{3: {"epoch-left-open"}}}, nil, defaultDeadlockTimeout + *hangSlack, true},
	}
	for _, tt := range tests {
		got, hang := limitFor(tt.p, tt.flags)
		if got != min(tt.want, *timeout) || hang != tt.hang {
			t.Errorf("%s: got %v %v, want %v %v", tt.name, got, hang, min(tt.want, *timeout), tt.hang)
		}
	}
}
