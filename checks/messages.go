package checks

import "fmt"

// Message races and lost messages: a wildcard receive that more than one
// pending message could match, and a message no receive ever took
// (shim/xr_p2p.c).

// messageRace (shim/xr_p2p.c, at the receiver): a MPI_ANY_SOURCE
// receive took the message of Remote[0] while the message of Remote[1],
// with tag Val, could have matched it instead.
var messageRace = register(Check{
	Entry: Entry{ID: "message-race", Category: CatMessageRace, Severity: SevWarning,
		Title: "a wildcard receive could have matched another message: the result depends on timing",
		Rule:  "MPI-4.1 §3.5: with MPI_ANY_SOURCE (or MPI_ANY_TAG) the message matched depends on arrival order, which MPI does not fix",
		Doc: `A receive with MPI_ANY_SOURCE took the message of one rank while another
rank's message, sent concurrently (not ordered after the receive by any
chain of messages), could have matched it instead. On another run, machine
or network the other message may win, and the program computes something
else or hangs. mpidbg tracks happens-before with logical clocks carried
alongside the program's messages and names both candidate senders. Receives
whose tag or communicator tells the messages apart are not races.`},
	Message: func(m *Message) {
		if len(m.Remote) < 2 {
			m.SetText("a wildcard receive could have matched another message")
			return
		}
		took, other := m.Remote[0], m.Remote[1]
		m.SetText(fmt.Sprintf("the MPI_ANY_SOURCE receive took the message of rank %d, but the message of rank %d (tag %d) was not "+
			"sent after the receive completed and could have matched it instead; which one arrives first depends on timing",
			took.Rank, other.Rank, m.Val))
		m.RemoteText(0, "rank %d sent the message it took with %s", took.Rank, took.Call)
		m.RemoteText(1, "rank %d sent the other candidate with %s", other.Rank, other.Call)
	},
})

// lostMessage (shim/xr_p2p.c, at the destination's MPI_Finalize): the
// send of Remote[0] (the finding's place, FlagRemoteSite) of Count
// elements with tag Val on the communicator Handle, named Text when it
// has a name, was never received.
var lostMessage = register(Check{
	Entry: Entry{ID: "lost-message", Category: CatLostMessage, Severity: SevWarning,
		Title: "a message was sent but never received before MPI_Finalize",
		Rule:  "MPI-4.1 §11.2.2: before MPI_Finalize a process must complete its involvement in all communication; a message nobody receives is never delivered",
		Doc: `The send completed (the message was buffered), but no receive on the
destination ever matched it. The data is lost, and with a larger message
the sender would have hung. The report names the sender's call site, the
destination, the tag and the communicator.`},
	Message: func(m *Message) {
		sender := -1
		if len(m.Remote) > 0 {
			sender = m.Remote[0].Rank
		}
		comm := m.Text
		if comm == "" {
			comm = fmt.Sprintf("a communicator made at %#x", m.Handle)
		}
		m.SetText(fmt.Sprintf("rank %d sent a message (%d element(s), tag %d, %s) that its destination never received: no receive took it before MPI_Finalize",
			sender, m.Count, m.Val, comm))
	},
})
