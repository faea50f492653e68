package checks

// The datatype lifecycle: a datatype used before it is committed, after
// it is freed, or freed or committed when it must not be (shim/roles.c,
// shim/objects*.c). Arg names the argument and Handle the datatype.

var typeNull = register(Check{
	Entry: Entry{ID: "type-null", Category: CatDatatypeLifecycle, Severity: SevError,
		Title: "MPI_DATATYPE_NULL is used as a datatype",
		Rule:  "MPI-4.1 §5.1: MPI_DATATYPE_NULL is not a datatype",
		Doc: `A datatype variable still holds MPI_DATATYPE_NULL: it was never set, or it
was freed (MPI_Type_free sets the handle to MPI_DATATYPE_NULL) and used
again.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s is MPI_DATATYPE_NULL", m.Arg)
	},
})

var typeUnknown = register(Check{
	Entry: Entry{ID: "type-unknown", Category: CatDatatypeLifecycle, Severity: SevError,
		Title: "a datatype handle that no MPI call returned",
		Rule:  "MPI-4.1 §2.5.1: handles must refer to existing objects",
		Doc: `The value is neither a predefined datatype nor one the program created:
typically an uninitialised MPI_Datatype variable.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s %#x is neither a predefined datatype nor one a constructor returned", m.Arg, m.Handle)
	},
})

var typeNotCommitted = register(Check{
	Entry: Entry{ID: "type-not-committed", Category: CatDatatypeLifecycle, Severity: SevError,
		Title: "a derived datatype is used for communication before MPI_Type_commit",
		Rule:  "MPI-4.1 §5.1.9: a datatype object has to be committed before it can be used in a communication",
		Doc: `Constructors make a datatype that can build other datatypes; only
MPI_Type_commit makes it usable in communication, packing and RMA. Commit
the type you communicate with (the outermost one); inner types need no
commit.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s %s is used before MPI_Type_commit", m.Arg, m.Type(m.Handle))
	},
})

var typeFreed = register(Check{
	Entry: Entry{ID: "type-freed", Category: CatDatatypeLifecycle, Severity: SevError,
		Title: "a datatype is used after MPI_Type_free",
		Rule:  "MPI-4.1 §5.1.9: MPI_TYPE_FREE marks the datatype for deallocation and sets the handle to MPI_DATATYPE_NULL",
		Doc: `After MPI_Type_free the handle is dead: operations already started with it
complete normally, and types built from it stay valid, but a new call with
the old handle value (kept in another variable) is erroneous, and MPI may
have given the same value to a new type.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.MarkRelated("datatype")
		m.Printf("%s %s was freed by MPI_Type_free", m.Arg, m.Type(m.Handle))
	},
})

var typeDoubleFree = register(Check{
	Entry: Entry{ID: "type-double-free", Category: CatDatatypeLifecycle, Severity: SevError,
		Title: "a datatype is freed twice",
		Rule:  "MPI-4.1 §5.1.9: MPI_TYPE_FREE on a handle that no longer refers to a datatype is erroneous",
		Doc:   `The same datatype was passed to MPI_Type_free twice, through two copies of the handle.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.MarkRelated("datatype")
		m.Printf("%s %s was freed already", m.Arg, m.Type(m.Handle))
	},
})

var typeFreePredefined = register(Check{
	Entry: Entry{ID: "type-free-predefined", Category: CatDatatypeLifecycle, Severity: SevError,
		Title: "a predefined datatype is freed",
		Rule:  "MPI-4.1 §5.1.9: predefined datatypes cannot be freed",
		Doc:   `MPI_INT, MPI_DOUBLE and the other predefined datatypes belong to the MPI library.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s is the predefined datatype %s, which cannot be freed", m.Arg, m.Type(m.Handle))
	},
})

var commitPredefined = register(Check{
	Entry: Entry{ID: "commit-predefined", Category: CatDatatypeLifecycle, Severity: SevWarning,
		Title: "MPI_Type_commit is called on a predefined datatype",
		Rule:  "MPI-4.1 §5.1.9: predefined datatypes are committed already",
		Doc: `Harmless, but it usually means the program commits the wrong variable, for
example the old type instead of the new one.`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s is the predefined datatype %s, committed already", m.Arg, m.Type(m.Handle))
	},
})

var commitTwice = register(Check{
	Entry: Entry{ID: "commit-twice", Category: CatDatatypeLifecycle, Severity: SevWarning,
		Title: "a datatype is committed again",
		Rule:  "MPI-4.1 §5.1.9: committing a committed datatype has no effect",
		Doc: `Harmless, but a sign that the program's datatype setup runs more often than
intended (for example inside a time-step loop).`},
	Message: func(m *Message) {
		m.Mark(m.Arg)
		m.Printf("%s %s is committed already", m.Arg, m.Type(m.Handle))
	},
})
