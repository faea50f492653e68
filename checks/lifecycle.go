package checks

import "fmt"

// The rank's life as an MPI process: an exit without MPI_Finalize
// (shim/ending.c, in the exit hook).

// missingFinalize: Arg is "exit" (the program called exit(), Site is the
// call) or "return" (main returned; no site); Val is the exit status.
var missingFinalize = register(Check{
	Entry: Entry{ID: "missing-finalize", Category: CatProcessLifecycle, Severity: SevError,
		Title: "a rank exited after MPI_Init without calling MPI_Finalize",
		Rule:  "MPI-4.1 §11.2.2: if the World Model has been initialized in an MPI process, it must be finalized exactly once by invoking MPI_FINALIZE during the lifetime of that process",
		Doc: `Every process that called MPI_Init or MPI_Init_thread must call MPI_Finalize
before it exits, unless it called MPI_Abort. A process that returns from main
or calls exit() without it leaves the job in an undefined state: MPI
libraries report the rank as failed, kill the others, or hang in the ranks
that did finalize. Call MPI_Finalize on every path out of the program,
error paths included (or MPI_Abort when the job cannot go on).
A program that never calls MPI_Init is not an MPI process of the World
Model and is never reported.`},
	Message: func(m *Message) {
		if m.Arg == "return" {
			m.SetText(fmt.Sprintf("main returned (status %d) without calling MPI_Finalize after MPI_Init", m.Val))
			return
		}
		m.SetText(fmt.Sprintf("exit(%d) was called without calling MPI_Finalize after MPI_Init", m.Val))
	},
})
