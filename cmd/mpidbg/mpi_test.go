package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// needCompiler skips (or, under make test, fails) without m's compiler
// wrapper and mpiexec. It makes this machine's Open MPI settings
// (internal/testenv) for the jobs the test runs.
func needCompiler(t *testing.T, m mpilib.MPI) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds MPI programs")
	}
	return testenv.NeedMPI(t, m).CC
}

// needShim is lib/ of this tree's shim for m, or skips (fails under
// MPIDBG_REQUIRE_SHIM) when it is not built; it fails when it is stale.
func needShim(t *testing.T, m mpilib.MPI) string {
	t.Helper()
	return testenv.NeedShim(t, m)
}

func buildWith(t *testing.T, cc, dir, name, src string, args ...string) string {
	t.Helper()
	c, exe := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(cc, append([]string{"-g", "-O0", "-o", exe, c}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	return exe
}

// TestChooseMPI: the library comes from --mpi, the program, the shim, or
// is MPICH; a --mpi or a shim that contradicts the program is refused.
func TestChooseMPI(t *testing.T) {
	t.Setenv(envvar.Shim, "")
	dir := t.TempDir()
	progs := map[mpilib.MPI]string{}
	for _, m := range mpilib.All {
		progs[m] = buildWith(t, needCompiler(t, m), dir, "p_"+m.String(), uncommittedC)
	}
	script := filepath.Join(dir, "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec true\n"), 0o755)
	shims := map[mpilib.MPI]string{}
	for _, m := range mpilib.All {
		// a library linked to m stands in for its shim: chooseMPI reads
		// only its dependencies
		shims[m] = buildWith(t, mpilib.Compiler(m), dir, "libshim_"+m.String()+".so", "#include <mpi.h>\nint f(void) { return MPI_Init(0, 0); }\n", "-shared", "-fPIC")
	}
	for _, tt := range []struct {
		name, program, mpi, shim string
		want                     mpilib.MPI
		err                      string
	}{
		{"mpich program", progs[mpilib.MPICH], "", "", mpilib.MPICH, ""},
		{"openmpi program", progs[mpilib.OpenMPI], "", "", mpilib.OpenMPI, ""},
		{"flag agrees", progs[mpilib.OpenMPI], "openmpi", "", mpilib.OpenMPI, ""},
		{"flag contradicts", progs[mpilib.OpenMPI], "mpich", "", 0, "links openmpi"},
		{"bad flag", progs[mpilib.MPICH], "lam", "", 0, "unknown MPI"},
		{"script, flag", script, "openmpi", "", mpilib.OpenMPI, ""},
		{"script, shim", script, "", shims[mpilib.OpenMPI], mpilib.OpenMPI, ""},
		{"script alone", script, "", "", mpilib.MPICH, ""},
		{"shim contradicts", progs[mpilib.MPICH], "", shims[mpilib.OpenMPI], 0, "is built for openmpi"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chooseMPI(tt.program, tt.mpi, tt.shim)
			switch {
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("got %v, %v; want an error saying %q", got, err, tt.err)
			case tt.err == "" && (err != nil || got != tt.want):
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestLauncherMismatch: a launcher whose name says it is the other
// library's is refused (its ranks would each start alone); one whose name
// says nothing (a site's mpiexec, srun), or a program whose MPI is not
// known, is taken on trust.
func TestLauncherMismatch(t *testing.T) {
	dir := t.TempDir()
	orterun := filepath.Join(dir, "orterun")
	if err := os.WriteFile(orterun, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	alt := filepath.Join(dir, "mpiexec") // an alternatives link to Open MPI's
	if err := os.Symlink(orterun, alt); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		m    mpilib.MPI
		want string
	}{
		{"/usr/bin/mpiexec.openmpi", mpilib.MPICH, "mpiexec.openmpi is Open MPI's launcher and the program is built with MPICH: every rank would start alone, as rank 0 of a job of one; use MPICH's (mpiexec.mpich)"},
		{"/usr/bin/mpiexec.hydra", mpilib.OpenMPI, "mpiexec.hydra is MPICH's launcher and the program is built with Open MPI: every rank would start alone, as rank 0 of a job of one; use Open MPI's (mpiexec.openmpi)"},
		{alt, mpilib.MPICH, "mpiexec is Open MPI's launcher"},
		{alt, mpilib.OpenMPI, ""},
		{"/usr/bin/mpiexec.mpich", mpilib.MPICH, ""},
		{"/opt/site/bin/mpiexec", mpilib.OpenMPI, ""},
		{"/usr/bin/srun", mpilib.MPICH, ""},
		{"/usr/bin/prterun", mpilib.MPICH, ""}, // PRRTE starts any PMIx program
		{"/usr/bin/mpiexec.openmpi", 0, ""},    // a script: its MPI is not known
	} {
		got := launcherMismatch(tt.path, tt.m)
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("launcherMismatch(%s, %v) = %q, want %q", tt.path, tt.m, got, tt.want)
		}
	}
}

// TestRunPicksMPI runs a built mpidbg, laid out as make install does
// (bin/mpidbg beside lib/), on a program of each library with no --mpi,
// --shim or --mpiexec: the right shim and mpiexec must be picked and the
// planted bug found.
func TestRunPicksMPI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs MPI")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "lib"), filepath.Join(tree, "lib")); err != nil {
		t.Fatal(err)
	}
	bin := buildMpidbg(t, tree)
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCompiler(t, m)
			needShim(t, m)
			exe := buildWith(t, cc, t.TempDir(), "uncommitted", uncommittedC)
			cmd := exec.Command(bin, "run", "-n", "2", exe)
			cmd.Env = append(os.Environ(), envvar.Shim+"=") // the shim beside bin/mpidbg, picked by the program's MPI
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "type-not-committed") {
				t.Fatalf("exit %d (%v), want 1 with type-not-committed:\n%s", code, err, out)
			}
		})
	}
}
