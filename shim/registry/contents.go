package registry

import (
	"fmt"

	"github.com/mpidbg/mpidbg/datatype"
)

// Constants MPI_Type_get_contents returns inside the integer array of
// subarray and darray types. They differ between MPI libraries.
type constants struct {
	orderC, orderFortran                  int32
	distribBlock, distribCyclic, distNone int32
	dfltDarg                              int32
}

func (m MPI) constants() constants {
	if m == OpenMPI {
		return constants{0, 1, 0, 1, 2, -1}
	}
	return constants{56, 57, 121, 122, 123, -49767} // MPICH's mpi.h
}

// ContentsError reports constructor arguments that do not fit their
// combiner's layout (MPI-4.1 §5.1.13, Table 5.1).
type ContentsError struct {
	Combiner datatype.Combiner
	Msg      string
}

func (e *ContentsError) Error() string {
	return fmt.Sprintf("registry: %s contents: %s", e.Combiner, e.Msg)
}

// FromContents rebuilds a datatype from what MPI_Type_get_contents returns
// for it: integers, addresses and the old types (already rebuilt), in the
// order MPI-4.1 §5.1.13 gives per combiner. mpi says whose constants the
// integers use.
func FromContents(mpi MPI, c datatype.Combiner, ints []int32, addrs []int64, types []*datatype.Type) (*datatype.Type, error) {
	bad := func(format string, args ...any) (*datatype.Type, error) {
		return nil, &ContentsError{Combiner: c, Msg: fmt.Sprintf(format, args...)}
	}
	need := func(ni, na, nt int) bool { return len(ints) == ni && len(addrs) == na && len(types) == nt }
	i64 := func(v []int32) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	}
	// counted returns n = ints[0] after checking that it is sane.
	counted := func() (int, bool) {
		if len(ints) == 0 || ints[0] < 0 || int(ints[0]) > maxArray {
			return 0, false
		}
		return int(ints[0]), true
	}
	switch c {
	case datatype.CombinerDup:
		if !need(0, 0, 1) {
			break
		}
		return datatype.Dup(types[0])
	case datatype.CombinerContiguous:
		if !need(1, 0, 1) {
			break
		}
		return datatype.Contiguous(int64(ints[0]), types[0])
	case datatype.CombinerVector:
		if !need(3, 0, 1) {
			break
		}
		return datatype.Vector(int64(ints[0]), int64(ints[1]), int64(ints[2]), types[0])
	case datatype.CombinerHvector:
		if !need(2, 1, 1) {
			break
		}
		return datatype.Hvector(int64(ints[0]), int64(ints[1]), addrs[0], types[0])
	case datatype.CombinerIndexed:
		n, ok := counted()
		if !ok || !need(1+2*n, 0, 1) {
			break
		}
		return datatype.Indexed(i64(ints[1:1+n]), i64(ints[1+n:]), types[0])
	case datatype.CombinerHindexed:
		n, ok := counted()
		if !ok || !need(1+n, n, 1) {
			break
		}
		return datatype.Hindexed(i64(ints[1:]), addrs, types[0])
	case datatype.CombinerIndexedBlock:
		n, ok := counted()
		if !ok || !need(2+n, 0, 1) {
			break
		}
		return datatype.IndexedBlock(int64(ints[1]), i64(ints[2:]), types[0])
	case datatype.CombinerHindexedBlock:
		n, ok := counted()
		if !ok || !need(2, n, 1) {
			break
		}
		return datatype.HindexedBlock(int64(ints[1]), addrs, types[0])
	case datatype.CombinerStruct:
		n, ok := counted()
		if !ok || !need(1+n, n, n) {
			break
		}
		if mpi == OpenMPI {
			return datatype.StructPadded(i64(ints[1:]), addrs, types)
		}
		return datatype.Struct(i64(ints[1:]), addrs, types)
	case datatype.CombinerSubarray:
		n, ok := counted()
		if !ok || !need(2+3*n, 0, 1) {
			break
		}
		k := mpi.constants()
		order, ok := orderOf(ints[1+3*n], k)
		if !ok {
			return bad("order %d is neither MPI_ORDER_C (%d) nor MPI_ORDER_FORTRAN (%d)", ints[1+3*n], k.orderC, k.orderFortran)
		}
		return datatype.Subarray(i64(ints[1:1+n]), i64(ints[1+n:1+2*n]), i64(ints[1+2*n:1+3*n]), order, types[0])
	case datatype.CombinerDarray:
		if len(ints) < 3 || ints[2] < 0 || int(ints[2]) > maxArray {
			break
		}
		n := int(ints[2])
		if !need(4+4*n, 0, 1) {
			break
		}
		k := mpi.constants()
		g := ints[3:]
		distribs := make([]datatype.Distrib, n)
		for i, d := range g[n : 2*n] {
			switch d {
			case k.distribBlock:
				distribs[i] = datatype.DistribBlock
			case k.distribCyclic:
				distribs[i] = datatype.DistribCyclic
			case k.distNone:
				distribs[i] = datatype.DistribNone
			default:
				return bad("distribs[%d] %d is not a distribution constant", i, d)
			}
		}
		dargs := i64(g[2*n : 3*n])
		for i, d := range dargs {
			if d == int64(k.dfltDarg) {
				dargs[i] = datatype.DargDefault
			}
		}
		order, ok := orderOf(g[4*n], k)
		if !ok {
			return bad("order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", g[4*n])
		}
		return datatype.Darray(int64(ints[0]), int64(ints[1]), i64(g[:n]), distribs, dargs, i64(g[3*n:4*n]), order, types[0])
	case datatype.CombinerResized:
		if !need(0, 2, 1) {
			break
		}
		return datatype.Resized(addrs[0], addrs[1], types[0])
	default:
		return bad("not a constructor combiner")
	}
	return bad("%d integers, %d addresses and %d types do not fit its layout", len(ints), len(addrs), len(types))
}

func orderOf(v int32, k constants) (datatype.Order, bool) {
	switch v {
	case k.orderC:
		return datatype.OrderC, true
	case k.orderFortran:
		return datatype.OrderFortran, true
	}
	return 0, false
}
