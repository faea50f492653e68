// TestCoverage: every catalogued finding id has a planted bug.

package harness

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/mpilib"
)

// TestCoverage: every finding id of the catalogue (checks.All) has a
// planted bug, and every annotation names a catalogued id.
func TestCoverage(t *testing.T) {
	progs := loadPrograms(t, progDirs)
	for _, lib := range mpilib.All {
		// every MPI library needs a planted bug per id: an annotation for
		// one library only does not cover the other, nor does a program not
		// run with it: skip[MPI], or "// mpi: N" (which libraries are new
		// enough is known only when the tests run, so such a program
		// covers none), or a Python script (it runs with the library its
		// interpreter's mpi4py links, known only then too)
		wanted := map[string][]string{} // id -> programs
		for _, p := range progs {
			if p.skipFor[lib.String()] != "" || p.mpiVersion > 0 || p.lang.script {
				continue
			}
			for l, list := range p.forMPI(lib.String()).wants {
				for _, id := range list {
					if _, ok := checks.Lookup(id); !ok {
						t.Errorf("%s:%d: want %q: no such finding id in the catalogue", p.file, l, id)
					}
					if !slices.Contains(wanted[id], p.file) {
						wanted[id] = append(wanted[id], p.file)
					}
				}
			}
		}
		all := checks.All()
		if len(all) == 0 {
			t.Fatal("the checks catalogue is empty")
		}
		for _, e := range all {
			id := e.ID
			if len(wanted[id]) == 0 {
				t.Errorf("%s: finding id %q has no planted bug in testprogs/{%s}", lib, id, strings.Join(progDirs, ","))
				continue
			}
			sort.Strings(wanted[id])
			t.Logf("%s %-24s %s", lib, id, strings.Join(wanted[id], " "))
		}
	}
}
