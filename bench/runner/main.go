// Command runner measures what mpidbg costs a running MPI program: it
// builds the overhead benchmarks in bench/programs with one MPI library
// (MPICH or Open MPI, by -mpicc and -mpiexec) and runs each, at the rank
// counts of the jobs table below, in these modes in the same invocation:
//
//   - native: mpiexec alone;
//   - local: mpidbg run with the cross-rank and race categories off (the
//     checks one rank makes alone: no shadow messages, no collective
//     agreement, no access tracking);
//   - cross: mpidbg run with the race categories off (the cross-rank
//     checks added);
//   - all: mpidbg run with its default checks (every category on; the
//     opt-in findings stay off), what a user gets;
//   - all without X, for every category X that `mpidbg explain` lists:
//     mpidbg run --checks -X. Only the breakdown jobs run these: ping-pong,
//     msgrate, msgrate_stack, halo3d 48³ on 2 ranks and collbench (whose
//     Allreduce and Alltoallv are the collectives of interest; its
//     Barrier and Bcast come with the same runs). Every category on every
//     program would take about twice as long as `make bench` may: each
//     run costs mpiexec's and mpidbg's start, 0.3-0.6 s, whatever the
//     program does.
//
// The order of a job's modes rotates every round, so that drift on a
// shared machine hits all of them alike. It prints the machine (CPU,
// cores, load average at the start and the end), the MPI library's
// version, the date and the mpidbg it ran (commit, shim), then medians,
// ratios and the time each layer adds, per MPI call and per message,
// collective or iteration, and the per-category breakdown: all − (all
// without X) is what X costs; a category without checks on these
// programs' paths shows ~1.00x and a cost within the noise. The tables
// are Markdown (the form docs/PERFORMANCE.md keeps).
//
// Results are named by the program's RESULT line and the rank count, e.g.
// "halo3d_32_iteration, 4 ranks". Jobs with more ranks than CPUs
// oversubscribe the machine: Open MPI's mpiexec refuses that unless
// OMPI_MCA_rmaps_base_oversubscribe is 1, which the runner then sets in
// the environment of the runs (mpidbg run's mpiexec inherits it); MPICH
// oversubscribes by itself. Oversubscribed ranks share cores, so those
// numbers say as much about the scheduler as about MPI or mpidbg.
//
//	go run ./bench/runner [-rounds 5] [-mpidbg bin/mpidbg] [-mpicc mpicc.mpich] [-mpiexec mpiexec.mpich] [-only PROGS] [-np N] [-breakdown=false] [-v]
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
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

// job is one program run at one rank count.
type job struct {
	prog string   // the source bench/programs/<prog>.c
	args []string // the program's arguments
	np   int
	// breakdown: also run "all without X" for every category X
	breakdown bool
	// optional: only when -only names the program
	optional bool
}

// jobs are the runs, in report order. Each program prints one or more
// lines "RESULT <name> <value> <unit>" on rank 0. The halo's iteration
// counts at 4 ranks are lower than its defaults (halo3d.c): on 2 cores
// an oversubscribed MPICH iteration takes milliseconds (its ranks spin
// until the scheduler switches), and a run must stay well under 2 s.
// msgrate_mt is optional: its 8 threads on 2 cores measure the scheduler
// (docs/PERFORMANCE.md), and a run takes seconds.
var jobs = []job{
	{prog: "pingpong", np: 2, breakdown: true},
	{prog: "msgrate", np: 2, breakdown: true},
	{prog: "msgrate_stack", np: 2, breakdown: true},
	{prog: "msgrate_mt", np: 2, optional: true},
	{prog: "halo3d", args: []string{"16"}, np: 2},
	{prog: "halo3d", args: []string{"32"}, np: 2},
	{prog: "halo3d", args: []string{"48"}, np: 2, breakdown: true},
	{prog: "halo3d", args: []string{"16", "100"}, np: 4},
	{prog: "halo3d", args: []string{"32", "100"}, np: 4},
	{prog: "halo3d", args: []string{"48", "40"}, np: 4},
	{prog: "halo3d_stack", np: 2},
	{prog: "collbench", np: 2, breakdown: true},
	{prog: "rmabench", np: 2},
	{prog: "waitany", np: 2},
}

// cflags are the build flags a program needs besides the common ones.
var cflags = map[string][]string{
	"msgrate_mt": {"-pthread"}, // its threads stream under MPI_THREAD_MULTIPLE
}

