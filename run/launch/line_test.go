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
		// an MPMD line: -x holds for its own app context only
		{OpenMPI, []string{"-n", "1", app, ":", "-n", "3", app}, []string{"-x", "LD_PRELOAD=/lib/shim.so", "-x", "MPIDBG_REPORT=unix:/tmp/x",
			"-x", "MPIDBG_CHECKS=-leak,-overlap", "-n", "1", app, ":", "-x", "LD_PRELOAD=/lib/shim.so", "-x", "MPIDBG_REPORT=unix:/tmp/x",
			"-x", "MPIDBG_CHECKS=-leak,-overlap", "-n", "3", app}, false},
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

func TestLineProgramHydraOpenMPI(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	os.WriteFile(app, []byte("#!/bin/sh\n"), 0o755)
	if got := LineProgram(Hydra, []string{"-launcher", "ssh", "-launcher-exec", "/usr/bin/ssh", "-genv", "A", "sh", "-n", "2", app}); got != 9 {
		t.Errorf("Hydra: got %d, want 9", got)
	}
	if got := LineProgram(OpenMPI, []string{"--mca", "plm_rsh_agent", "ssh", "-x", "sh", "-n", "2", app}); got != 7 {
		t.Errorf("Open MPI: got %d, want 7", got)
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
		{[]string{"-J", "test", "-n", "2", "--export=NONE", app}, 5}, // the job name is not /usr/bin/test
	} {
		if got := LineProgram(Slurm, tt.args); got != tt.want {
			t.Errorf("%s: got %d, want %d", strings.Join(tt.args, " "), got, tt.want)
		}
	}
}

