package checks

import "fmt"

// Message races and lost messages: a wildcard receive that more than one
// pending message could match (shim/xr_race.c), and a message no receive
// ever took (shim/xr_p2p.c).

// A wildcard receive R took the message of one rank (Remote[0]) while
// the message of another (Remote[1], with tag Val) could have matched it
// instead: nothing ordered that send after R (MPI-4.1 §3.5). The shim
// (shim/xr_race.c) decides what the other order does, exactly, from the
// type signatures the shadow messages carry:
//
//   - R gets the other message: a type mismatch or a truncation where
//     the message R took fits (message-race, Variant PLAIN);
//   - the later receive that took the other message (the related place)
//     gets R's message instead and it does not fit there (LATER_RECV);
//   - that later receive accepts only the other rank, and no later
//     wildcard receive takes a message of that rank: under the other
//     order it waits for a message that never comes (STARVED, decided
//     at MPI_Finalize);
//   - every candidate fits: the order is the program's to handle
//     (message-race-info, off unless asked; Variant UNKNOWN when the
//     shim could not compare the types).
//
// Text is what the receive would get, as the engine wrote it
// (RaceFit.Text); RelatedCall the later receive's call.

// messageRace: another legal order makes the program fail.
var messageRace = register(Check{
	Entry: Entry{ID: "message-race", Category: CatMessageRace, Severity: SevError,
		Title: "a wildcard receive can match another message, and with that one the program fails",
		Rule:  "MPI-4.1 §3.5: with MPI_ANY_SOURCE the message matched depends on arrival order, which MPI does not fix; every order MPI allows must work (§3.3.1 type matching, §3.2.4 truncation)",
		Doc: `A receive with MPI_ANY_SOURCE took the message of one rank, and another
rank's message, not ordered after the receive by any chain of messages,
could have matched it instead. On another run, machine or network that
other order happens, and in it the program fails:

  - the receive gets a message of another type signature (type mismatch)
    or a longer one than its count allows (truncation);
  - a later receive gets the first message instead, and it does not fit
    there;
  - a later receive accepts only the other rank, which sends nothing
    more: it waits for ever and the first message is never received.

    rank 0's MPI_Recv(MPI_ANY_SOURCE) can match the message of rank 1 or of
    rank 2; it took rank 1's, and when rank 2's comes first it receives
    8 MPI_DOUBLE into room for 4: truncation

mpidbg tracks happens-before with logical clocks carried alongside the
program's messages and compares the candidates' type signatures exactly.
The nondeterminism of a correct program, a master that takes results from
whichever worker is first and where every result fits, is not an error:
it is message-race-info, reported only with --checks +message-race-info.

What is not decided: a later receive's source computed from an earlier
status (the other order may change it); longer chains of swapped messages
than one wildcard receive and one later receive; a rank that sends more
only because the other order changed its data. Fix the program by giving
the messages distinct tags, receiving from the rank meant, or sizing the
receive for every candidate.

A site reviewed and found safe (the other order cannot happen for a reason
mpidbg does not see) is silenced with a suppression rule, a line

    message-race  src/master.c:40

in .mpidbg-suppress beside the program or in a file given with
mpidbg run --suppress FILE; the summary then counts it as suppressed
(docs/run.md, "Suppressions").`},
	Message: raceMessage,
})

// messageRaceInfo: every candidate fits; the order is the program's.
const raceInfoID = "message-race-info"

var messageRaceInfo = register(Check{
	Entry: Entry{ID: raceInfoID, Category: CatMessageRace, Severity: SevInfo, OptIn: true,
		Title: "a wildcard receive can match messages of several ranks, and each of them fits it",
		Rule:  "MPI-4.1 §3.5: with MPI_ANY_SOURCE the message matched depends on arrival order, which MPI does not fix",
		Doc: `A receive with MPI_ANY_SOURCE can match the messages of several ranks,
and each of them fits its type and count: the order in which the program
gets them depends on timing. That is what a master/worker program wants,
so it is not reported unless asked for (--checks +message-race-info); turn
it on to review a program that files the first message it gets as a given
rank's. When a candidate does not fit, the finding is message-race, an
error. A reviewed site is silenced like any finding, with a suppression
rule such as "message-race-info src/master.c:40" (docs/run.md,
"Suppressions").`},
	Message: raceMessage,
})

// raceMessage writes both findings (see above for the fields).
func raceMessage(m *Message) {
	m.Mark("source")
	if len(m.Remote) < 2 {
		m.SetText(m.Call + "(MPI_ANY_SOURCE) can match the messages of more than one rank")
		return
	}
	took, other := m.Remote[0], m.Remote[1]
	head := fmt.Sprintf("%s(MPI_ANY_SOURCE) can match the message of rank %d or of rank %d (tag %d); it took rank %d's",
		m.Call, took.Rank, other.Rank, m.Val, took.Rank)
	later := m.RelatedCall
	if later == "" {
		later = "receive"
	}
	switch {
	case m.ID == raceInfoID && m.Variant == VariantUnknown:
		m.SetText(head + fmt.Sprintf(", and mpidbg could not compare rank %d's message with it (a datatype it does not model)", other.Rank))
	case m.ID == raceInfoID:
		m.SetText(head + fmt.Sprintf(", and rank %d's fits it as well: the program gets them in either order", other.Rank))
	case m.Variant == VariantLaterRecv:
		m.SetText(head + fmt.Sprintf(", and when rank %d's comes first the later %s that took it gets rank %d's instead: %s",
			other.Rank, later, took.Rank, m.Text))
	case m.Variant == VariantStarved:
		m.SetText(head + fmt.Sprintf(", and when rank %d's comes first the later %s from rank %d waits for a second message of rank %d, "+
			"which rank %d never sends: the job hangs and rank %d's message is never received",
			other.Rank, later, other.Rank, other.Rank, other.Rank, took.Rank))
	default:
		m.SetText(head + fmt.Sprintf(", and when rank %d's comes first %s", other.Rank, m.Text))
	}
	m.RemoteText(0, "rank %d sent the message it took with %s", took.Rank, took.Call)
	m.RemoteText(1, "rank %d sent the other candidate with %s", other.Rank, other.Call)
}

// RaceFit is what a receive would get from another candidate message
// (the engine compares the signatures, MPI-4.1 §3.3.1 and §3.2.4).
type RaceFit struct {
	Truncated bool
	// SendElements basic elements arrive where the receive has room for
	// RecvElements; Unit names them when both sides are one basic type
	// ("MPI_DOUBLE").
	SendElements, RecvElements int64
	Unit                       string
	// Element is the first element whose basic types differ, SendBasic
	// and RecvBasic those types, for a mismatch.
	Element              int64
	SendBasic, RecvBasic string
}

// Text is the consequence as the message quotes it.
func (f RaceFit) Text() string {
	if f.Truncated {
		if f.Unit != "" {
			return fmt.Sprintf("it receives %d %s into room for %d: truncation", f.SendElements, f.Unit, f.RecvElements)
		}
		return fmt.Sprintf("it receives %s into room for %d: truncation", plural(f.SendElements, "element", "elements"), f.RecvElements)
	}
	return fmt.Sprintf("its element %d is %s where the receive's datatype has %s: type mismatch", f.Element, f.SendBasic, f.RecvBasic)
}

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
