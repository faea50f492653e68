package shimtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// TestRegistryCore dumps a rank stopped at a finding with gdb's gcore and
// decodes the registry from the core file alone: the finding and the
// datatypes survive the process, as they must for post-mortem debugging.
func TestRegistryCore(t *testing.T) {
	testenv.NeedTool(t, "", "gcore", "apt-get install gdb")
	forEachMPI(t, testRegistryCore)
}

func testRegistryCore(t *testing.T, l *lib) {
	stopped(t, l, "registry", func(pid int) {
		dir := t.TempDir()
		prefix := filepath.Join(dir, "core")
		if out, err := exec.Command("gcore", "-o", prefix, strconv.Itoa(pid)).CombinedOutput(); err != nil {
			t.Fatalf("gcore: %v\n%s", err, out)
		}
		path := prefix + "." + strconv.Itoa(pid)
		if _, err := os.Stat(path); err != nil {
			t.Fatal(err)
		}
		core, err := OpenCore(path)
		if err != nil {
			t.Fatal(err)
		}
		defer core.Close()
		addr, err := Locate(core.Mappings())
		if err != nil {
			t.Fatal(err)
		}
		s, err := registry.ReadSnapshot(core, addr)
		if err != nil {
			t.Fatal(err)
		}
		if s.PID != int32(pid) || s.WorldSize != 2 || s.MPI != l.mpi || s.HandleSize != l.handle {
			t.Errorf("header: %+v", s.Header)
		}
		if len(s.Findings) != 1 || s.Findings[0].ID != "type-not-committed" {
			t.Errorf("findings: %+v", s.Findings)
		}
		b := s.Builder()
		_, path52, _ := sType(l)
		found := false
		for _, ty := range s.Types {
			if ty.Name != "s_type" {
				continue
			}
			found = true
			m, err := b.Build(ty.Handle)
			if err != nil {
				t.Fatal(err)
			}
			if el, _ := m.ElementAtOffset(1, 52); el.Path.String() != path52 {
				t.Errorf("byte 52 of s_type: got %s, want %s", el.Path, path52)
			}
		}
		if !found {
			t.Error("s_type is not in the core's registry")
		}
	})
}
