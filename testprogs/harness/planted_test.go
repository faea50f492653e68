// TestPlanted (under mpidbg) and TestNative (without it).

package harness

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPlanted runs every program under mpidbg and compares its findings
// with the program's annotations.
func TestPlanted(t *testing.T) {
	progs := loadPrograms(t, chosenDirs(t))
	bin := needMpidbg(t)
	for _, tools := range needMPIs(t) {
		t.Run(tools.name, func(t *testing.T) {
			for _, p := range progs {
				runs := []struct {
					name  string
					prog  program
					flags []string
				}{{p.name, p, p.flags}}
				if p.ok && p.usesRMA {
					// correct one-sided programs must stay clean when the forcing
					// mode holds, splits and reorders their operations
					runs = append(runs, struct {
						name  string
						prog  program
						flags []string
					}{p.name + "_nasty", p.nasty(), append(slices.Clip(p.flags), nastyFlags...)})
				}
				for _, r := range runs {
					t.Run(r.name, func(t *testing.T) { testPlanted(t, tools, bin, r.prog, r.flags) })
				}
			}
		})
	}
}

// nastyFlags are the flags of the second run of correct one-sided
// programs: a fixed seed, so that a failure replays.
var nastyFlags = []string{"--nasty", "--nasty-seed=1"}

// nasty is p for its run with nastyFlags: a program repeated for its
// threads' interleavings ("// runs: N") is repeated a quarter as often
// there. The seed fixes what the forcing mode does, so the repeats vary
// only what the plain runs already vary; a quarter keeps the suite
// within its time while a flaky program still fails often enough to be
// seen.
func (p program) nasty() program {
	p.runs = max(1, p.runs/4)
	return p
}

// testPlanted runs one program under mpidbg with flags, as many times as
// its "// runs:" line says (times -harness.repeat), and compares its findings with its
// annotations each time; it stops at the first run that fails, which the
// failure names.
func testPlanted(t *testing.T, tools mpiTools, bin string, p program, flags []string) {
	t.Parallel()
	skipForMPI(t, tools, p)
	skipForMachine(t, p)
	p = p.forMPI(tools.name)
	flags = p.withHangTimeout(flags)
	release := acquire()
	defer release()
	exe := build(t, tools, p)
	p.runs *= max(1, *repeat)
	for i := 1; i <= p.runs; i++ {
		which := p.file
		if p.runs > 1 {
			which = fmt.Sprintf("%s (run %d of %d)", p.file, i, p.runs)
		}
		if !plantedRun(t, bin, exe, tools, p, flags, which) {
			return
		}
	}
}

