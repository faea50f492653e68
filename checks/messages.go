package checks

// Message races and lost messages: a wildcard receive that more than one
// pending message could match, and a message no receive ever took
// (shim/xr_p2p.c).

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
	Message: detectorText,
})

var lostMessage = register(Check{
	Entry: Entry{ID: "lost-message", Category: CatLostMessage, Severity: SevWarning,
		Title: "a message was sent but never received before MPI_Finalize",
		Rule:  "MPI-4.1 §11.2.2: before MPI_Finalize a process must complete its involvement in all communication; a message nobody receives is never delivered",
		Doc: `The send completed (the message was buffered), but no receive on the
destination ever matched it. The data is lost, and with a larger message
the sender would have hung. The report names the sender's call site, the
destination, the tag and the communicator.`},
	Message: detectorText,
})