func TestWrapEnv(t *testing.T) {
	env := []Var{{Name: "LD_PRELOAD", Value: "/lib/shim.so"}, {Name: "MPIDBG_REPORT", Value: "unix:/tmp/x"}, {Name: "MPIDBG_TOKEN", Value: "s", Secret: true}}
	for _, tt := range []struct {
		srun, slurm, ompi      string
		wantSrun, wantOMPIList string
	}{
		{"", "", "", "ALL,LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_TOKEN", "LD_PRELOAD=/lib/shim.so;MPIDBG_REPORT;MPIDBG_TOKEN"},
		{"NONE", "", "OMP_NUM_THREADS=2", "LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_TOKEN",
			"OMP_NUM_THREADS=2;LD_PRELOAD=/lib/shim.so;MPIDBG_REPORT;MPIDBG_TOKEN"},
		{"", "NONE", "", "LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_TOKEN", "LD_PRELOAD=/lib/shim.so;MPIDBG_REPORT;MPIDBG_TOKEN"},
		{"HOME,PATH", "NONE", "", "HOME,PATH,LD_PRELOAD=/lib/shim.so,MPIDBG_REPORT,MPIDBG_TOKEN", "LD_PRELOAD=/lib/shim.so;MPIDBG_REPORT;MPIDBG_TOKEN"},
	} {
		t.Setenv("SRUN_EXPORT_ENV", tt.srun)
		t.Setenv("SLURM_EXPORT_ENV", tt.slurm)
		t.Setenv("OMPI_MCA_mca_base_env_list", tt.ompi)
		got := map[string]string{}
		for _, v := range WrapEnv(env) {
			got[v.Name] = v.Value
		}
		if got["SRUN_EXPORT_ENV"] != tt.wantSrun || got["OMPI_MCA_mca_base_env_list"] != tt.wantOMPIList ||
			got["MPIDBG_PRELOAD"] != "/lib/shim.so" || got["MPIDBG_REPORT"] != "unix:/tmp/x" || got["LD_PRELOAD"] != "" {
			t.Errorf("SRUN_EXPORT_ENV=%q SLURM_EXPORT_ENV=%q OMPI list %q: got %v", tt.srun, tt.slurm, tt.ompi, got)
		}
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

// TestHydraEnvList: a secret's name joins the line's -genvlist or a
// section's -envlist, and -genvnone/-envnone become lists; the program's
// own arguments are left alone.
func TestHydraEnvList(t *testing.T) {
	for _, tt := range []struct{ line, want []string }{
		{[]string{"-genvnone", "-n", "2", "/bin/true", "-genvnone"}, []string{"-genvlist", "T", "-n", "2", "/bin/true", "-genvnone"}},
		{[]string{"-n", "2", "-envnone", "/bin/true"}, []string{"-n", "2", "-envlist", "T", "/bin/true"}},
		{[]string{"-genvlist", "A,B", "-n", "2", "/bin/true"}, []string{"-genvlist", "A,B,T", "-n", "2", "/bin/true"}},
		{[]string{"-n", "2", "/bin/true"}, []string{"-n", "2", "/bin/true"}},
	} {
		if got := hydraEnvList(slices.Clone(tt.line), []string{"T"}); !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestLineArgsOpenMPIEnvList: with mca_base_env_list in the environment,
// Open MPI 4 refuses -x: the variables go into that list instead.
func TestLineArgsOpenMPIEnvList(t *testing.T) {
	t.Setenv("OMPI_MCA_mca_base_env_list", "OMP_NUM_THREADS=2")
	env := []Var{{Name: "LD_PRELOAD", Value: "/lib/shim.so"}, {Name: "MPIDBG_TOKEN", Value: "s3cr3t", Secret: true}}
	argv, proc := LineArgs(OpenMPI, []string{"-n", "2", "/bin/true"}, env)
	if slices.Contains(argv, "-x") || len(proc) != 1 || proc[0].Value != "OMP_NUM_THREADS=2;LD_PRELOAD=/lib/shim.so;MPIDBG_TOKEN" {
		t.Errorf("got %q and %v", argv, proc)
	}
}

// TestOwnPreload: a preload on the launcher's own line keeps the shim
// first, and mpidbg adds none of its own beside it.
func TestOwnPreload(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	if err := os.WriteFile(app, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []Var{{Name: "LD_PRELOAD", Value: "/lib/shim.so:/lib/old.so"}, {Name: "MPIDBG_REPORT", Value: "unix:/tmp/x"}}
	for _, tt := range []struct {
		f          Flavor
		args, want []string
	}{
		{Hydra, []string{"-genv", "LD_PRELOAD", "libm.so.6", "-n", "2", app, "-genv", "LD_PRELOAD", "arg"},
			[]string{"-genv", "MPIDBG_REPORT", "unix:/tmp/x", "-genv", "LD_PRELOAD", "/lib/shim.so:libm.so.6", "-n", "2", app, "-genv", "LD_PRELOAD", "arg"}},
		{OpenMPI, []string{"-x", "LD_PRELOAD=libm.so.6", "-n", "2", app},
			[]string{"-x", "MPIDBG_REPORT=unix:/tmp/x", "-x", "LD_PRELOAD=/lib/shim.so:libm.so.6", "-n", "2", app}},
		{Hydra, []string{"-n", "2", app}, []string{"-genv", "LD_PRELOAD", "/lib/shim.so:/lib/old.so", "-genv", "MPIDBG_REPORT", "unix:/tmp/x", "-n", "2", app}},
	} {
		if got, _ := LineArgs(tt.f, tt.args, env); !slices.Equal(got, tt.want) {
			t.Errorf("%v %q:\n got %q\nwant %q", tt.f, tt.args, got, tt.want)
		}
	}
	got := Args(OpenMPI, 2, []string{"-x", "LD_PRELOAD=libm.so.6"}, env, app, nil)
	want := []string{"-x", "LD_PRELOAD=/lib/shim.so:libm.so.6", "-x", "MPIDBG_REPORT=unix:/tmp/x", "-n", "2", app}
	if !slices.Equal(got, want) {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
}
