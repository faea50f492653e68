// Package shimtest tests the shim (lib/libmpidbg.so and
// lib/libmpidbg-openmpi.so) from the outside: for MPICH and for Open MPI
// in turn, it takes the library make build built (failing when it is
// older than its sources), runs the C programs of shim/testdata under
// the library's mpiexec with the shim preloaded and the launcher side of
// the wire protocol listening, and checks what the ranks report. It also
// checks the registry layout the C compiler produces against package
// registry, and the shim's finding ids against the catalogue. The package holds only tests.
package shimtest
