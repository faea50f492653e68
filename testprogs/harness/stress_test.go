// TestStress: the access tracker never kills a program, run after run, under load.

package harness

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	stressRuns = flag.Int("harness.stress", 200, "TestStress: `runs` in all, spread over the fence and PSCW programs of testprogs/rma and the MPI libraries (0 skips it; make stress runs more)")
	stressHog  = flag.Bool("harness.stress-hog", true, "TestStress: keep one CPU busy while it runs")
	stressKeep = flag.String("harness.stress-cores", "", "TestStress: keep the core files of failed runs in this `directory` (default: a new one under the temporary directory)")
)

// stressMaxCores is how many core files a TestStress run keeps (each is
// about 100 MB): the first failures say what the rest would.
const stressMaxCores = 3

// died matches mpidbg's summary of a rank that ended without
// MPI_Finalize or was killed: "rank 1 died (signal 11)", "ranks 0,2 died
// before MPI_Finalize".
var died = regexp.MustCompile(`\branks? [0-9,\-]+ died\b[^;\n]*`)

// TestStress runs the programs of testprogs/rma that use fence or
// post/start/complete/wait epochs, whose window memory the tracker logs
// with page protection and a fault per access (docs/races.md, "Never
// fatal"), again and again under mpidbg, with every MPI library, while
// a CPU hog and the other tests compete for the cores, so that faults,
// mprotect calls of other threads, MPI's progress threads and the
// epochs' ends interleave in ever new ways. A run fails when a rank dies
// (of a signal above all), mpidbg exits with a status other than 0 or 1
// (an ok_ program: other than 0), or the job hangs. A failed run's core
// files (where the kernel's core_pattern writes them into the working
// directory) are kept and their backtraces logged; the report's summary
// is logged in any case.
func TestStress(t *testing.T) {
	if *stressRuns <= 0 {
		t.Skip("-harness.stress 0")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	progs := stressPrograms(t)
	bin := needMpidbg(t)
	mpis := needMPIs(t)

	type pair struct {
		tools mpiTools
		p     program
	}
	var pairs []pair
	for _, m := range mpis {
		for _, p := range progs {
			if p.skipFor[m.name] != "" || p.mpiVersion > m.version {
				continue
			}
			pairs = append(pairs, pair{m, p})
		}
	}
	if len(pairs) == 0 {
		t.Fatal("no fence or PSCW programs in testprogs/rma")
	}
	if *stressHog {
		t.Cleanup(cpuHog())
	}
	t.Logf("core files: %s", coreNote())
	st := &stressState{start: time.Now()}
	t.Cleanup(func() {
		d := time.Since(st.start)
		n := st.runs.Load()
		per := time.Duration(0)
		if n > 0 {
			per = d / time.Duration(n)
		}
		t.Logf("%d runs of %d programs with %d MPI libraries in %v (%v a run, %d at once, hog %v): %d failed",
			n, len(progs), len(mpis), d.Round(time.Second), per.Round(time.Millisecond), *parallel, *stressHog, st.failed.Load())
	})
	for i, pr := range pairs {
		n := *stressRuns / len(pairs)
		if i < *stressRuns%len(pairs) {
			n++
		}
		if n == 0 {
			continue
		}
		t.Run(pr.tools.name+"/"+pr.p.name, func(t *testing.T) {
			t.Parallel()
			p := pr.p.forMPI(pr.tools.name)
			release := acquire()
			exe := build(t, pr.tools, p)
			release()
			for k := 0; k < n; k++ {
				release := acquire()
				ok := stressOnce(t, st, pr.tools, bin, exe, p, k)
				release()
				if !ok && !*stressAll {
					return // the first failure of a program says what the next would
				}
			}
		})
	}
}

var stressAll = flag.Bool("harness.stress-all", false, "TestStress: go on with a program's runs after one failed")

// stressPrograms returns the programs of testprogs/rma with fence or
// PSCW epochs that end by themselves.
func stressPrograms(t *testing.T) []program {
	t.Helper()
	var out []program
	for _, p := range loadPrograms(t, []string{"rma"}) {
		src, err := os.ReadFile(p.path)
		if err != nil {
			t.Fatal(err)
		}
		if p.deadlocks() || !regexp.MustCompile(`MPI_Win_(fence|post)\b`).Match(src) {
			continue
		}
		out = append(out, p)
	}
	return out
}

type stressState struct {
	start  time.Time
	runs   atomic.Int64
	failed atomic.Int64
	mu     sync.Mutex
	cores  int    // kept so far
	keep   string // where, once made
}

// stressOnce runs exe once under mpidbg and reports whether all went
// well; when not, it logs why, with the core files' backtraces.
func stressOnce(t *testing.T, st *stressState, tools mpiTools, bin, exe string, p program, k int) bool {
	t.Helper()
	st.runs.Add(1)
	dir := t.TempDir()
	argv := []string{bin, "run", "-n", strconv.Itoa(p.ranks), "--mpi", tools.name, "--mpiexec", tools.exec,
		"--shim", tools.shim}
	argv = append(append(argv, p.flags...), exe)
	// the ranks inherit the core size limit; set in a shell, not in this
	// process, so that the other tests' ranks do not write cores
	res := run(dir, append([]string{"/bin/sh", "-c", `ulimit -c unlimited 2>/dev/null || ulimit -c "$(ulimit -H -c)"; exec "$@"`, "sh"}, argv...)...)
	var why []string
	if res.timedOut {
		why = append(why, fmt.Sprintf("timed out after %v (hang?) and was killed", *timeout))
	}
	if d := died.FindAllString(string(res.stderr), -1); len(d) > 0 {
		why = append(why, strings.Join(d, "; "))
	}
	switch {
	case res.timedOut:
	case p.ok && res.exit != 0:
		why = append(why, fmt.Sprintf("exit status %d, want 0", res.exit))
	case res.exit != 0 && res.exit != 1:
		why = append(why, fmt.Sprintf("exit status %d, want 0 or 1", res.exit))
	}
	if len(why) == 0 {
		return true
	}
	st.failed.Add(1)
	var b strings.Builder
	fmt.Fprintf(&b, "%s with %s, run %d: %s\n%s\n--- program output:\n%s\n--- mpidbg report and errors:\n%s\n",
		p.file, tools.name, k+1, strings.Join(why, "; "), strings.Join(argv, " "), tail(res.stdout, 2000), tail(res.stderr, 6000))
	b.WriteString(st.cores1(t, dir, exe))
	t.Error(b.String())
	return false
}

// cores1 logs the backtraces of the core files a failed run left in dir
// and keeps the first few.
func (st *stressState) cores1(t *testing.T, dir, exe string) string {
	paths, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(paths) == 0 {
		return "--- no core file in the run's directory (" + coreNote() + ")\n"
	}
	var b strings.Builder
	for _, c := range paths {
		fmt.Fprintf(&b, "--- %s:\n%s\n", filepath.Base(c), backtrace(exe, c))
		st.mu.Lock()
		if st.cores < stressMaxCores {
			if st.keep == "" {
				st.keep = *stressKeep
				if st.keep == "" {
					st.keep, _ = os.MkdirTemp("", "mpidbg-stress-cores-")
				}
				os.MkdirAll(st.keep, 0o755)
			}
			name := filepath.Base(filepath.Dir(exe)) + "-" + filepath.Base(exe) // mpich-ok_rma_pscw
			dst := filepath.Join(st.keep, fmt.Sprintf("%s-%d.core", name, st.cores))
			if err := moveFile(c, dst, true); err == nil {
				st.cores++
				keptExe := filepath.Join(st.keep, name)
				moveFile(exe, keptExe, false) // gdb needs the executable too
				fmt.Fprintf(&b, "kept as %s (gdb %s %s)\n", dst, keptExe, dst)
			}
		}
		st.mu.Unlock()
	}
	return b.String()
}

// backtrace is gdb's backtrace of every thread in a core file.
func backtrace(exe, core string) string {
	gdb, err := exec.LookPath("gdb")
	if err != nil {
		return "(no gdb to read it)"
	}
	out, _ := exec.Command(gdb, "-batch", "-nx", "-ex", "p $_siginfo.si_signo", "-ex", "p $_siginfo.si_code",
		"-ex", "p $_siginfo._sifields._sigfault.si_addr", "-ex", "thread apply all bt 30", exe, core).CombinedOutput()
	return tail(out, 12000)
}

// moveFile moves src to dst (rm false: copies it).
func moveFile(src, dst string, rm bool) error {
	if rm && os.Rename(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	if rm {
		os.Remove(src)
	}
	return nil
}

// coreNote says where the kernel puts core files.
func coreNote() string {
	pat, err := os.ReadFile("/proc/sys/kernel/core_pattern")
	switch p := strings.TrimSpace(string(pat)); {
	case err != nil:
		return "core_pattern unknown: " + err.Error()
	case strings.HasPrefix(p, "|"):
		return fmt.Sprintf("core_pattern %q hands them to a program, not to the run's directory: look there (coredumpctl)", p)
	case strings.Contains(p, "/"):
		return fmt.Sprintf("core_pattern %q: not in the run's directory, look there", p)
	default:
		return fmt.Sprintf("core_pattern %q: in the run's directory", p)
	}
}

// cpuHog keeps one CPU busy until the function it returns is called.
func cpuHog() (stop func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		x := uint64(1)
		for {
			select {
			case <-done:
				return
			default:
			}
			for i := 0; i < 1<<20; i++ {
				x = x*6364136223846793005 + 1442695040888963407
			}
			hogSink.Store(x)
		}
	}()
	return func() { close(done) }
}

var hogSink atomic.Uint64
