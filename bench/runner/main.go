// Command runner measures what mpidbg costs a running MPI program: it
// builds the overhead benchmarks in bench/programs with MPICH and runs
// each in four modes in the same invocation:
//
//   - native: mpiexec alone;
//   - local: mpidbg run with the cross-rank and race categories off (the
//     checks one rank makes alone: no shadow messages, no collective
//     agreement, no access tracking);
//   - cross: mpidbg run with the race categories off (the cross-rank
//     checks added);
//   - all: mpidbg run with every check (the access tracker added).
//
// The order of the modes rotates every round, so that drift on a shared
// machine hits all of them alike. It prints medians, ratios, the time the
// shim adds (local − native), the time the cross-rank checks add (cross −
// local) and the time race detection adds (all − cross), per MPI call and
// per message or collective, as Markdown tables (the form
// docs/PERFORMANCE.md keeps).
//
//	go run ./bench/runner [-rounds 5] [-np 2] [-mpidbg bin/mpidbg] [-v]
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
	"sort"
	"strconv"
	"strings"
	"time"
)

// programs are the sources in bench/programs, in report order. Each
// prints one or more lines "RESULT <name> <value> <unit>" on rank 0.
var programs = []string{"pingpong", "msgrate", "msgrate_stack", "msgrate_mt", "halo3d", "halo3d_stack", "collbench", "rmabench"}

// cflags are the build flags a program needs besides the common ones.
var cflags = map[string][]string{
	"msgrate_mt": {"-pthread"}, // its threads stream under MPI_THREAD_MULTIPLE
}

// account says how to turn a result into per-call costs.
type account struct {
	// calls is how many wrapped MPI calls lie on the measured path per
	// reported unit: a one-way ping-pong trip is one send and one
	// receive; a message of the rate test is one Isend and one Irecv
	// (the Waitalls are shared by 64 messages); a collective is one call
	// on each rank. 0: not meaningful (the halo mixes computation in).
	calls float64
	// ops is how many messages or collectives (op) one unit holds.
	ops float64
	op  string
}

var accounts = map[string]account{
	"pingpong_8B_one_way":              {2, 1, "message"},
	"msgrate_8B_per_message":           {2, 1, "message"},
	"msgrate_stack_8B_per_message":     {2, 1, "message"},
	"msgrate_mt_8B_per_message":        {2, 1, "message"},
	"halo3d_iteration":                 {0, 0, ""},
	"halo3d_stack_faces_iteration":     {0, 0, ""},
	"collbench_barrier":                {1, 1, "collective"},
	"collbench_allreduce_8B":           {1, 1, "collective"},
	"collbench_bcast_1KB":              {1, 1, "collective"},
	"collbench_alltoallv_16B_per_peer": {1, 1, "collective"},
	"rma_lock_round":                   {0, 0, ""},
	"rma_fence_round":                  {0, 0, ""},
}

// crossRank lists the categories whose checks travel between ranks
// (docs/ARCHITECTURE.md, decision 7). With all four off the shim sends no
// shadow messages and runs no collective agreement (shim/xr_p2p.c,
// mpidbg_xr_init).
const crossRank = "-type-mismatch,-collective-mismatch,-message-race,-lost-message"

// races lists the categories of the access tracker (docs/ARCHITECTURE.md,
// decision 8): with both off it protects no page (shim/track.c).
const races = "-buffer-race,-rma-race"

type mode int

const (
	native mode = iota
	local
	cross
	all
	nmodes
)

