package checks

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/shim/calls"
)

// Message is the writer a check's Message function gets: the event, the
// rank's datatypes, and what has been written so far.
type Message struct {
	*Event
	types Types
	text  string
	path  string
	// the rule broken, when not the entry's (SetRule)
	rule string
	// the datatype concerned, the first one described: where it was made
	typeSite uint64
	typeMade string
	remote   []string
	// the offending argument of the call, of the related place's call and
	// of the remote places' calls: parameter names of the standard
	arg, relatedArg string
	remoteArg       []string
}

// Printf sets the message: the call, then the text ("MPI_Send: count -1
// must be non-negative").
func (m *Message) Printf(format string, args ...any) {
	m.text = m.Call + ": " + fmt.Sprintf(format, args...)
}

// SetText sets the message as it is, without the call in front.
func (m *Message) SetText(s string) { m.text = s }

// SetPath sets the element path of the finding.
func (m *Message) SetPath(p string) { m.path = p }

// SetRule names the rule this finding breaks when it is not the entry's:
// one check may stand for the same mistake under another chapter of the
// standard (a file write's buffer, not a send's).
func (m *Message) SetRule(r string) { m.rule = r }

// RemoteText sets the text of the event's i-th remote place (what that
// rank did there).
func (m *Message) RemoteText(i int, format string, args ...any) {
	for len(m.remote) <= i {
		m.remote = append(m.remote, "")
	}
	m.remote[i] = fmt.Sprintf(format, args...)
}

// Type describes a datatype handle for the message (MPI_INT, or a derived
// type's constructor expression or name) and, for the first derived type
// described, remembers where it was made: that becomes a related place.
func (m *Message) Type(h uint64) string {
	ti := m.types.Type(h)
	if m.typeSite == 0 && ti.Site != 0 {
		m.typeSite, m.typeMade = ti.Site, ti.Made
	}
	return ti.Text
}

// ElementAt is the path of the element of count x h at addr that covers
// the byte at, or "".
func (m *Message) ElementAt(h, addr uint64, count int64, at uint64) string {
	return m.types.ElementAt(h, addr, count, at)
}

// Mark says which argument of the finding's call is at fault: the first
// of names that is a parameter of the call (a name may carry an array
// index, "recvcounts[2]", which goes), so that one check can name the
// receive's datatype "recvtype" in MPI_Sendrecv and "datatype" in
// MPI_Recv. For a call the shim does not wrap, the first name. The report
// marks the argument in the source line.
func (m *Message) Mark(names ...string) { m.arg = param(m.Call, names) }

// MarkRelated says which argument of the related place's call
// (RelatedCall) concerns the finding.
func (m *Message) MarkRelated(names ...string) { m.relatedArg = param(m.RelatedCall, names) }

// MarkRemote says which argument of the call at the event's i-th remote
// place concerns the finding.
func (m *Message) MarkRemote(i int, names ...string) {
	if i >= len(m.Remote) {
		return
	}
	for len(m.remoteArg) <= i {
		m.remoteArg = append(m.remoteArg, "")
	}
	m.remoteArg[i] = param(m.Remote[i].Call, names)
}

// param is the first of names (without an array index) that is a
// parameter of call, or the first name when the table does not know call.
func param(call string, names []string) string {
	ps := calls.Params(call)
	first := ""
	for _, n := range names {
		if i := strings.IndexByte(n, '['); i >= 0 {
			n = n[:i]
		}
		if n == "" {
			continue
		}
		if first == "" {
			first = n
		}
		for _, p := range ps {
			if p.Name == n {
				return n
			}
		}
	}
	if ps == nil {
		return first
	}
	return ""
}

// buffer names call's buffer parameter that MPI reads (side "S") or
// writes ("R"), or "" when the call has no such buffer or more than one.
func buffer(call, side string) string {
	found := ""
	for _, p := range calls.Params(call) {
		if p.Role == side || p.Role == "X" {
			if found != "" {
				return ""
			}
			found = p.Name
		}
	}
	return found
}

