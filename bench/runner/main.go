// Command runner measures what mpidbg costs a running MPI program: it
// builds the overhead benchmarks in bench/programs with MPICH, runs each
// natively and under mpidbg in the same invocation, alternating the order
// every round so that drift on a shared machine hits both alike, and
// prints medians, ratios and the time added per MPI call as a Markdown
// table (the form docs/PERFORMANCE.md keeps).
//
//	go run ./bench/runner [-rounds 5] [-np 2] [-mpidbg bin/mpidbg]
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
	"sort"
	"strconv"
	"strings"
	"time"
)

// bench is one program and how to turn its result into a per-call cost.
type bench struct {
	name string
	// callsPerUnit is how many wrapped MPI calls lie on the measured path
	// per reported unit: a one-way ping-pong trip is one send and one
	// receive; a message of the rate test is one Isend and one Irecv
	// (the Waitalls are shared by 64 messages).
	callsPerUnit float64
	nsPerUnit    float64 // the unit in nanoseconds
}

var benches = []bench{
	{"pingpong", 2, 1},
	{"msgrate", 2, 1},
	{"halo3d", 0, 1000},
}

func main() {
	rounds := flag.Int("rounds", 5, "runs of each program in each mode")
	np := flag.Int("np", 2, "ranks")
	mpidbg := flag.String("mpidbg", "bin/mpidbg", "the mpidbg command")
	mpicc := flag.String("mpicc", "mpicc.mpich", "MPI C compiler")
	mpiexec := flag.String("mpiexec", "mpiexec.mpich", "MPI launcher for the native runs")
	flag.Parse()
	if err := run(*rounds, *np, *mpidbg, *mpicc, *mpiexec); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(rounds, np int, mpidbg, mpicc, mpiexec string) error {
	dir, err := os.MkdirTemp("", "mpidbg-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if _, err := os.Stat(mpidbg); err != nil {
		return fmt.Errorf("%s: %w (run make build first)", mpidbg, err)
	}
	src := filepath.Join("bench", "programs")
	for _, b := range benches {
		out, err := exec.Command(mpicc, "-O2", "-Wall", "-Wno-stringop-overflow", "-o", filepath.Join(dir, b.name), filepath.Join(src, b.name+".c")).CombinedOutput()
		if err != nil {
			return fmt.Errorf("build %s: %v\n%s", b.name, err, out)
		}
	}
	native := map[string][]float64{}
	shim := map[string][]float64{}
	units := map[string]string{}
	for r := 0; r < rounds; r++ {
		for _, b := range benches {
			prog := filepath.Join(dir, b.name)
			nativeCmd := []string{mpiexec, "-n", strconv.Itoa(np), prog}
			shimCmd := []string{mpidbg, "run", "-n", strconv.Itoa(np), "--mpiexec", mpiexec, prog}
			order := [][]string{nativeCmd, shimCmd}
			if r%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, argv := range order {
				v, unit, err := result(argv)
				if err != nil {
					return err
				}
				units[b.name] = unit
				if argv[0] == mpiexec {
					native[b.name] = append(native[b.name], v)
				} else {
					shim[b.name] = append(shim[b.name], v)
				}
			}
		}
	}
	host, _ := os.Hostname()
	fmt.Printf("%d ranks, %d rounds, %s, %s/%s, %s, %s\n\n", np, rounds, cpuModel(), runtime.GOOS, runtime.GOARCH, host, time.Now().Format("2006-01-02"))
	fmt.Println("| benchmark | native | mpidbg | ratio | added per MPI call |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, b := range benches {
		n, s := median(native[b.name]), median(shim[b.name])
		added := "-"
		if b.callsPerUnit > 0 {
			added = fmt.Sprintf("%.0f ns", (s-n)*b.nsPerUnit/b.callsPerUnit)
		}
		fmt.Printf("| %s | %.1f %s | %.1f %s | %.2fx | %s |\n", b.name, n, units[b.name], s, units[b.name], s/n, added)
	}
	return nil
}

// result runs one benchmark and returns the value of its RESULT line.
func result(argv []string) (float64, string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return 0, "", fmt.Errorf("%s: %v\n%s%s", strings.Join(argv, " "), err, out.String(), errb.String())
	}
	s := bufio.NewScanner(&out)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) == 4 && f[0] == "RESULT" {
			v, err := strconv.ParseFloat(f[2], 64)
			return v, f[3], err
		}
	}
	return 0, "", fmt.Errorf("%s printed no RESULT line:\n%s%s", strings.Join(argv, " "), out.String(), errb.String())
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
