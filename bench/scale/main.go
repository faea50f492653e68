// Command scale measures what mpidbg adds to a job's start and end as the
// job grows: it builds bench/programs/scale_init.c (MPI_Init and
// MPI_Finalize only) and scale_leak.c (the same with a datatype leaked on
// every rank) with one MPI library, runs each natively and under mpidbg
// run at each rank count (oversubscribed beyond the machine's cores), and
// prints per rank count the median wall time of each, the difference,
// the difference per rank, mpidbg's peak resident memory (VmHWM, read
// from /proc while it runs) and how long after the last rank's exit the
// run ended (each rank prints the moment it exits; mpidbg prints its
// report just before it exits itself).
//
// Under mpidbg the leak program must end in one folded finding naming
// every rank ("ranks 0-N-1"); a run that does not, or that does not end
// within -timeout, fails the runner.
//
// Oversubscribed ranks share the cores, so the wall time of a large job
// measures the scheduler as much as MPI: MPICH's ranks poll while they
// wait, so every collective among more ranks than cores costs about a
// scheduling round. That is the cost mpidbg's own collectives at MPI_Init
// and MPI_Finalize add, and what this runner is for.
//
//	go run ./bench/scale [-np 2,4,...,256] [-rounds 3] [-progs init,leak] [-mpidbg bin/mpidbg] [-mpicc mpicc.mpich] [-mpiexec mpiexec.mpich] [-timeout 300s]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

