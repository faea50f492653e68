package datatype

import "fmt"

// MatchKind is the outcome of comparing a sender's signature with a
// receiver's.
type MatchKind uint8

const (
	// Match: the signatures are equal.
	Match MatchKind = iota
	// Prefix: the sender's signature is a proper prefix of the receiver's.
	// Legal for point-to-point, where a message may be shorter than the
	// receive buffer (MPI-4.1 §3.2.4); an error for collectives, where the
	// amounts must match exactly (§6.1).
	Prefix
	// Truncated: the receiver's signature is a proper prefix of the
	// sender's; the message does not fit (MPI_ERR_TRUNCATE, §3.2.5).
	Truncated
	// Mismatch: at some element the basic types differ (§3.3.1).
	Mismatch
)

func (k MatchKind) String() string {
	switch k {
	case Match:
		return "match"
	case Prefix:
		return "prefix"
	case Truncated:
		return "truncated"
	case Mismatch:
		return "mismatch"
	}
	return fmt.Sprintf("MatchKind(%d)", uint8(k))
}

// MatchResult says how two signatures compare. For Mismatch, Element and
// Byte locate the first element whose types differ; for Prefix and
// Truncated they locate the first element the shorter side lacks (so
// Element is the shorter side's length). Byte counts packed bytes, the same
// on both sides up to that element.
type MatchResult struct {
	Kind       MatchKind
	Element    int64
	Byte       int64
	Send, Recv Basic // the differing types, for Mismatch
}

// MatchTypes compares the signature of sendCount instances of send with that of
// recvCount instances of recv by the type matching rules of MPI-4.1 §3.3.1:
// typed values must match type for type; MPI_BYTE matches only MPI_BYTE
// (untyped data on both sides); data sent as MPI_PACKED may be received
// with any type and any data may be received as MPI_PACKED (§5.2), so when
// either side is all MPI_PACKED only the byte counts are compared.
func MatchTypes(send *Type, sendCount int64, recv *Type, recvCount int64) MatchResult {
	ss, rs := send.Signature(), recv.Signature()
	if ss.allPacked() || rs.allPacked() {
		sb, rb := ss.bytes*sendCount, rs.bytes*recvCount
		switch {
		case sb == rb:
			return MatchResult{Kind: Match}
		case sb < rb:
			return MatchResult{Kind: Prefix, Byte: sb}
		default:
			return MatchResult{Kind: Truncated, Byte: rb}
		}
	}
	return MatchSig(ss, sendCount, rs, recvCount)
}

func (s *Sig) allPacked() bool {
	return len(s.items) == 1 && s.items[0].body == nil && s.items[0].basic == Packed
}

// MatchSig compares sendCount repetitions of send with recvCount
// repetitions of recv. It never expands a repetition both sides share:
// where both cursors stand at the start of repetitions of equal bodies it
// skips as many as both have, so equal struct arrays compare in time
// independent of their length. Elsewhere it advances run by run, which is
// exact whatever the forms.
func MatchSig(send *Sig, sendCount int64, recv *Sig, recvCount int64) MatchResult {
	var a, b sigCursor
	a.push(sigFrame{sig: send, reps: sendCount})
	b.push(sigFrame{sig: recv, reps: recvCount})
	a.settle()
	b.settle()
	var elem, bytes int64
	for {
		if a.done() || b.done() {
			switch {
			case a.done() && b.done():
				return MatchResult{Kind: Match, Element: elem, Byte: bytes}
			case a.done():
				return MatchResult{Kind: Prefix, Element: elem, Byte: bytes}
			default:
				return MatchResult{Kind: Truncated, Element: elem, Byte: bytes}
			}
		}
		fa, fb := a.top(), b.top()
		if fa.fresh() && fb.fresh() && fa.sig.equal(fb.sig) {
			k := min(fa.reps, fb.reps)
			elem += k * fa.sig.elems
			bytes += k * fa.sig.bytes
			a.skip(k)
			b.skip(k)
			continue
		}
		ia, ib := a.item(), b.item()
		switch {
		case ia.body != nil && ib.body != nil && ia.body.equal(ib.body):
			a.enter()
			b.enter()
		case ia.body != nil:
			a.enter()
		case ib.body != nil:
			b.enter()
		case ia.basic != ib.basic:
			return MatchResult{Kind: Mismatch, Element: elem, Byte: bytes, Send: ia.basic, Recv: ib.basic}
		default:
			n := min(a.runLeft(), b.runLeft())
			elem += n
			bytes += n * ia.basic.Size()
			a.consume(n)
			b.consume(n)
		}
	}
}

// sigCursor walks a signature in order. Each frame iterates a body's items
// reps more times (the current pass included); used counts the elements
// already consumed of the current run item. The first frames live in the
// cursor itself, so matching allocates nothing unless signatures nest
// deeper than len(buf).
type sigCursor struct {
	buf   [8]sigFrame
	more  []sigFrame
	depth int
}

type sigFrame struct {
	sig  *Sig
	i    int   // current item
	reps int64 // passes left, the current one included
	used int64 // elements consumed of the current run
}

func (c *sigCursor) push(f sigFrame) {
	if c.depth < len(c.buf) {
		c.buf[c.depth] = f
	} else {
		c.more = append(c.more[:c.depth-len(c.buf)], f)
	}
	c.depth++
}

func (c *sigCursor) top() *sigFrame {
	if c.depth <= len(c.buf) {
		return &c.buf[c.depth-1]
	}
	return &c.more[c.depth-1-len(c.buf)]
}

func (f *sigFrame) fresh() bool { return f.i == 0 && f.used == 0 }

func (c *sigCursor) done() bool     { return c.depth == 0 }
func (c *sigCursor) item() *sigItem { f := c.top(); return &f.sig.items[f.i] }
func (c *sigCursor) runLeft() int64 { return c.item().count - c.top().used }
func (c *sigCursor) enter() {
	it := c.item()
	c.push(sigFrame{sig: it.body, reps: it.count})
}

// skip drops k whole passes of the top frame (which must be fresh).
func (c *sigCursor) skip(k int64) {
	c.top().reps -= k
	if c.top().reps == 0 {
		c.pop()
	}
}

// consume takes n elements of the current run.
func (c *sigCursor) consume(n int64) {
	f := c.top()
	f.used += n
	if f.used == f.sig.items[f.i].count {
		f.used = 0
		c.next()
	}
}

// next moves past the current item, finishing passes and frames as needed.
func (c *sigCursor) next() {
	f := c.top()
	f.i++
	if f.i < len(f.sig.items) {
		return
	}
	f.i = 0
	f.reps--
	if f.reps == 0 {
		c.pop()
	}
}

func (c *sigCursor) pop() {
	c.depth--
	if c.depth > 0 {
		c.next()
	}
}

// settle drops empty frames so that the cursor stands on an item or is done.
func (c *sigCursor) settle() {
	for c.depth > 0 && (len(c.top().sig.items) == 0 || c.top().reps <= 0) {
		c.depth--
	}
}