// crossRank lists the categories whose checks travel between ranks
// (docs/ARCHITECTURE.md, decision 7). With all four off the shim sends no
// shadow messages and runs no collective agreement (shim/xr_p2p.c,
// mpidbg_xr_init).
const crossRank = "-type-mismatch,-collective-mismatch,-message-race,-lost-message"

// races lists the categories of the access tracker (docs/ARCHITECTURE.md,
// decision 8): with both off it protects no page (shim/track.c).
const races = "-buffer-race,-rma-race"

// mode is one way of running a job: natively, or under mpidbg run with
// the --checks list given (none: the defaults).
type mode struct {
	name   string
	native bool
	checks string
}

var (
	native = mode{name: "native", native: true}
	local  = mode{name: "local", checks: crossRank + "," + races}
	cross  = mode{name: "cross", checks: races}
	all    = mode{name: "all"}
)

// without is the mode "all without category cat".
func without(cat string) mode {
	return mode{name: "-" + cat, checks: "-" + cat}
}

// modesOf returns a job's modes: the four layers, then one per category
// for a breakdown job.
func modesOf(j job, categories []string) []mode {
	ms := []mode{native, local, cross, all}
	if j.breakdown {
		for _, c := range categories {
			ms = append(ms, without(c))
		}
	}
	return ms
}

// series is one result of one job: its samples by mode name.
type series struct {
	key       string // name and ranks, as the tables show it
	name      string // as the program's RESULT line has it
	unit      string
	np        int
	breakdown bool
	samples   map[string][]float64
}

func main() {
	rounds := flag.Int("rounds", 5, "runs of each program in each mode")
	mpidbg := flag.String("mpidbg", "bin/mpidbg", "the mpidbg command (it preloads the shim in ../lib beside itself unless $"+envvar.Shim+" says otherwise)")
	mpicc := flag.String("mpicc", "mpicc.mpich", "MPI C compiler")
	mpiexec := flag.String("mpiexec", "mpiexec.mpich", "MPI launcher (native runs, and mpidbg run --mpiexec)")
	only := flag.String("only", "", "comma-separated programs to run (default: all)")
	np := flag.Int("np", 0, "run only the jobs at this many ranks (default: every job)")
	breakdown := flag.Bool("breakdown", true, "run the per-category breakdown on its jobs")
	verbose := flag.Bool("v", false, "print every run's results to standard error as it finishes")
	flag.Parse()
	js := slices.DeleteFunc(slices.Clone(jobs), func(j job) bool { return j.optional })
	if *only != "" {
		want := strings.Split(*only, ",")
		js = nil
		for _, j := range jobs {
			if slices.Contains(want, j.prog) {
				js = append(js, j)
			}
		}
		if len(js) == 0 {
			fmt.Fprintf(os.Stderr, "bench: -only %s: no such program\n", *only)
			os.Exit(2)
		}
	}
	if *np > 0 {
		js = slices.DeleteFunc(slices.Clone(js), func(j job) bool { return j.np != *np })
		if len(js) == 0 {
			fmt.Fprintf(os.Stderr, "bench: no job runs at -np %d\n", *np)
			os.Exit(2)
		}
	}
	if !*breakdown {
		js = slices.Clone(js)
		for i := range js {
			js[i].breakdown = false
		}
	}
	var log io.Writer = io.Discard
	if *verbose {
		log = os.Stderr
	}
	if err := run(os.Stdout, js, *rounds, *mpidbg, *mpicc, *mpiexec, log); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, js []job, rounds int, mpidbg, mpicc, mpiexec string, log io.Writer) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
	}
	if _, err := os.Stat(mpidbg); err != nil {
		return fmt.Errorf("%s: %w (run make build first)", mpidbg, err)
	}
	dir, err := os.MkdirTemp("", "mpidbg-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join("bench", "programs")
	built := map[string]bool{}
	for _, j := range js {
		if built[j.prog] {
			continue
		}
		built[j.prog] = true
		args := append([]string{"-O2", "-Wall", "-Wno-stringop-overflow"}, cflags[j.prog]...)
		args = append(args, "-o", filepath.Join(dir, j.prog), filepath.Join(src, j.prog+".c"))
		out, err := exec.Command(mpicc, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("build %s: %v\n%s", j.prog, err, out)
		}
	}
	var categories []string
	if slices.ContainsFunc(js, func(j job) bool { return j.breakdown }) {
		out, err := exec.Command(mpidbg, "explain").Output()
		if err != nil {
			return fmt.Errorf("%s explain: %v", mpidbg, err)
		}
		if categories = parseCategories(string(out)); len(categories) == 0 {
			return fmt.Errorf("%s explain listed no categories:\n%s", mpidbg, out)
		}
	}

	start := time.Now()
	describe(w, mpidbg, mpicc, mpiexec, rounds, start)

	var list []*series
	byKey := map[string]*series{}
	for r := 0; r < rounds; r++ {
		for _, j := range js {
			ms := modesOf(j, categories)
			for i := range ms {
				m := ms[(i+r)%len(ms)]
				t0 := time.Now()
				res, err := results(argv(j, m, dir, mpidbg, mpiexec), env(j, mpiexec))
				if err != nil {
					return err
				}
				fmt.Fprintf(log, "round %d %-22s %s %s: %s\n", r+1, m.name, j.prog, strings.Join(j.args, " "), time.Since(t0).Round(time.Millisecond))
				for _, x := range res {
					key := fmt.Sprintf("%s, %d ranks", x.name, j.np)
					s := byKey[key]
					if s == nil {
						s = &series{key: key, name: x.name, unit: x.unit, np: j.np, breakdown: j.breakdown, samples: map[string][]float64{}}
						byKey[key] = s
						list = append(list, s)
					}
					s.samples[m.name] = append(s.samples[m.name], x.value)
					fmt.Fprintf(log, "round %d %-22s %s %.1f %s\n", r+1, m.name, key, x.value, x.unit)
				}
			}
		}
	}
	fmt.Fprintf(w, "Finished %s after %s; load average at the end: %s; %s.\n\n",
		time.Now().Format("2006-01-02 15:04:05 MST"), time.Since(start).Round(time.Second), loadAverage(), handoffText())
	layers(w, list)
	added(w, list)
	breakdownTable(w, list, categories)
	return nil
}