func main() {
	nps := flag.String("np", "2,4,8,16,32,64,128,256", "rank counts, comma-separated")
	rounds := flag.Int("rounds", 3, "runs of each program per mode; the median is printed")
	progs := flag.String("progs", "init,leak", "programs: init (MPI_Init/Finalize), leak (a datatype leaked on every rank)")
	mpidbg := flag.String("mpidbg", "bin/mpidbg", "the mpidbg to measure")
	mpicc := flag.String("mpicc", "mpicc.mpich", "the MPI library's compiler wrapper")
	mpiexec := flag.String("mpiexec", "mpiexec.mpich", "the MPI library's mpiexec")
	timeout := flag.Duration("timeout", 300*time.Second, "the longest one run may take")
	flag.Parse()
	counts, err := parseCounts(*nps)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "mpidbg-scale-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	fmt.Printf("# mpidbg at scale: %s, %s, %d CPUs, %s, %s\n\n", *mpiexec, *mpidbg, runtime.NumCPU(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadAverage())
	fmt.Println("| program | ranks | native | mpidbg | added | added per rank | mpidbg max RSS | end after last exit (native / mpidbg) |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	failed := false
	for _, p := range strings.Split(*progs, ",") {
		exe := filepath.Join(dir, "scale_"+p)
		src := filepath.Join("bench", "programs", "scale_"+p+".c")
		if out, err := exec.Command(*mpicc, "-g", "-O2", "-o", exe, src).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "scale: %s: %v\n%s", src, err, out)
			os.Exit(1)
		}
		for _, np := range counts {
			var nat, dbg []run
			for r := 0; r < *rounds; r++ {
				// alternate which goes first, so that drift hits both alike
				order := []bool{r%2 == 0, r%2 != 0}
				for _, native := range order {
					ru, err := once(exe, np, native, *mpidbg, *mpiexec, *timeout)
					if err == nil && !native && p == "leak" {
						err = folded(ru.out, np)
					}
					if err != nil {
						fmt.Fprintf(os.Stderr, "scale: %s, %d ranks: %v\n", p, np, err)
						failed = true
						continue
					}
					if native {
						nat = append(nat, ru)
					} else {
						dbg = append(dbg, ru)
					}
				}
			}
			if len(nat) == 0 || len(dbg) == 0 {
				continue
			}
			n, d := medianOf(nat, wall), medianOf(dbg, wall)
			fmt.Printf("| %s | %d | %.2f s | %.2f s | %.2f s | %.1f ms | %.0f MiB | %.0f / %.0f ms |\n", p, np, n, d, d-n, (d-n)/float64(np)*1000,
				medianOf(dbg, func(r run) float64 { return float64(r.rssKiB) / 1024 }),
				medianOf(nat, tail)*1000, medianOf(dbg, tail)*1000)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func parseCounts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-np: %q is not a rank count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// run is one job's measurements.
type run struct {
	wall   float64 // seconds from start to end
	tail   float64 // seconds from the last rank's exit to the end
	rssKiB int64   // mpidbg's peak resident memory (0 natively)
	out    string
}

func wall(r run) float64 { return r.wall }
func tail(r run) float64 { return r.tail }

func medianOf(rs []run, f func(run) float64) float64 {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// once runs exe on np ranks, natively or under mpidbg.
func once(exe string, np int, native bool, mpidbg, mpiexec string, timeout time.Duration) (run, error) {
	n := strconv.Itoa(np)
	argv := []string{mpiexec, "-n", n, exe}
	if !native {
		argv = []string{mpidbg, "run", "-n", n, "--mpiexec", mpiexec, exe}
	}
	var out bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Env = &out, &out, env(np, mpiexec)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return run{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var rss int64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(timeout)
	for {
		select {
		case err := <-done:
			end := time.Now()
			// mpidbg exits 1 when it reports an error, 0 for warnings only
			if err != nil {
				return run{}, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, lastLines(out.String(), 20))
			}
			r := run{wall: end.Sub(start).Seconds(), rssKiB: rss, out: out.String()}
			if last := lastExit(out.String()); !last.IsZero() {
				r.tail = end.Sub(last).Seconds()
			}
			return r, nil
		case <-tick.C:
			if !native {
				if v := vmHWM(cmd.Process.Pid); v > rss {
					rss = v
				}
			}
		case <-limit:
			_ = cmd.Process.Kill()
			<-done
			return run{}, fmt.Errorf("%s: still running after %v (a hang)\n%s", strings.Join(argv, " "), timeout, lastLines(out.String(), 20))
		}
	}
}

// env is the runner's environment, with Open MPI allowed to oversubscribe
// and, as root, to run at all (unless the environment already decides).
func env(np int, mpiexec string) []string {
	e := os.Environ()
	if !strings.Contains(filepath.Base(mpiexec), "openmpi") {
		return e
	}
	set := func(k, v string) {
		if _, ok := os.LookupEnv(k); !ok {
			e = append(e, k+"="+v)
		}
	}
	if np > runtime.NumCPU() {
		set(envvar.OMPIOversubscribe, "1")
	}
	if os.Geteuid() == 0 {
		set(envvar.OMPIAllowRunAsRoot, "1")
		set(envvar.OMPIAllowRunAsRootConfirm, "1")
	}
	return e
}

// lastExit is the latest "EXIT <ns>" line of the ranks' output.
func lastExit(out string) time.Time {
	var last int64
	s := bufio.NewScanner(strings.NewReader(out))
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "EXIT "); ok {
			if ns, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && ns > last {
				last = ns
			}
		}
	}
	if last == 0 {
		return time.Time{}
	}
	return time.Unix(0, last)
}

// folded checks that the leak program's report is one finding for every
// rank: "leak-type ... ranks 0-N-1".
func folded(out string, np int) error {
	want := fmt.Sprintf("ranks 0-%d", np-1)
	switch np {
	case 1:
		want = "rank 0"
	case 2:
		want = "ranks 0,1"
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "leak-type") {
			n++
			if !strings.HasSuffix(strings.TrimSpace(l), want) {
				return fmt.Errorf("the leak is not folded into %q: %s", want, l)
			}
		}
	}
	if n != 1 {
		return fmt.Errorf("%d leak-type findings, want one:\n%s", n, lastLines(out, 20))
	}
	return nil
}

// vmHWM is a process's peak resident set in KiB, 0 when unknown.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load average unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load average unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n") + "\n"
}
