// Package wire is the protocol between the ranks of a job run under the
// shim and the process that launched it (`mpidbg run` or `mpidbg dap`):
// newline-delimited JSON messages over a stream connection, rank to
// launcher.
//
// A rank connects to the address in the environment variable
// MPIDBG_REPORT ("unix:/path" or "tcp:host:port") when MPI_Init returns,
// sends the job's token from MPIDBG_TOKEN as its first line when it has
// one (token.go: the launcher drops a connection without it), then one
// Hello, then a Finding for each finding as it happens (written
// before the MPI call that found it goes on, so that a rank that crashes
// afterwards has lost nothing), and a Bye from MPI_Finalize. The launcher
// takes a connection that closes without Bye as a rank that died; before
// it goes, a rank says how when it can (outcome.go: Crash, Abort, Exit,
// and Fatal when it goes on into an MPI call after an error there under
// an error handler that ends the job). A Note,
// at any time, says something about how the rank is checked rather than
// about the program (a check its machine cannot support). A rank
// never waits for the launcher to read: if the connection is lost, the
// rank writes findings to standard error instead and carries on.
//
// For the deadlock detector (blocked.go) a rank also sends Blocked when
// one MPI call has not returned for 100 ms (what it waits for, in
// MPI_COMM_WORLD ranks, and its stack) and Unblocked when that call
// returns. Before the launcher reports a deadlock it sends Confirm to the
// ranks in it, and each answers Confirmed: whether its call is still the
// same after a look of its own in which its threads had the CPU. The
// launcher's other messages to a rank, on the same connection, are Stop:
// stop yourself (SIGSTOP) for a debugger, and Refused, before it closes a
// connection it turned away (token.go). A rank ignores kinds it does not
// know, so that new commands can be added.
package wire
