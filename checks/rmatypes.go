package checks

import (
	"fmt"
	"strings"
)

// The datatypes of one one-sided communication call against each other
// (shim/rma_types.c, with the shim's engine comparing the signatures
// exactly). A put moves the data as a send with the origin's datatype
// and a receive with the target's would, a get the other way (MPI-4.1
// §12.3.1, §12.3.2); the accumulate family too, with the rule that every
// datatype be built from one predefined datatype (§12.3.4). The engine
// writes the message from an RMATypeMatch; the event carries it as Text
// and Path, and Arg names the argument at fault: the receiving side's
// datatype for a mismatch, its count for data that does not fit.

var rmaTypeMismatch = register(Check{
	Entry: Entry{ID: "rma-type-mismatch", Category: CatTypeMismatch, Severity: SevError,
		Title: "a one-sided call's origin and target datatypes do not match, or the data does not fit",
		Rule:  "MPI-4.1 §12.3.1-§12.3.2: the transfer is as if the origin sent with its datatype and the target received with its own (or the other way for MPI_Get): the type signatures must match (§3.3.1) and the data must fit without truncation; §12.3.4: the datatypes of the accumulate family must be built from the same predefined datatype",
		Doc: `MPI_Put, MPI_Get and the accumulate family take two (MPI_Get_accumulate
three) datatypes: one describes the origin's buffer, one the target's window
memory, both given by the origin. MPI copies bytes and never checks that they
mean the same thing, so an origin of MPI_LONG written into a target of
MPI_DOUBLE stores integers' bits as doubles, and an accumulate whose origin is
MPI_LONG and whose target is MPI_INT64_T (another predefined type, though the
same size) is erroneous. mpidbg compares the signatures element by element and
names the first element that differs on each side as a type-tree path:

    MPI_Put sends MPI_LONG[0] from the origin where the target takes MPI_DOUBLE[0]

A put whose origin describes more elements than the target datatype has room
for (or a get whose target describes more than the origin buffer) is
reported too; fewer is legal, as a shorter message is. Describe both sides
with the same basic type: a derived target datatype built from the origin's
basic type, or MPI_BYTE on both sides.`},
	Message: func(m *Message) {
		m.SetText(m.Text)
		m.SetPath(m.Path)
		label := "datatype"
		if strings.HasSuffix(m.Arg, "_count") {
			label = "count"
		}
		m.Mark(m.Arg, label)
	},
})

// RMATypeMatch is what the engine found comparing the datatypes of one
// one-sided call, in the direction the data moves: From is the side the
// data comes from ("origin", "target"), To the side it goes to
// ("target", "origin", "result").
type RMATypeMatch struct {
	Call      string // MPI_Put
	From, To  string
	Truncated bool // the data does not fit, else a mismatch
	FromCount int64
	FromType  string // the datatype as words (its name, MPI_INT, an expression)
	ToCount   int64
	ToType    string
	// Element is the first element that differs (or has no room), Byte
	// its offset in the packed data; FromPath and ToPath name it on each
	// side, FromBasic and ToBasic are its basic types.
	Element, Byte        int64
	FromPath, ToPath     string
	FromBasic, ToBasic   string
	FromElements, ToRoom int64
	// Fortran: the call is a Fortran call, whose program counts elements
	// from 1 (the paths are in Fortran form too).
	Fortran bool
}

// Text writes the finding's message and element path.
func (t RMATypeMatch) Text() (msg, path string) {
	if t.Fortran {
		t.Element++
	}
	if t.Truncated {
		msg = fmt.Sprintf("%s moves %d element(s) from the %s (%d x %s) but the %s datatype has room for %d (%d x %s); the first element without room is element %d",
			t.Call, t.FromElements, t.From, t.FromCount, t.FromType, t.To, t.ToRoom, t.ToCount, t.ToType, t.Element)
		if t.FromPath != "" {
			msg += " (" + t.FromPath + ")"
		}
		return msg, t.FromPath
	}
	return fmt.Sprintf("%s moves %s from the %s where the %s takes %s: element %d (packed byte %d) is %s on the %s side and %s on the %s side (%d x %s, %d x %s)",
		t.Call, t.FromPath, t.From, t.To, t.ToPath, t.Element, t.Byte, t.FromBasic, t.From, t.ToBasic, t.To, t.FromCount, t.FromType, t.ToCount, t.ToType), t.ToPath
}
