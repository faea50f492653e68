package wire

import "github.com/mpidbg/mpidbg/checks"

// How a rank ended, when it was not by MPI_Finalize: the rank says so
// itself, before it goes, so that the report has the place.
const (
	KindCrash Kind = "crash"
	KindAbort Kind = "abort"
	KindExit  Kind = "exit"
	KindFatal Kind = "fatal"
)

// Crash says the rank received a fatal signal (SIGSEGV, SIGBUS, SIGFPE,
// SIGILL, SIGABRT) and dies of it. The shim writes it from its signal
// handler, formatted by hand (shim/crash.c): change both together.
type Crash struct {
	Rank   int    `json:"rank"`
	PID    int    `json:"pid"`
	Signal int    `json:"signal"`
	Code   int    `json:"code"`           // si_code: > 0 a fault the CPU raised, <= 0 a signal sent (abort, kill)
	Addr   uint64 `json:"addr,omitempty"` // the faulting address, for a fault
	// Stack is the faulting instruction (as a return address: the
	// report looks up offset-1, like every site) and the frames it
	// returns to, innermost first; a signal sent has no faulting
	// instruction and starts with the frame that sent it.
	Stack []checks.Site `json:"stack"`
}

// Abort says the rank calls MPI_Abort.
type Abort struct {
	Rank int         `json:"rank"`
	Code int         `json:"code"` // errorcode
	Comm string      `json:"comm"` // "MPI_COMM_WORLD", a name, or words
	Site checks.Site `json:"site"` // the call
}

// Exit says the rank exits after MPI_Init without MPI_Finalize (the
// missing-finalize finding comes with it, unless ByMPI). Neither
// Returned, ByMPI nor a Site: the shim could not tell how exit() was
// reached.
type Exit struct {
	Rank     int  `json:"rank"`
	Status   int  `json:"status"`             // exit's argument, or main's return value
	Returned bool `json:"returned,omitempty"` // main returned; Site is empty
	// ByMPI: the MPI library called exit() itself, ending the rank on a
	// fatal error (MPI_ERRORS_ARE_FATAL); no finding.
	ByMPI bool        `json:"by_mpi,omitempty"`
	Site  checks.Site `json:"site"` // the call of exit()
}

// Fatal says the rank goes on into an MPI call where it reported an
// error, while the error handler MPI calls for an error there ends the
// job (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT: MPI-4.1 §9.3). A rank that
// then ends inside that call without a word of its own was ended by that
// handler: MPICH's asks its process manager to abort, which may kill the
// rank before its exit(), and Open MPI's leaves without an exit the shim
// sees. Left says the call returned after all (MPI accepted what the
// check did not).
type Fatal struct {
	Rank    int         `json:"rank"`
	Call    string      `json:"call"`    // "MPI_Send"
	ID      string      `json:"id"`      // the error finding reported there
	Handler string      `json:"handler"` // "MPI_ERRORS_ARE_FATAL"
	Site    checks.Site `json:"site"`    // the call
	Left    bool        `json:"left,omitempty"`
}
