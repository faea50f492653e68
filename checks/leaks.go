package checks

// Leaks: objects made and never freed before MPI_Finalize, counted per
// place that made them (shim/leaks.c). Val is how many the place made and
// never freed.

// leakType: Handle is one of the datatypes.
var leakType = register(Check{
	Entry: Entry{ID: "leak-type", Category: CatLeak, Severity: SevWarning,
		Title: "a derived datatype was never freed",
		Rule:  "MPI-4.1 §5.1.9: derived datatypes are freed with MPI_TYPE_FREE",
		Doc:   `Not an error at MPI_Finalize, but in long runs types created in a loop exhaust memory.`},
	Message: func(m *Message) {
		m.Mark(withRole(m.Call, "newtype"))
		one := "it"
		if m.Val > 1 {
			one = "one of them"
		}
		m.Printf("%s here never freed (%s: %s)", plural(m.Val, "datatype made", "datatypes made"), one, m.Type(m.Handle))
	},
})

var leakComm = register(Check{
	Entry: Entry{ID: "leak-comm", Category: CatLeak, Severity: SevWarning,
		Title: "a communicator was never freed",
		Rule:  "MPI-4.1 §7.4.3: communicators are freed with MPI_COMM_FREE",
		Doc:   `Communicators hold context ids, of which MPI libraries have a few thousand; a communicator made per iteration runs out.`},
	Message: func(m *Message) {
		m.Mark(withRole(m.Call, "newcomm"))
		m.Printf("%s here never freed", plural(m.Val, "communicator made", "communicators made"))
	},
})

var leakGroup = register(Check{
	Entry: Entry{ID: "leak-group", Category: CatLeak, Severity: SevWarning,
		Title: "a group was never freed",
		Rule:  "MPI-4.1 §7.3.3: groups are freed with MPI_GROUP_FREE",
		Doc:   `MPI_Comm_group and the group constructors return new groups that must be freed.`},
	Message: func(m *Message) {
		m.Mark(withRole(m.Call, "newgroup"))
		m.Printf("%s here never freed", plural(m.Val, "group made", "groups made"))
	},
})

var leakOp = register(Check{
	Entry: Entry{ID: "leak-op", Category: CatLeak, Severity: SevWarning,
		Title: "a user-defined reduction operation was never freed",
		Rule:  "MPI-4.1 §6.9.5: user operations are freed with MPI_OP_FREE",
		Doc:   `Not an error at MPI_Finalize; listed so that long-running codes can find it.`},
	Message: func(m *Message) {
		m.Mark("op")
		m.Printf("%s here never freed", plural(m.Val, "operation made", "operations made"))
	},
})

var leakWin = register(Check{
	Entry: Entry{ID: "leak-win", Category: CatLeak, Severity: SevWarning,
		Title: "an RMA window was never freed",
		Rule:  "MPI-4.1 §12.2.5: windows are freed with MPI_WIN_FREE, collectively",
		Doc:   `A window keeps its memory registered with the network and its communicator alive.`},
	Message: func(m *Message) {
		m.Mark("win")
		m.Printf("%s here never freed", plural(m.Val, "window made", "windows made"))
	},
})

var leakRequest = register(Check{
	Entry: Entry{ID: "leak-request", Category: CatLeak, Severity: SevWarning,
		Title: "an inactive persistent request was never freed",
		Rule:  "MPI-4.1 §3.9: persistent requests are freed with MPI_REQUEST_FREE",
		Doc:   `A persistent request that is not active at MPI_Finalize is not an error, but it was never released.`},
	Message: func(m *Message) {
		m.Mark(withRole(m.Call, "reqout"))
		m.Printf("%s here never freed with MPI_Request_free", plural(m.Val, "persistent request made", "persistent requests made"))
	},
})
