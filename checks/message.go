package checks

import (
	"fmt"
	"strings"
)

// Message is the writer a check's Message function gets: the event, the
// rank's datatypes, and what has been written so far.
type Message struct {
	*Event
	types Types
	text  string
	path  string
	// the datatype concerned, the first one described: where it was made
	typeSite uint64
	typeMade string
	remote   []string
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
	d := Described{Message: m.text, Path: m.path, TypeSite: m.typeSite, TypeMade: m.typeMade, Remote: m.remote}
	if ok {
		d.Entry = c.Entry
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
