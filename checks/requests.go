package checks

// The request lifecycle: requests started, completed or lost in ways MPI
// forbids (shim/requests*.c, shim/leaks.c). Arg names the request
// argument.

var requestUnknown = register(Check{
	Entry: Entry{ID: "request-unknown", Category: CatRequestLifecycle, Severity: SevError,
		Title: "a request handle that no operation made, or that was already completed",
		Rule:  "MPI-4.1 §3.7.3: completion calls take requests returned by nonblocking or persistent calls",
		Doc: `Completing a nonblocking request sets the variable to MPI_REQUEST_NULL; a
copy of the old value kept elsewhere is dead. Waiting on it, or on an
uninitialised request variable, is erroneous (MPI_REQUEST_NULL itself is
allowed and returns at once).`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		switch m.Variant {
		case VariantInactive:
			m.Printf("%s was completed or freed already", m.Arg)
		case VariantNotPersistent:
			m.Printf("%s is not a persistent request: only those can be started", m.Arg)
		default:
			m.Printf("%s is not a request any MPI call returned", m.Arg)
		}
	},
})

var requestActiveStart = register(Check{
	Entry: Entry{ID: "request-active-start", Category: CatRequestLifecycle, Severity: SevError,
		Title: "MPI_Start on a persistent request that is still active",
		Rule:  "MPI-4.1 §3.9: it is erroneous to call MPI_START for a request that is already active",
		Doc: `A persistent request must be completed (MPI_Wait, MPI_Test returning true)
before it is started again. A request listed twice in one MPI_Startall is
started twice, the second time while the first start made it active;
both MPI libraries accept that call and then wait for ever on the second
operation, so mpidbg returns MPI_ERR_REQUEST from it through the error
handler without calling MPI (MPI-4.1 §9.3), and no request of the array
starts.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		if m.Variant == VariantTwice {
			m.Printf("%s is array_of_requests[%d] again: MPI_Startall would start the request twice, the second time while it is active", m.Arg, m.Val)
			return
		}
		m.MarkRelated("request")
		m.Printf("%s is still active: complete it before starting it again", m.Arg)
	},
})

// requestOverwritten: RelatedCall is the call that started the lost
// request.
var requestOverwritten = register(Check{
	Entry: Entry{ID: "request-overwritten", Category: CatRequestLifecycle, Severity: SevError,
		Title: "a new operation's request overwrites a request that is still active",
		Rule:  "MPI-4.1 §3.7.3: every nonblocking operation must be completed",
		Doc: `The request variable still held an active request when it was passed to a
new nonblocking call: the old operation can no longer be completed, its
buffer stays in use by MPI, and its request leaks.`},
	Message: func(m *Message) {
		m.Mark("request")
		m.MarkRelated("request")
		m.Printf("the request variable still held the active request of an earlier %s, which then was never completed", m.RelatedCall)
	},
})

// requestNeverCompleted: Val operations started at the finding's place.
var requestNeverCompleted = register(Check{
	Entry: Entry{ID: "request-never-completed", Category: CatRequestLifecycle, Severity: SevError,
		Title: "a nonblocking operation was never completed before MPI_Finalize",
		Rule:  "MPI-4.1 §11.2.2: all pending communication must be completed before MPI_FINALIZE",
		Doc: `An operation started with MPI_Isend, MPI_Irecv, MPI_Start, a nonblocking
collective, ... had no successful MPI_Wait/MPI_Test (or MPI_Request_free).
Until completion the buffer belongs to MPI, and MPI_Finalize may hang or
lose the message.`},
	Message: func(m *Message) {
		m.Mark("request")
		m.Printf("%s here never completed before MPI_Finalize", plural(m.Val, "operation started", "operations started"))
	},
})
