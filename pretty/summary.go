package pretty

import (
	"fmt"

	"github.com/mpidbg/mpidbg/datatype"
)

// Summary draws the facts about a type: its expression, name, constructor,
// size and bounds, element count and signature; with count above one also
// the buffer of count instances.
func (r *Renderer) Summary(t *datatype.Type, count int64) string {
	n := func(v int64) string { return r.num.Render(fmt.Sprint(v)) }
	comb := r.comb.Render(t.Combiner.String())
	if a := t.Args(); a != "" {
		comb += " " + a
	}
	name := r.name.Render(t.Name)
	if t.IsPredefined() {
		name = r.comb.Render(t.Name)
	} else if t.Name == "" {
		name = r.dim.Render("(unnamed)")
	}
	fs := []Field{
		{"type", t.Expr()},
		{"name", name},
		{"combiner", comb},
		{"size", n(t.TypeSize()) + " bytes"},
		{"lb", n(t.LB())},
		{"extent", n(t.Extent())},
		{"true lb", n(t.TrueLB())},
		{"true extent", n(t.TrueExtent())},
		{"elements", n(t.NumElements())},
		{"signature", t.Signature().String()},
	}
	if count != 1 {
		span := int64(0)
		if count > 0 {
			span = (count-1)*t.Extent() + t.TrueExtent()
		}
		fs = append(fs, Field{"buffer", fmt.Sprintf("%s instances: %s elements, %s bytes of data spanning %s bytes",
			n(count), n(count*t.NumElements()), n(count*t.TypeSize()), n(span))})
	}
	return r.Fields(fs)
}

// Element draws one element of a buffer: its path (long and short form),
// byte offset from the buffer start, packed byte, element number and type.
func (r *Renderer) Element(el datatype.Element) string {
	return r.Fields(r.elementFields(el))
}

func (r *Renderer) elementFields(el datatype.Element) []Field {
	n := func(v int64) string { return r.num.Render(fmt.Sprint(v)) }
	return []Field{
		{"path", el.Path.String()},
		{"short", el.Path.Short()},
		{"offset", n(el.Offset)},
		{"packed byte", n(el.Packed)},
		{"element", n(el.Index)},
		{"type", r.comb.Render(el.Basic.String())},
	}
}

// Match draws the outcome of comparing a sender's signature with a
// receiver's. send and recv are the elements at the position the result
// names, nil on the side that has no element there (the shorter side of a
// prefix or truncation, or a match).
func (r *Renderer) Match(m datatype.MatchResult, send, recv *datatype.Element) string {
	n := func(v int64) string { return r.num.Render(fmt.Sprint(v)) }
	var head string
	switch m.Kind {
	case datatype.Match:
		head = r.good.Render("match") + ": the signatures are equal"
	case datatype.Prefix:
		head = r.num.Render("prefix") + fmt.Sprintf(": the message ends at packed byte %s, before the receive buffer does; legal for point-to-point, an error for collectives",
			n(m.Byte))
	case datatype.Truncated:
		head = r.bad.Render("truncated") + fmt.Sprintf(": the receive buffer ends at packed byte %s, the message is longer", n(m.Byte))
	case datatype.Mismatch:
		head = r.bad.Render("mismatch") + fmt.Sprintf(" at element %s, packed byte %s: the sender has %s where the receiver has %s",
			n(m.Element), n(m.Byte), r.comb.Render(m.Send.String()), r.comb.Render(m.Recv.String()))
	default:
		head = m.Kind.String()
	}
	fs := []Field{{"result", head}}
	side := func(key string, el *datatype.Element) {
		if el != nil {
			fs = append(fs, Field{key, el.Path.String() + r.dim.Render(fmt.Sprintf("  at offset %d", el.Offset))})
		}
	}
	side("send", send)
	side("recv", recv)
	return r.Fields(fs)
}

// Heading draws a section title.
func (r *Renderer) Heading(s string) string { return r.head.Render(s) }
