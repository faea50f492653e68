package checks

import (
	"strings"

	"github.com/mpidbg/mpidbg/internal/ranklist"
)

// Deadlocks: ranks that can never continue, found by mpidbg run from
// every rank's blocked call (the wait-for graph in checks/deadlock, the
// finding in run/report). Ranks are the ranks that can never continue,
// Text the shape of the wait-for graph ("a cycle: rank 0 → rank 1 →
// rank 0"), Items its edges as text, the cycle's or knot's first.

// Deadlock and PotentialDeadlock are the findings mpidbg run writes.
var Deadlock = register(Check{
	Entry: Entry{ID: "deadlock", Category: CatDeadlock, Severity: SevError,
		Title: "the job stopped making progress: every rank waits for another",
		Rule:  "MPI-4.1 §3.5 (progress) and §6.14 (a correct program must not deadlock whether collectives synchronize or not)",
		Doc: `Every rank that has not finished is blocked in an MPI call that only another
blocked rank could complete. mpidbg shows the wait-for graph (MPI_Waitall
waits for all its requests: AND; MPI_Waitany and MPI_ANY_SOURCE receives for
any one: OR), the cycle or knot that closes it, and for each blocked rank
its call, arguments and stack. Then it ends the job (or, with
--on-error=stop, leaves the ranks stopped for a debugger). Common causes:
two ranks that both receive first, collectives in a different order, a
collective that one rank skips, a receive for a message nobody sends.`},
	Message: deadlockMessage,
})

var PotentialDeadlock = register(Check{
	Entry: Entry{ID: "potential-deadlock", Category: CatDeadlock, Severity: SevWarning,
		Title: "the job completes only because MPI buffers a standard-mode send",
		Rule:  "MPI-4.1 §3.5: a standard-mode send may block until the matching receive is posted; a program that relies on buffering is unsafe",
		Doc: `With --buffering=zero mpidbg makes every standard-mode send synchronous, as
an MPI library with no buffer space may. A program that then deadlocks
(typically: every rank sends to its neighbour before receiving) works today
only because the messages are small enough to be sent eagerly; larger
messages, another MPI or another network will hang it. Use MPI_Sendrecv,
nonblocking receives posted first, or an ordering that alternates.`},
	Message: deadlockMessage,
})

func deadlockMessage(m *Message) {
	prefix := ""
	if m.ID == "potential-deadlock" {
		prefix = "with standard-mode sends unbuffered (--buffering=zero), "
	}
	m.SetText(prefix + ranklist.Phrase(m.Ranks) + " can never continue (" + m.Text + "): " + strings.Join(m.Items, "; "))
}