// argv is the command line of job j in mode m.
func argv(j job, m mode, dir, mpidbg, mpiexec string) []string {
	n := strconv.Itoa(j.np)
	prog := append([]string{filepath.Join(dir, j.prog)}, j.args...)
	if m.native {
		return append([]string{mpiexec, "-n", n}, prog...)
	}
	a := []string{mpidbg, "run", "-n", n, "--mpiexec", mpiexec}
	if m.checks != "" {
		a = append(a, "--checks", m.checks)
	}
	return append(a, prog...)
}

// env is the environment of job j's runs: the runner's own, plus Open
// MPI's permission to oversubscribe when the job has more ranks than the
// machine has CPUs (unless the environment already decides).
func env(j job, mpiexec string) []string {
	e := os.Environ()
	if j.np > runtime.NumCPU() && strings.Contains(filepath.Base(mpiexec), "openmpi") {
		if _, set := os.LookupEnv(envvar.OMPIOversubscribe); !set {
			e = append(e, envvar.OMPIOversubscribe+"=1")
		}
	}
	return e
}

type result struct {
	name  string
	value float64
	unit  string
}

// results runs one benchmark and returns the values of its RESULT lines.
func results(argv, env []string) ([]result, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr, cmd.Env = &out, &errb, env
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s%s", strings.Join(argv, " "), err, out.String(), errb.String())
	}
	res, err := parseResults(&out)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s printed no RESULT line:\n%s%s", strings.Join(argv, " "), out.String(), errb.String())
	}
	return res, nil
}

// parseResults reads the "RESULT <name> <value> <unit>" lines of a run's
// output and ignores the rest (mpidbg's summary, MPI's chatter).
func parseResults(r io.Reader) ([]result, error) {
	var res []result
	s := bufio.NewScanner(r)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) == 4 && f[0] == "RESULT" {
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", s.Text(), err)
			}
			res = append(res, result{f[1], v, f[3]})
		}
	}
	return res, s.Err()
}

// parseCategories returns the categories `mpidbg explain` lists, in its
// order: each heads a group of indented finding ids.
func parseCategories(explain string) []string {
	var cats []string
	lines := strings.Split(explain, "\n")
	for i, l := range lines {
		if l == "" || l[0] == ' ' || l[0] == '\t' || strings.ContainsAny(l, " \t") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "  ") {
			cats = append(cats, l)
		}
	}
	return cats
}