// withRole names call's parameter with role r in calls.tbl ("newcomm":
// the communicator a constructor returns), or "".
func withRole(call, r string) string {
	for _, p := range calls.Params(call) {
		if p.Role == r {
			return p.Name
		}
	}
	return ""
}

// typeOf names the datatype parameter of call's buffer parameter buf
// ("recvtype" for MPI_Sendrecv's "recvbuf"), or "".
func typeOf(call, buf string) string {
	if i := strings.IndexByte(buf, '['); i >= 0 {
		buf = buf[:i]
	}
	for _, p := range calls.Params(call) {
		if p.Name == buf {
			return p.Type
		}
	}
	return ""
}

// Described is a finding as one rank writes it, before the rank, the
// sites and the places in other ranks are added.
type Described struct {
	Entry   Entry
	Message string
	Path    string
	// Related is the text of the event's related place, for a detector
	// that gave one; TypeSite and TypeMade say where the datatype concerned
	// was made, when a derived one was described.
	Related  string
	TypeSite uint64
	TypeMade string
	// Remote are the texts of the event's places in other ranks, in the
	// order of Event.Remote.
	Remote []string
	// Arg is the offending argument of the finding's call (a parameter
	// name of the standard, "recvtype"), RelatedArg that of the related
	// place's call, RemoteArgs those of the remote places' calls; "" for
	// none.
	Arg, RelatedArg string
	RemoteArgs      []string
}

// Describe writes the finding an event stands for. An id the catalogue
// does not know still gives a finding (an argument error named by its
// id), so that a detector ahead of the catalogue is never silent.
func Describe(ev *Event, types Types) Described {
	m := &Message{Event: ev, types: types}
	c, ok := catalogue[ev.ID]
	if ok {
		c.Message(m)
	} else {
		m.Printf("%s", ev.ID)
	}
	d := Described{Message: m.text, Path: m.path, TypeSite: m.typeSite, TypeMade: m.typeMade, Remote: m.remote,
		Arg: m.arg, RelatedArg: m.relatedArg, RemoteArgs: m.remoteArg}
	if ok {
		d.Entry = c.Entry
		if m.rule != "" {
			d.Entry.Rule = m.rule
		}
	} else {
		d.Entry = Entry{ID: ev.ID, Category: CatArgument, Severity: SevError}
	}
	d.Related = relatedText(ev.RelatedKind, ev.RelatedCall)
	return d
}

func relatedText(k RelatedKind, call string) string {
	switch k {
	case RelatedStarted:
		return "the " + call + " started here"
	case RelatedCreated:
		return "created here by " + call
	case RelatedFinalize:
		return "MPI_Finalize called here"
	case RelatedFreed:
		return "freed here by MPI_Type_free"
	case RelatedKeptCalling:
		return "the rank kept calling " + call + " here"
	case RelatedOpened:
		return "the epoch was opened here by " + call
	case RelatedClosed:
		return "the epoch was closed here by " + call
	case RelatedLaterRecv:
		return "the later " + call + " here"
	}
	return "related"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// offsets places the first shared byte at as offsets from the start of
// both buffers, never as an address: addresses differ from rank to rank,
// and the report merges only findings with the same message. A buffer at
// MPI_BOTTOM (0) has no start to count from. an and bn name the buffers
// ("" for the call's own, where the message names it already).
func offsets(at, a uint64, an string, b uint64, bn string) string {
	var parts []string
	if a != 0 {
		if an == "" {
			parts = append(parts, fmt.Sprintf("at offset %d here", int64(at-a)))
		} else {
			parts = append(parts, fmt.Sprintf("at offset %d of %s", int64(at-a), an))
		}
	}
	if b != 0 {
		if an == "" {
			parts = append(parts, fmt.Sprintf("%d in the %s's buffer", int64(at-b), bn))
		} else {
			parts = append(parts, fmt.Sprintf("%d of %s", int64(at-b), bn))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}
