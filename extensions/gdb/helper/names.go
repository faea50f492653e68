package helper

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// MPI's predefined names are macros in MPICH (MPI_DOUBLE is
// ((MPI_Datatype)0x4c00080b)) and addresses of libmpi's globals in Open
// MPI (&ompi_mpi_double): gdb can evaluate neither without the program's
// macro information. The commands then send the name, and the helper
// resolves it through the registry's records of the predefined
// datatypes (which the shim makes at MPI_Init), so that a name works
// whatever the library makes of it.

// mpichNull is MPICH's null handle of each kind (mpi.h); Open MPI's are
// addresses of libmpi's globals, which gdb's symbol table names.
var mpichNull = map[string]uint64{
	"comm": 0x04000000, "group": 0x08000000, "datatype": 0x0c000000, "errhandler": 0x14000000,
	"op": 0x18000000, "info": 0x1c000000, "win": 0x20000000, "request": 0x2c000000, "session": 0x38000000,
}

// nullName is the MPI name of kind's null handle when h is it
// (MPI_DATATYPE_NULL), else "". MPI_MESSAGE_NULL is MPI_REQUEST_NULL's
// value in MPICH; a request's handle is told as the request's.
func nullName(mpi registry.MPI, kind string, h uint64) string {
	if mpi != registry.MPICH {
		return ""
	}
	if n, ok := mpichNull[kind]; ok && uint64(uint32(h)) == n {
		return "MPI_" + strings.ToUpper(kind) + "_NULL"
	}
	return ""
}

// NullHandleError: a null handle where a datatype is wanted.
type NullHandleError struct{ Name string }

func (e *NullHandleError) Error() string {
	return fmt.Sprintf("the datatype is %s, the null handle: it names no datatype", e.Name)
}

// predefinedByName is the handle of the predefined datatype an MPI name
// names ("MPI_DOUBLE", "mpi_double_precision"), or MPICH's
// MPI_DATATYPE_NULL.
func predefinedByName(snap *registry.Snapshot, name string) (uint64, error) {
	u := strings.ToUpper(strings.TrimSpace(name))
	if u == "MPI_DATATYPE_NULL" {
		if snap.MPI == registry.MPICH {
			return mpichNull["datatype"], nil
		}
		return 0, fmt.Errorf("%s: gdb cannot find libmpi's ompi_mpi_datatype_null", name)
	}
	b, ok := datatype.ParseBasic(u)
	if !ok || !strings.HasPrefix(u, "MPI_") {
		return 0, fmt.Errorf("%s: no such predefined MPI datatype", name)
	}
	found, best := false, uint64(0)
	for h, pb := range snap.Predefined {
		if pb == b && (!found || h < best) { // aliases (MPI_LONG_LONG_INT, MPI_LONG_LONG): the same type
			found, best = true, h
		}
	}
	if !found {
		return 0, fmt.Errorf("%s: the registry has no record of it (the shim records the predefined datatypes in MPI_Init)", name)
	}
	return best, nil
}

// unknownTypeError says that a handle names no datatype the registry
// knows: freed and forgotten, never made, or not a datatype at all.
func unknownTypeError(h uint64, old bool) error {
	if old {
		return fmt.Errorf("an old type of datatype %#x: freed or unknown datatype handle", h)
	}
	return fmt.Errorf("freed or unknown datatype handle %#x", h)
}
