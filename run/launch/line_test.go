package launch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLineArgs(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.WriteFile(app, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []Var{{Name: "LD_PRELOAD", Value: "/lib/shim.so"}, {Name: "MPIDBG_REPORT", Value: "unix:/tmp/x"}, {Name: "MPIDBG_CHECKS", Value: "-leak,-overlap"}}
	for _, tt := range []struct {
		f          Flavor
		args, want []string
		proc       bool // the variables but the preload go in the launcher's environment
	}{
		{Hydra, []string{"-n", "2", app}, []string{"-genv", "LD_PRELOAD", "/lib/shim.so", "-genv", "MPIDBG_REPORT", "unix:/tmp/x",
			"-genv", "MPIDBG_CHECKS", "-leak,-overlap", "-n", "2", app}, false},
		{OpenMPI, []string{"-n", "2", app}, []string{"-x", "LD_PRELOAD=/lib/shim.so", "-x", "MPIDBG_REPORT=unix:/tmp/x",
			"-x", "MPIDBG_CHECKS=-leak,-overlap", "-n", "2", app}, false},
		{Slurm, []string{"-n", "2", app}, []string{"--export=ALL,LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_CHECKS", "-n", "2", app}, true},
		{Slurm, []string{"-n", "2", "--export=NONE", app}, []string{"-n", "2", "--export=LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_CHECKS", app}, true},
		{Slurm, []string{"--export", "HOME,PATH", "-n", "2", app, "--export=x"},
			[]string{"--export=HOME,PATH,LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_CHECKS", "-n", "2", app, "--export=x"}, true},
	} {
		got, proc := LineArgs(tt.f, tt.args, env)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v %q:\n got %q\nwant %q", tt.f, tt.args, got, tt.want)
		}
		if tt.proc != (len(proc) == 2) || tt.proc && proc[1].Value != "-leak,-overlap" {
			t.Errorf("%v %q: launcher's environment %v", tt.f, tt.args, proc)
		}
	}
}

func TestLauncherOf(t *testing.T) {
	for word, want := range map[string]bool{"srun": true, "/usr/bin/mpiexec.mpich": true, "mpirun": true, "prterun": true, "./app": false, "mpiexecutor": false} {
		if _, _, ok := LauncherOf(word); ok != want {
			t.Errorf("LauncherOf(%q): %v, want %v", word, ok, want)
		}
	}
	if _, f, _ := LauncherOf("srun"); f != Slurm {
		t.Errorf("srun: flavor %v", f)
	}
	if _, f, _ := LauncherOf("mpiexec.openmpi"); f != OpenMPI {
		t.Errorf("mpiexec.openmpi: flavor %v", f)
	}
}

func TestLineProgram(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	os.WriteFile(app, []byte("#!/bin/sh\n"), 0o755)
	data := filepath.Join(dir, "input.dat")
	os.WriteFile(data, nil, 0o644)
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{"-N", "2", "-n", "8", "--mpi=pmix", app, data}, 5},
		{[]string{"-n", "2", data, app}, 3}, // an option's value that is a file, not executable
		{[]string{"-n", "2", "sh", "-c", "x"}, 2},
		{[]string{"-n", "2"}, -1},
	} {
		if got := LineProgram(tt.args); got != tt.want {
			t.Errorf("%s: got %d, want %d", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

func TestWrapEnv(t *testing.T) {
	env := []Var{{Name: "LD_PRELOAD", Value: "/lib/shim.so"}, {Name: "MPIDBG_REPORT", Value: "unix:/tmp/x"}}
	t.Setenv("SRUN_EXPORT_ENV", "")
	t.Setenv("OMPI_MCA_mca_base_env_list", "")
	got := WrapEnv(env)
	want := []Var{{Name: "MPIDBG_REPORT", Value: "unix:/tmp/x"}, {Name: "SRUN_EXPORT_ENV", Value: "ALL,LD_PRELOAD=/lib/shim.so"},
		{Name: "OMPI_MCA_mca_base_env_list", Value: "LD_PRELOAD=/lib/shim.so"}, {Name: "MPIDBG_PRELOAD", Value: "/lib/shim.so"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	t.Setenv("SRUN_EXPORT_ENV", "NONE")
	t.Setenv("OMPI_MCA_mca_base_env_list", "OMP_NUM_THREADS=2")
	got = WrapEnv(env)
	if got[1].Value != "LD_PRELOAD=/lib/shim.so" || got[2].Value != "OMP_NUM_THREADS=2;LD_PRELOAD=/lib/shim.so" {
		t.Errorf("with the user's values: got %v", got)
	}
}

// TestLineArgsSecret: the job's token is named on a launcher line at
// most, never valued.
func TestLineArgsSecret(t *testing.T) {
	env := []Var{{Name: "LD_PRELOAD", Value: "/lib/shim.so"}, {Name: "MPIDBG_TOKEN", Value: "s3cr3t", Secret: true}}
	for _, f := range []Flavor{Hydra, OpenMPI, Slurm} {
		for _, line := range [][]string{{"-n", "2", "/bin/true"}, {"-genvnone", "-n", "2", "/bin/true"}, {"--export=NONE", "-n", "2", "/bin/true"}} {
			argv, _ := LineArgs(f, line, env)
			if strings.Contains(strings.Join(argv, " "), "s3cr3t") {
				t.Errorf("%v %q: the token's value is on the line: %q", f, line, argv)
			}
		}
	}
	if argv, _ := LineArgs(Hydra, []string{"-genvnone", "-n", "2", "/bin/true"}, env); !slices.Contains(argv, "MPIDBG_TOKEN") {
		t.Errorf("Hydra -genvnone: the token is not listed: %q", argv)
	}
	if argv, _ := LineArgs(Slurm, []string{"--export=NONE", "/bin/true"}, env); !strings.Contains(argv[0], "MPIDBG_TOKEN") {
		t.Errorf("srun --export=NONE: the token is not exported: %q", argv)
	}
}
