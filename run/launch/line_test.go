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
	env := []Var{{"LD_PRELOAD", "/lib/shim.so"}, {"MPIDBG_REPORT", "unix:/tmp/x"}, {"MPIDBG_CHECKS", "-leak,-overlap"}}
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
	env := []Var{{"LD_PRELOAD", "/lib/shim.so"}, {"MPIDBG_REPORT", "unix:/tmp/x"}}
	t.Setenv("SRUN_EXPORT_ENV", "")
	t.Setenv("OMPI_MCA_mca_base_env_list", "")
	got := WrapEnv(env)
	want := []Var{{"MPIDBG_REPORT", "unix:/tmp/x"}, {"SRUN_EXPORT_ENV", "ALL,LD_PRELOAD=/lib/shim.so"},
		{"OMPI_MCA_mca_base_env_list", "LD_PRELOAD=/lib/shim.so"}, {"MPIDBG_PRELOAD", "/lib/shim.so"}}
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
