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

// hangTimeout is the deadlock timeout of a program that may hang and
// names none of its own: its ranks spin in MPI until mpidbg ends the
// job, on cores the other programs of the suite need. A hang is found
// after 1 s as after mpidbg's default of 2 (a correct program keeps the
// default: no false deadlock is made more likely).
const hangTimeout = "--deadlock-timeout=1s"

// withHangTimeout is flags with hangTimeout added when p may hang and
// flags name no deadlock timeout.
func (p program) withHangTimeout(flags []string) []string {
	if _, named := namedDeadlockTimeout(flags); named || !p.mayHang() {
		return flags
	}
	return append(slices.Clip(flags), hangTimeout)
}

// namedDeadlockTimeout is the last --deadlock-timeout=D among flags (the
// one mpidbg run takes), and whether there is one.
func namedDeadlockTimeout(flags []string) (d time.Duration, named bool) {
	for _, f := range flags {
		if v, ok := strings.CutPrefix(f, "--deadlock-timeout="); ok {
			if t, err := time.ParseDuration(v); err == nil {
				d, named = t, true
			}
		}
	}
	return d, named
}

// deadlockTimeout is the --deadlock-timeout among flags, or mpidbg's
// default.
func deadlockTimeout(flags []string) time.Duration {
	if d, ok := namedDeadlockTimeout(flags); ok {
		return d
	}
	return defaultDeadlockTimeout
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
		{"native_hangs", program{nativeHangs: true, wants: map[int][]string{3: {"request-active-start"}}}, nil, time.Second + *hangSlack, true},
		{"deadlock", program{wants: map[int][]string{3: {"deadlock"}}}, nil, time.Second + *hangSlack, true},
		{"deadlock_own_timeout", program{wants: map[int][]string{3: {"deadlock"}}}, []string{"--deadlock-timeout=3s"}, 3*time.Second + *hangSlack, true},
		{"root_mismatch", program{wants: map[int][]string{3: {"collective-root-mismatch"}}}, []string{"--deadlock-timeout=500ms"}, 500*time.Millisecond + *hangSlack, true},
		{"epoch", program{wants: map[int][]string{3: {"epoch-left-open"}}}, nil, time.Second + *hangSlack, true},
	}
	for _, tt := range tests {
		flags := tt.p.withHangTimeout(tt.flags)
		if !tt.hang && len(flags) != len(tt.flags) {
			t.Errorf("%s: flags %q became %q: only a program that may hang gets a shorter deadlock timeout", tt.name, tt.flags, flags)
		}
		got, hang := limitFor(tt.p, flags)
		if got != min(tt.want, *timeout) || hang != tt.hang {
			t.Errorf("%s: got %v %v, want %v %v", tt.name, got, hang, min(tt.want, *timeout), tt.hang)
		}
	}
}
