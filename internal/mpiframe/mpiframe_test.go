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
	} {
		if got := Internal(c.f); got != c.want {
			t.Errorf("Internal(%+v) = %v, want %v", c.f, got, c.want)
		}
	}
}
