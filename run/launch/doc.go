// Package launch runs an MPI job under mpidbg: it listens for the ranks'
// report connections (package wire), starts mpiexec with the shim
// preloaded into the ranks, forwards signals to it, passes the program's
// standard streams through, and feeds everything the ranks send, and how
// mpiexec says they ended (read from a copy of its output), into a
// report.Collector.
//
// The ranks reach the launcher through a Unix socket in a private
// directory (mode 0700) by default, or through TCP on an address the
// caller gives, for jobs that span machines. The environment of the ranks
// is set with mpiexec's own options (-genv NAME VALUE for MPICH's Hydra,
// -x NAME=VALUE for Open MPI), never in mpiexec's environment: LD_PRELOAD
// must reach the ranks, not the launcher and its proxies.
package launch
