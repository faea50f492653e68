package mpilib_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// needCC is m's compiler wrapper; a test that needs one skips without it
// unless MPIDBG_REQUIRE_MPI is set (make test sets it: both libraries are
// installed there).
func needCC(t *testing.T, m mpilib.MPI) string {
	t.Helper()
	return testenv.NeedCompiler(t, m)
}

func build(t *testing.T, cc, dir, name, src string, args ...string) string {
	t.Helper()
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command(cc, append([]string{"-o", out, c}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	return out
}

const prog = `#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
`

func TestDetectDirect(t *testing.T) {
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCC(t, m)
			exe := build(t, cc, t.TempDir(), "p", prog)
			got, err := mpilib.Detect(exe)
			if err != nil || got != m {
				t.Fatalf("Detect = %v, %v; want %v", got, err, m)
			}
		})
	}
}

// A program that links a library of its own which links MPI: the
// program's DT_NEEDED names no MPI, the library's does.
func TestDetectThroughLibrary(t *testing.T) {
	for _, m := range mpilib.All {
		t.Run(m.String(), func(t *testing.T) {
			cc := needCC(t, m)
			dir := t.TempDir()
			build(t, cc, dir, "libsolver.so", "#include <mpi.h>\nint solve(void) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }\n",
				"-shared", "-fPIC")
			exe := build(t, "gcc", dir, "app", "int solve(void);\nint main(void) { return solve(); }\n",
				"-L"+dir, "-l:libsolver.so", "-Wl,-rpath,$ORIGIN")
			got, err := mpilib.Detect(exe)
			if err != nil || got != m {
				t.Fatalf("Detect = %v, %v; want %v", got, err, m)
			}
		})
	}
}

func TestDetectNoMPI(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := mpilib.Detect(sh); !errors.Is(err, mpilib.ErrNoMPI) {
		t.Errorf("Detect(%s) = %v, want ErrNoMPI", sh, err)
	}
	script := filepath.Join(t.TempDir(), "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nexec ./app\n"), 0o755)
	if _, err := mpilib.Detect(script); err == nil || errors.Is(err, mpilib.ErrNoMPI) {
		t.Errorf("Detect(script) = %v, want a not-ELF error", err)
	}
	if _, err := mpilib.Detect(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Detect(missing file) succeeded")
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]mpilib.MPI{"mpich": mpilib.MPICH, "MPICH": mpilib.MPICH, "openmpi": mpilib.OpenMPI, "ompi": mpilib.OpenMPI} {
		if got, err := mpilib.Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := mpilib.Parse("lam"); err == nil {
		t.Error(`Parse("lam") succeeded`)
	}
}
