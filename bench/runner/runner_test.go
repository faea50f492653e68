package main

import (
	"strings"
	"testing"
)

func TestParseResults(t *testing.T) {
	out := "RESULT halo3d_32_iteration 53.0 us\nmpidbg: no findings (2 ranks)\nRESULT x 1 ns extra\nRESULT collbench_barrier 1729.9 ns\n"
	res, err := parseResults(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []result{{"halo3d_32_iteration", 53, "us"}, {"collbench_barrier", 1729.9, "ns"}}
	if len(res) != len(want) {
		t.Fatalf("got %v, want %v", res, want)
	}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("result %d: got %v, want %v", i, res[i], want[i])
		}
	}
	if _, err := parseResults(strings.NewReader("RESULT a b ns\n")); err == nil {
		t.Error("a value that is no number: no error")
	}
}

// explainOutput is the start and end of `mpidbg explain`.
const explainOutput = `argument
  in-place-misuse           error    MPI_IN_PLACE is used where the call does not allow it
  null-buffer               error    a NULL buffer is given for data that is not empty

datatype-lifecycle
  type-freed                error    a datatype is used after MPI_Type_free

process-lifecycle
  missing-finalize          error    a rank exited after MPI_Init without calling MPI_Finalize

Run 'mpidbg explain ID' for one finding's rule and documentation.
`

func TestParseCategories(t *testing.T) {
	got := parseCategories(explainOutput)
	want := []string{"argument", "datatype-lifecycle", "process-lifecycle"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseLscpu(t *testing.T) {
	out := `Architecture:                            x86_64
CPU(s):                                  2
On-line CPU(s) list:                     0,1
Model name:                              AMD EPYC
Thread(s) per core:                      1
Core(s) per socket:                      2
Socket(s):                               1
Hypervisor vendor:                       KVM
NUMA node0 CPU(s):                       0,1
`
	want := "AMD EPYC, 2 CPUs (1 socket × 2 cores × 1 threads), KVM guest"
	if got := parseLscpu(out); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMPIVersion(t *testing.T) {
	for _, c := range []struct{ out, want string }{
		{"mpiexec.openmpi (OpenRTE) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n", "Open MPI 4.1.4"},
		{"HYDRA build details:\n    Version:                                 4.0.2\n    Release Date:                            Thu Apr  7 12:34:45 CDT 2022\n" +
			"    Configure options:                       '--with-hwloc-prefix=/usr' '--with-device=ch4:ucx' 'FFLAGS=-O2'\n", "MPICH 4.0.2 (ch4:ucx)"},
		{"", "unknown"},
	} {
		if got := mpiVersion(c.out); got != c.want {
			t.Errorf("mpiVersion(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func TestModes(t *testing.T) {
	cats := []string{"argument", "leak"}
	if got := len(modesOf(job{prog: "halo3d", np: 4}, cats)); got != 4 {
		t.Errorf("a job without breakdown has %d modes, want 4", got)
	}
	ms := modesOf(job{prog: "pingpong", np: 2, breakdown: true}, cats)
	if len(ms) != 6 || ms[5].checks != "-leak" {
		t.Errorf("breakdown modes: %+v", ms)
	}
	a := argv(job{prog: "halo3d", args: []string{"32", "150"}, np: 4}, ms[4], "/d", "bin/mpidbg", "mpiexec.mpich")
	if got := strings.Join(a, " "); got != "bin/mpidbg run -n 4 --mpiexec mpiexec.mpich --checks -argument /d/halo3d 32 150" {
		t.Errorf("argv: %s", got)
	}
	if got := strings.Join(argv(job{prog: "pingpong", np: 2}, native, "/d", "bin/mpidbg", "mpiexec.mpich"), " "); got != "mpiexec.mpich -n 2 /d/pingpong" {
		t.Errorf("native argv: %s", got)
	}
	if got := strings.Join(argv(job{prog: "pingpong", np: 2}, all, "/d", "bin/mpidbg", "mpiexec.mpich"), " "); got != "bin/mpidbg run -n 2 --mpiexec mpiexec.mpich /d/pingpong" {
		t.Errorf("all argv: %s", got)
	}
}

// TestBreakdownTable checks the table's shape and arithmetic on made-up
// samples: a column per category, the ratio to native and the cost.
func TestBreakdownTable(t *testing.T) {
	s := &series{key: "pingpong_8B_one_way, 2 ranks", name: "pingpong_8B_one_way", unit: "ns", np: 2, breakdown: true,
		samples: map[string][]float64{
			"native":    {100, 110, 90},
			"all":       {400, 390, 420},
			"-argument": {300},
			// no "-leak" samples: shown as "-"
		}}
	got := breakdownMarkdown([]*series{s}, []string{"argument", "leak"})
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header, separator and one row:\n%s", got)
	}
	if lines[0] != "| benchmark | native | all | without argument | without leak |" || lines[1] != "|---|---:|---:|---:|---:|" {
		t.Errorf("header:\n%s", got)
	}
	want := "| pingpong_8B_one_way, 2 ranks | 100 ns | 4.00x, 400 ns [390-420] | 3.00x / 100 ns | - |"
	if lines[2] != want {
		t.Errorf("row:\n got %s\nwant %s", lines[2], want)
	}
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{{12.4, "12 ns"}, {-40, "-40 ns"}, {2101, "2.10 µs"}, {15300, "15.3 µs"}, {2.5e6, "2.50 ms"}} {
		if got := duration(c.ns); got != c.want {
			t.Errorf("duration(%v) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestAccounts(t *testing.T) {
	for _, j := range jobs {
		if j.np < 2 {
			t.Errorf("%s: %d ranks; the programs need two", j.prog, j.np)
		}
	}
	for _, name := range []string{"pingpong_8B_one_way", "msgrate_stack_8B_per_message", "halo3d_16_iteration", "collbench_alltoallv_16B_per_peer", "rma_fence_round"} {
		if _, ok := accountOf(name); !ok {
			t.Errorf("%s has no account", name)
		}
	}
}
