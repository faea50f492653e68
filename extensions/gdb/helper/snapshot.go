package helper

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/pretty"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// snapshot reads the registry the request names, through gdb. Every
// request reads it afresh: the program may have run since the last one.
func (s *Server) snapshot(a args) (*registry.Snapshot, *memory, error) {
	at, err := a.registry()
	if err != nil {
		return nil, nil, err
	}
	mem := s.newMemory()
	snap, err := registry.ReadSnapshot(mem, at)
	if err != nil {
		return nil, nil, err
	}
	s.pyReg = pyRegistry{mem: mem, header: &snap.Header}
	return snap, mem, nil
}

// tornNote is added to listings read while the program was changing the
// registry: a stopped rank can be in the middle of an MPI call.
const tornNote = "(the registry was being updated when read: a record may be half-written)"

var stateNames = []struct {
	bit  registry.State
	name string
}{
	{registry.Live, "live"}, {registry.Committed, "committed"}, {registry.Freed, "freed"},
	{registry.Active, "active"}, {registry.Persistent, "persistent"}, {registry.Predef, "predefined"},
}

// states lists the state bits by name, in a fixed order.
func states(st registry.State) []string {
	out := []string{}
	for _, s := range stateNames {
		if st.Has(s.bit) {
			out = append(out, s.name)
		}
	}
	return out
}

func stateText(st registry.State) string {
	if s := states(st); len(s) > 0 {
		return strings.Join(s, ",")
	}
	return "-"
}

// pick chooses among the records of one handle the way Snapshot.Type
// does: the live one, else the most recently made.
func pick[T any](recs []T, handle uint64, key func(T) (h uint64, st registry.State, serial uint32)) (T, bool) {
	var best T
	found := false
	for _, r := range recs {
		h, st, serial := key(r)
		if h != handle {
			continue
		}
		_, bst, bserial := key(best)
		if !found || st.Has(registry.Live) && !bst.Has(registry.Live) || st.Has(registry.Live) == bst.Has(registry.Live) && serial > bserial {
			best, found = r, true
		}
	}
	return best, found
}

// typeLabel names a datatype handle for a listing: its name or
// combiner, or the handle when it cannot be built.
func typeLabel(b *registry.Builder, handle uint64) string {
	if handle == 0 {
		return "-"
	}
	t, err := b.Build(handle)
	if err != nil {
		return hex(handle)
	}
	return t.Label()
}

func commLabel(snap *registry.Snapshot, handle uint64) string {
	c, ok := pick(snap.Comms, handle, func(c registry.Comm) (uint64, registry.State, uint32) { return c.Handle, c.State, c.Serial })
	if ok && c.Name != "" {
		return c.Name
	}
	return hex(handle)
}

// table aligns rows under a header with two spaces between columns.
func table(header []string, rows [][]string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range append([][]string{header}, rows...) {
		w.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// plain renders without colour: gdb prints text as it is, and tests
// compare it with golden files.
var plain = pretty.Plain()

// datatypeOf builds the datatype with this handle from the registry.
// datatypeArg is the datatype the handle argument names: a Fortran
// INTEGER handle (fortran) through the registry's records of
// MPI_Type_c2f (MPICH's are the C handles themselves; Open MPI's index a
// table of its own).
func datatypeArg(snap *registry.Snapshot, a args) (uint64, error) {
	if a.Name != "" {
		return predefinedByName(snap, a.Name)
	}
	h, err := a.handle()
	if err != nil || !a.Fortran {
		return h, err
	}
	if c, ok := snap.Fortran[int32(h)]; ok {
		return c, nil
	}
	if snap.MPI == registry.MPICH {
		return uint64(uint32(int32(h))), nil
	}
	return 0, fmt.Errorf("Fortran datatype handle %d: no datatype the shim recorded has it", int32(h))
}

func datatypeOf(snap *registry.Snapshot, handle uint64) (*datatype.Type, *registry.Type, error) {
	if name := nullName(snap.MPI, "datatype", handle); name != "" {
		return nil, nil, &NullHandleError{Name: name}
	}
	t, err := snap.Builder().Build(handle)
	var unknown *registry.UnknownHandleError
	if errors.As(err, &unknown) {
		return nil, nil, unknownTypeError(handle, unknown.Handle != handle)
	}
	if err != nil {
		return nil, nil, err
	}
	if rec, ok := snap.Type(handle); ok {
		return t, &rec, nil
	}
	return t, nil, nil
}