func main() {
	rounds := flag.Int("rounds", 5, "runs of each program in each mode")
	np := flag.Int("np", 2, "ranks")
	mpidbg := flag.String("mpidbg", "bin/mpidbg", "the mpidbg command")
	mpicc := flag.String("mpicc", "mpicc.mpich", "MPI C compiler")
	mpiexec := flag.String("mpiexec", "mpiexec.mpich", "MPI launcher for the native runs")
	only := flag.String("only", "", "comma-separated programs to run (default: all)")
	verbose := flag.Bool("v", false, "print every run's results to standard error as it finishes")
	flag.Parse()
	progs := programs
	if *only != "" {
		progs = strings.Split(*only, ",")
	}
	var log io.Writer = io.Discard
	if *verbose {
		log = os.Stderr
	}
	if err := run(progs, *rounds, *np, *mpidbg, *mpicc, *mpiexec, log); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(progs []string, rounds, np int, mpidbg, mpicc, mpiexec string, log io.Writer) error {
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: want at least 1", rounds)
	}
	dir, err := os.MkdirTemp("", "mpidbg-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := os.Stat(mpidbg); err != nil {
		return fmt.Errorf("%s: %w (run make build first)", mpidbg, err)
	}
	src := filepath.Join("bench", "programs")
	for _, p := range progs {
		args := append([]string{"-O2", "-Wall", "-Wno-stringop-overflow"}, cflags[p]...)
		args = append(args, "-o", filepath.Join(dir, p), filepath.Join(src, p+".c"))
		out, err := exec.Command(mpicc, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("build %s: %v\n%s", p, err, out)
		}
	}
	n := strconv.Itoa(np)
	// samples[name][mode] holds one value per round
	samples := map[string]*[nmodes][]float64{}
	units := map[string]string{}
	var names []string // results in the order the programs print them
	start := time.Now()
	for r := 0; r < rounds; r++ {
		for _, p := range progs {
			prog := filepath.Join(dir, p)
			argv := [nmodes][]string{
				native: {mpiexec, "-n", n, prog},
				local:  {mpidbg, "run", "-n", n, "--mpiexec", mpiexec, "--checks", crossRank + "," + races, prog},
				cross:  {mpidbg, "run", "-n", n, "--mpiexec", mpiexec, "--checks", races, prog},
				all:    {mpidbg, "run", "-n", n, "--mpiexec", mpiexec, prog},
			}
			for i := 0; i < int(nmodes); i++ {
				m := mode((i + r) % int(nmodes))
				res, err := results(argv[m])
				if err != nil {
					return err
				}
				for _, x := range res {
					s := samples[x.name]
					if s == nil {
						s = new([nmodes][]float64)
						samples[x.name] = s
						names = append(names, x.name)
					}
					s[m] = append(s[m], x.value)
					units[x.name] = x.unit
					fmt.Fprintf(log, "round %d %-6s %s %.1f %s\n", r+1, m, x.name, x.value, x.unit)
				}
			}
		}
	}
	host, _ := os.Hostname()
	fmt.Printf("%s (%s), %d ranks, %d rounds, %s, %d CPUs, %s/%s, %s, %s (%s)\n\n", filepath.Base(mpiexec), filepath.Base(mpicc), np, rounds,
		cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, host, time.Now().Format("2006-01-02"), time.Since(start).Round(time.Second))
	fmt.Println("Modes: native = mpiexec alone; local = mpidbg run --checks " + crossRank + "," + races + " (local checks only);")
	fmt.Println("cross = mpidbg run --checks " + races + " (race detection off); all = mpidbg run (every check, races on).")
	fmt.Println("Medians over rounds, [min-max] after them.")
	fmt.Println()
	fmt.Println("| benchmark | native | local | cross | all | local/native | cross/local | all/cross (races) | all/native |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, name := range names {
		s, u := samples[name], units[name]
		med := medians(s)
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, cell(s[native], u), cell(s[local], u), cell(s[cross], u), cell(s[all], u),
			ratio(med[local], med[native]), ratio(med[cross], med[local]), ratio(med[all], med[cross]), ratio(med[all], med[native]))
	}
	fmt.Println()
	fmt.Println("Added time: shim = local − native (the local checks and the wrappers); cross-rank = cross − local")
	fmt.Println("(shadow messages, collective agreement); races = all − cross (the access tracker); per MPI call on the")
	fmt.Println("measured path and per message or collective.")
	fmt.Println()
	fmt.Println("| benchmark | per | shim per MPI call | shim per op | cross-rank per op | races per op | all per op |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|")
	for _, name := range names {
		a, ok := accounts[name]
		if !ok || a.calls == 0 {
			continue
		}
		scale, ok := nanoseconds(units[name])
		if !ok {
			continue
		}
		med := medians(samples[name])
		shim := (med[local] - med[native]) * scale
		xr := (med[cross] - med[local]) * scale
		rc := (med[all] - med[cross]) * scale
		fmt.Printf("| %s | %s | %.0f ns | %.0f ns | %.0f ns | %.0f ns | %.0f ns |\n", name, a.op,
			shim/a.calls, shim/a.ops, xr/a.ops, rc/a.ops, (shim+xr+rc)/a.ops)
	}
	return nil
}

func (m mode) String() string {
	return [...]string{"native", "local", "cross", "all"}[m]
}

type result struct {
	name  string
	value float64
	unit  string
}

// results runs one benchmark and returns the values of its RESULT lines.
func results(argv []string) ([]result, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s%s", strings.Join(argv, " "), err, out.String(), errb.String())
	}
	var res []result
	s := bufio.NewScanner(&out)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) == 4 && f[0] == "RESULT" {
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", strings.Join(argv, " "), s.Text(), err)
			}
			res = append(res, result{f[1], v, f[3]})
		}
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("%s printed no RESULT line:\n%s%s", strings.Join(argv, " "), out.String(), errb.String())
	}
	return res, nil
}

func nanoseconds(unit string) (float64, bool) {
	switch unit {
	case "ns":
		return 1, true
	case "us":
		return 1e3, true
	case "ms":
		return 1e6, true
	}
	return 0, false
}

func medians(s *[nmodes][]float64) (m [nmodes]float64) {
	for i := range s {
		m[i] = median(s[i])
	}
	return m
}

// cell is a median with its unit and the range of the samples.
func cell(v []float64, unit string) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%s %s [%s-%s]", num(median(v)), unit, num(lo), num(hi))
}

func num(x float64) string {
	if x >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return "unknown CPU"
}
