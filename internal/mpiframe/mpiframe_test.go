package mpiframe

import "testing"

func TestFind(t *testing.T) {
	user := Frame{Func: "main", File: "errors.c"}
	for _, c := range []struct {
		name  string
		stack []Frame
		want  int
	}{
		{"at the wrapper's entry", []Frame{{Func: "MPI_Send", File: "wrappers.c"}, user}, 0},
		{"in the shim's check, below the wrapper", []Frame{{Func: "mpidbg_break", File: "finding.c"}, {Func: "check_send", File: "checks.c"},
			{Func: "MPI_Send", File: "wrappers.c"}, user}, 2},
		{"PMPI_ under the shim's MPI_", []Frame{{Func: "PMPI_Send", Lib: "/usr/lib/x86_64-linux-gnu/libmpich.so.12"},
			{Func: "MPI_Send", File: "wrappers.c"}, user}, 1},
		{"the shim's Go code through cgo", []Frame{{Func: "runtime.futex", File: "/usr/local/go/src/runtime/sys_linux_amd64.s"},
			{Func: "github.com/mpidbg/mpidbg/checks.(*Engine).Send", File: "engine.go"}, {Func: "crosscall2"},
			{Func: "_cgo_1234_Cfunc_send"}, {Func: "MPI_Send", File: "wrappers.c"}, user}, 4},
		{"the program's own function of a library", []Frame{{Func: "MPI_Barrier", Lib: "/usr/lib/libmpi.so.40"},
			{Func: "solve", Lib: "/opt/app/libsolver.so"}}, 0},
		{"called from MPI itself", []Frame{{Func: "MPI_Comm_rank", Lib: "/usr/lib/libmpi.so.40"},
			{Func: "??", Lib: "/usr/lib/x86_64-linux-gnu/libopen-pal.so.40"}}, -1},
		{"no MPI call", []Frame{{Func: "poll"}, user}, -1},
		{"an MPI-looking name that is no MPI function", []Frame{{Func: "MPI_send_helper"}, user}, -1},
		{"an MPI call as the outermost frame", []Frame{{Func: "MPI_Send"}}, -1},
		{"empty", nil, -1},
		{"Fortran, mpif.h through MPICH's binding", []Frame{{Func: "MPI_Send", File: "wrappers_gen.c"},
			{Func: "mpi_send_", Lib: "/usr/lib/x86_64-linux-gnu/libmpichfort.so.12"}, {Func: "MAIN__", File: "solver.f90"}}, 1},
		{"a program's own Fortran subroutine with an MPI-like name", []Frame{{Func: "mpi_setup_", File: "setup.f90"},
			{Func: "MAIN__", File: "solver.f90"}}, -1},
		{"Fortran, mpi_f08 through Open MPI's two bindings", []Frame{{Func: "MPI_Send", File: "wrappers_gen.c"},
			{Func: "ompi_send_f", Lib: "/usr/lib/x86_64-linux-gnu/libmpi_mpifh.so.40"},
			{Func: "mpi_send_f08_", Lib: "/usr/lib/x86_64-linux-gnu/libmpi_usempif08.so.40"}, {Func: "MAIN__", File: "solver.f90"}}, 2},
	} {
		if got := Find(c.stack); got != c.want {
			t.Errorf("%s: Find = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestInternal(t *testing.T) {
	for _, c := range []struct {
		f    Frame
		want bool
	}{
		{Frame{Func: "main", File: "app.c"}, false},
		{Frame{Func: "compute.part.0", File: "app.c"}, false},
		{Frame{Func: "MPIR_Barrier_impl", Lib: "/usr/lib/libmpich.so.12"}, true},
		{Frame{Func: "ompi_coll_base_barrier_intra_basic_linear"}, true},
		{Frame{Func: "internal/runtime/syscall/linux.Syscall6"}, true},
		{Frame{Func: "main.serve", File: "/build/shim/serve.go"}, true},
		{Frame{Func: "??", Lib: "/opt/mpidbg/lib/libmpidbg-openmpi.so"}, true},
		{Frame{Func: "ucp_worker_progress", Lib: "/usr/lib/libucp.so.0"}, true},
		{Frame{Func: "start_thread", Lib: "/lib/x86_64-linux-gnu/libc.so.6"}, false},
		{Frame{Func: "x_cgo_thread_start"}, true},
		{Frame{Func: "mpi_send_", Lib: "/usr/lib/x86_64-linux-gnu/libmpichfort.so.12"}, true},
		{Frame{Func: "??", Lib: "libmpi_usempif08-gfortran.so.40"}, true},
		{Frame{Func: "mpi_helper_", File: "app.f90"}, false},
	} {
		if got := Internal(c.f); got != c.want {
			t.Errorf("Internal(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
}

func TestIsCall(t *testing.T) {
	for name, want := range map[string][2]bool{
		"MPI_Send": {true, false}, "PMPI_Send": {true, false}, "mpi_send_": {true, true}, "pmpi_send_": {true, true},
		"mpi_send_f08_": {true, true}, "mpi_send_f08ts_": {true, true}, "mpi_type_create_subarray_": {true, true},
		"mpi_send": {false, false}, "MPI_send_helper": {false, false}, "main": {false, false},
	} {
		if got := [2]bool{IsCall(name), IsFortran(name)}; got != want {
			t.Errorf("IsCall, IsFortran(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestArgsFrame(t *testing.T) {
	user := Frame{Func: "MAIN__", File: "solver.f90"}
	fortran := []Frame{{Func: "mpidbg_break"}, {Func: "MPI_Isend", File: "wrappers_gen.c"},
		{Func: "ompi_isend_f", Lib: "libmpi_mpifh.so.40"}, {Func: "mpi_isend_f08_", Lib: "libmpi_usempif08.so.40"}, user}
	if i := Find(fortran); i != 3 || ArgsFrame(fortran, i) != 1 {
		t.Errorf("Fortran: Find %d, ArgsFrame %d; want 3, 1", i, ArgsFrame(fortran, i))
	}
	c := []Frame{{Func: "MPI_Isend", File: "wrappers_gen.c"}, {Func: "main", File: "app.c"}}
	if i := Find(c); ArgsFrame(c, i) != i {
		t.Errorf("C: ArgsFrame %d, want %d", ArgsFrame(c, i), i)
	}
	if got := ArgsFrame(fortran[3:], 0); got != 0 {
		t.Errorf("a Fortran entry point with no frame inside it: ArgsFrame %d, want 0", got)
	}
}