// plantedRun is one run of testPlanted: it reports what went wrong,
// naming the run as which, and returns whether the run passed.
func plantedRun(t *testing.T, bin, exe string, tools mpiTools, p program, flags []string, which string) bool {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	argv := []string{bin, "run", "-n", strconv.Itoa(p.ranks), "--mpi", tools.name, "--mpiexec", tools.exec,
		"--shim", tools.shim, "--json", out}
	argv = append(append(argv, flags...), command(t, tools, p, exe)...)
	limit, budget := limitFor(p, flags)
	res := runFor(limit, dir, argv...)
	details := func() string {
		return fmt.Sprintf("%s\nmpidbg exit status %d\n--- program output:\n%s\n--- mpidbg report and errors:\n%s",
			strings.Join(argv, " "), res.exit, tail(res.stdout, 2000), tail(res.stderr, 6000))
	}
	if res.timedOut && budget {
		t.Errorf("%s: still running %v after it started, past its deadlock timeout of %v (plus %v of -harness.hang-slack): a hang outlived mpidbg's report; killed\n%s",
			which, limit, deadlockTimeout(flags), *hangSlack, details())
		return false
	}
	if res.timedOut {
		t.Errorf("%s: timed out after %v (hang?) and was killed\n%s", which, *timeout, details())
		return false
	}
	if budget {
		t.Logf("%s: mpidbg ended after %v (budget %v)", which, res.took.Round(10*time.Millisecond), limit)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Errorf("%s: no JSON report: %v\n%s", which, err, details())
		return false
	}
	var rep jsonReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Errorf("%s: bad JSON report: %v\n%s", which, err, data)
		return false
	}
	if rep.Version != 2 {
		t.Errorf("%s: report version %d, want 2", which, rep.Version)
		return false
	}
	problems := compare(p, rep.Findings)
	switch {
	case p.ok && res.exit != 0:
		problems = append(problems, fmt.Sprintf("exit status %d under mpidbg, want 0", res.exit))
	case p.ok && string(res.stdout) != p.name+": OK\n":
		problems = append(problems, fmt.Sprintf("program output %q, want %q", res.stdout, p.name+": OK\n"))
	case !p.ok && p.deadlocks():
		// mpidbg ended the job after reporting the deadlock: any
		// exit status, as long as it ended by itself (not timed out)
	case !p.ok && res.exit != 0 && res.exit != 1:
		problems = append(problems, fmt.Sprintf("exit status %d under mpidbg, want 0 or 1 (a rank failed?)", res.exit))
	}
	for _, f := range rep.Findings {
		t.Logf("found %s", f) // shown with -v
	}
	if len(problems) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: got/want mismatch\n", which)
		for _, pr := range problems {
			fmt.Fprintf(&b, "  %s\n", pr)
		}
		fmt.Fprintf(&b, "all findings (%d):\n", len(rep.Findings))
		for _, f := range rep.Findings {
			fmt.Fprintf(&b, "  %s\n", f)
		}
		b.WriteString(details())
		t.Error(b.String())
		return false
	}
	return true
}

// ucxLogLine is a line UCX (under MPICH) logs on standard output, such as
// the warning for a message still unmatched at MPI_Finalize that a
// lost-message bug leaves:
//
//	[1795358518.709923] [vm:32167:0]       tag_match.c:62   UCX  WARN  unexpected tag-receive descriptor 0x563c9bb7e140 was not matched
var ucxLogLine = regexp.MustCompile(`(?m)^\[\d+\.\d+\] \[[^\]]*\]\s+\S+\s+UCX\s+\w+ .*\n?`)

// TestNative runs every program without mpidbg: it must exit 0, an ok_
// program must print exactly its OK line, and a bug program nothing but
// UCX's own log lines. A program declared "// native: hangs" is built but
// not run.
func TestNative(t *testing.T) {
	progs := loadPrograms(t, chosenDirs(t))
	for _, tools := range needMPIs(t) {
		t.Run(tools.name, func(t *testing.T) { testNative(t, tools, progs) })
	}
}

func testNative(t *testing.T, tools mpiTools, progs []program) {
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			skipForMPI(t, tools, p)
			p := p.forMPI(tools.name)
			release := acquire()
			defer release()
			exe := build(t, tools, p)
			if p.nativeHangs {
				t.Skipf("%s: declared \"// native: hangs\": it deadlocks without mpidbg", p.file)
			}
			res := run(filepath.Dir(exe), append([]string{tools.exec, "-n", strconv.Itoa(p.ranks)}, command(t, tools, p, exe)...)...)
			want, got := "", string(res.stdout)
			if p.ok {
				want = p.name + ": OK\n"
			} else {
				got = ucxLogLine.ReplaceAllString(got, "")
			}
			switch {
			case res.timedOut:
				t.Errorf("%s: timed out after %v natively (hang?)", p.file, *timeout)
			case p.nativeCrashes:
				if res.exit == 0 {
					t.Errorf("%s: declared \"// native[%s]: crashes\" but exited 0", p.file, tools.name)
				}
			case res.exit != 0:
				t.Errorf("%s: exit status %d natively, want 0\nstdout:\n%s\nstderr:\n%s", p.file, res.exit, tail(res.stdout, 2000), tail(res.stderr, 4000))
			case got != want:
				t.Errorf("%s: output %q natively, want %q\nstderr:\n%s", p.file, got, want, tail(res.stderr, 4000))
			}
		})
	}
}
