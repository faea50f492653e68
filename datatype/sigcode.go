package datatype

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// This file carries a signature between processes: a compact binary
// encoding of the regular form, so that a rank can send the signature of
// its (count, datatype) to a peer inside a small message, and a hash of the
// element sequence, so that many signatures can be compared cheaply before
// the few that differ are compared exactly.

// Binary encoding. The regular form is encoded as it is, never expanded, so
// an array of a million structs costs a few bytes:
//
//	sig  = uvarint(number of items) item*
//	item = uvarint(2·basic)                     a run of one element
//	     | uvarint(2·basic+1) uvarint(count)    a run of count elements
//	     | uvarint(0) uvarint(count) sig        body repeated count times
//
// Basic values are the registry's numbering, which is append-only, so the
// encoding is stable across builds. AppendBinary is deterministic: equal
// forms encode to equal bytes.

// Limits DecodeSig enforces on data from another process, so that a corrupt
// message costs at most a bounded amount of memory and time. Real
// signatures stay far inside them: a form follows the constructor tree,
// and each level of nesting needs a derived type whose signature is not a
// single run.
const (
	maxSigDepth = 64      // nesting of repeated bodies
	maxSigItems = 1 << 16 // items at all levels together
)

// FormatError reports an encoded signature that does not decode: the byte
// offset in the encoding where the problem was found, and what it is.
type FormatError struct {
	Offset int
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("datatype: sig byte %d: %s", e.Offset, e.Msg)
}

// AppendBinary appends the encoding of s to b and returns the extended
// slice. It never fails; DecodeSig of the result gives a signature of the
// same form (so that MatchSig with the receiver's own signature of the same
// type skips shared repetitions just as it would locally), except that it
// rejects forms nested deeper than 64 bodies or of more than 65536 items,
// which constructors make only from structs nested more than 64 deep or
// with tens of thousands of blocks.
func (s *Sig) AppendBinary(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s.items)))
	for _, it := range s.items {
		switch {
		case it.body != nil:
			b = append(b, 0)
			b = binary.AppendUvarint(b, uint64(it.count))
			b = it.body.AppendBinary(b)
		case it.count == 1:
			b = binary.AppendUvarint(b, uint64(it.basic)<<1)
		default:
			b = binary.AppendUvarint(b, uint64(it.basic)<<1|1)
			b = binary.AppendUvarint(b, uint64(it.count))
		}
	}
	return b
}

// DecodeSig decodes a signature AppendBinary encoded, all of b. The bytes
// come from another process and may be corrupt, so it never panics and
// allocates at most in proportion to len(b); it returns a *FormatError for
// truncated or trailing data, an unknown basic type, a count below one, an
// empty body, more than 64 levels of nesting or 65536 items, or a
// signature of 2^62 or more elements or bytes (the bound maxMagnitude sets
// on every type, so that no sum or product of counts can wrap).
//
// The form is rebuilt verbatim rather than renormalised through
// concatSig: the sender's form is what the receiver's own signature of the
// same type looks like, and MatchSig skips equal repetitions only where
// the forms agree. Pushing the items again is not always the identity (a
// body merged into its neighbour is not re-absorbed at the time, but would
// be on a second pass), so renormalising could turn a struct array that
// compares in one step into one compared element by element. Data that
// decodes gives a structurally valid signature (counts of at least one,
// non-empty bodies, valid basic types, exact element and byte totals); if
// it is corrupt its form may be irregular, which costs speed, never
// correctness: every operation on signatures is exact whatever the form.
func DecodeSig(b []byte) (*Sig, error) {
	d := sigDecoder{b: b}
	s, err := d.sig(0)
	if err != nil {
		return nil, err
	}
	if d.off != len(b) {
		return nil, d.fail("%d trailing bytes", len(b)-d.off)
	}
	return s, nil
}

type sigDecoder struct {
	b     []byte
	off   int
	items int // decoded so far, at all levels
}

func (d *sigDecoder) fail(format string, args ...any) error {
	return &FormatError{Offset: d.off, Msg: fmt.Sprintf(format, args...)}
}

func (d *sigDecoder) uvarint(what string) (uint64, error) {
	v, n := binary.Uvarint(d.b[d.off:])
	switch {
	case n == 0:
		return 0, d.fail("%s: unexpected end of data", what)
	case n < 0:
		return 0, d.fail("%s: varint overflows 64 bits", what)
	}
	d.off += n
	return v, nil
}

// count reads a repetition count, which must be in [1, maxMagnitude).
func (d *sigDecoder) count() (int64, error) {
	at := d.off
	v, err := d.uvarint("count")
	if err != nil {
		return 0, err
	}
	if v == 0 || v >= maxMagnitude {
		d.off = at
		return 0, d.fail("count %d not in [1, 2^62)", v)
	}
	return int64(v), nil
}

// sig decodes one item list at nesting depth depth.
func (d *sigDecoder) sig(depth int) (*Sig, error) {
	if depth > maxSigDepth {
		return nil, d.fail("bodies nested more than %d deep", maxSigDepth)
	}
	at := d.off
	n, err := d.uvarint("item count")
	if err != nil {
		return nil, err
	}
	// Every item takes at least one byte, so a count beyond the bytes left
	// is corrupt; checking it first keeps the allocation below len(b).
	if n > uint64(len(d.b)-d.off) || n > uint64(maxSigItems-d.items) {
		d.off = at
		return nil, d.fail("%d items: more than the data or the limit of %d items holds", n, maxSigItems)
	}
	d.items += int(n)
	s := &Sig{items: make([]sigItem, 0, n)}
	for range n {
		at := d.off
		tag, err := d.uvarint("item tag")
		if err != nil {
			return nil, err
		}
		var it sigItem
		var elems, bytes int64
		if tag == 0 {
			if it.count, err = d.count(); err != nil {
				return nil, err
			}
			bodyAt := d.off
			if it.body, err = d.sig(depth + 1); err != nil {
				return nil, err
			}
			if len(it.body.items) == 0 {
				d.off = bodyAt
				return nil, d.fail("empty repeated body")
			}
			elems, bytes = it.body.elems, it.body.bytes
		} else {
			it.basic = Basic(tag >> 1)
			if tag>>1 >= uint64(numBasic) || !it.basic.Valid() {
				d.off = at
				return nil, d.fail("unknown basic type %d", tag>>1)
			}
			it.count = 1
			if tag&1 == 1 {
				if it.count, err = d.count(); err != nil {
					return nil, err
				}
			}
			elems, bytes = 1, it.basic.Size()
		}
		var ok bool
		if elems, ok = mulMagnitude(elems, it.count); ok {
			bytes, ok = mulMagnitude(bytes, it.count)
		}
		if ok {
			s.elems, ok = addMagnitude(s.elems, elems)
		}
		if ok {
			s.bytes, ok = addMagnitude(s.bytes, bytes)
		}
		if !ok {
			d.off = at
			return nil, d.fail("signature of 2^62 or more elements or bytes")
		}
		s.items = append(s.items, it)
	}
	return s, nil
}

// mulMagnitude is a·n for 0 <= a, n < maxMagnitude, and whether it stays
// below maxMagnitude.
func mulMagnitude(a, n int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(n))
	return int64(lo), hi == 0 && lo < maxMagnitude
}

// addMagnitude is a+b for 0 <= a, b < maxMagnitude (the sum cannot wrap),
// and whether it stays below maxMagnitude.
func addMagnitude(a, b int64) (int64, bool) {
	return a + b, a+b < maxMagnitude
}

// Signature hash. Hash is a polynomial hash of the sequence of basic
// elements e1 … eL,
//
//	H = code(e1)·X^(L-1) + code(e2)·X^(L-2) + … + code(eL)   mod 2^61-1,
//
// with code(e) = e+1 (never 0, so leading elements count) and X a fixed odd
// base, which depends on the sequence only, not on the form: A (B A)*2 and
// (A B)*2 A hash alike. It is computed on the form in time proportional to
// its size times the logarithm of its counts, with
//
//	H(S·T) = H(S)·X^|T| + H(T)
//	H(S^n) = H(S)·(1 + Y + Y² + … + Y^(n-1)),  Y = X^|S|
//
// and the geometric sum evaluated by doubling.
//
// Equal sequences always hash equal, so a differing hash proves that two
// signatures differ; an equal hash proves nothing (two different sequences
// of at most L elements collide for at most L-1 of the 2^61-1 possible X,
// but X is fixed, not secret, and L can be huge). Hashes therefore only select: a checker can gather one hash
// per rank for a collective and look at the ranks whose hash differs from
// the others, but it compares those signatures exactly (MatchSig) before it
// reports anything, and it never concludes a match from equal hashes where
// a missed mismatch matters. Two rules of MPI also sit outside the element
// sequence and must be applied before hashes are compared: MPI_PACKED
// matches any type of the same byte size (see MatchTypes), and a
// point-to-point message may be shorter than the receive (Prefix is legal).

const (
	hashP = 1<<61 - 1          // the Mersenne prime modulus
	hashX = 0x1f3d5b79a2c4e687 // the fixed odd base, below hashP
)

// Hash returns the hash of s's element sequence (0 for the empty
// signature): equal sequences hash equal, whatever their forms.
func (s *Sig) Hash() uint64 {
	h, _ := s.hashPow()
	return h
}

// HashRepeat returns the hash of s repeated n times, the signature of an
// MPI call's (count, datatype); n <= 0 gives the hash of the empty
// sequence, 0. It equals repeatSig(s, n).Hash() without building anything.
func (s *Sig) HashRepeat(n int64) uint64 {
	if n <= 0 {
		return 0
	}
	h, pow := s.hashPow()
	g, _ := geomPow(pow, uint64(n))
	return mulModP(h, g)
}

// hashPow returns H(s) and X^|s|, both mod hashP.
func (s *Sig) hashPow() (h, pow uint64) {
	pow = 1
	for _, it := range s.items {
		var ih, ipow uint64
		if it.body != nil {
			bh, bpow := it.body.hashPow()
			g, p := geomPow(bpow, uint64(it.count))
			ih, ipow = mulModP(bh, g), p
		} else {
			g, p := geomPow(hashX, uint64(it.count))
			ih, ipow = mulModP(uint64(it.basic)+1, g), p
		}
		h = addModP(mulModP(h, ipow), ih)
		pow = mulModP(pow, ipow)
	}
	return h, pow
}

// geomPow returns 1 + y + … + y^(n-1) and y^n, mod hashP, by doubling over
// the bits of n from the lowest: with G(j) = 1 + … + y^(j-1), the blocks
// G(2^k) and y^(2^k) follow from G(2^(k+1)) = G(2^k)·(1 + y^(2^k)), and a
// set bit k appends its block to the result, G(m + 2^k) = G(m) + y^m·G(2^k).
// Only the squaring of y^(2^k) is on the critical path, one product per bit.
func geomPow(y, n uint64) (g, p uint64) {
	p = 1
	gk, yk := uint64(1), y // G(2^k), y^(2^k)
	for {
		// without a branch on the bit, which would be mispredicted half
		// the time: mask is all ones for a set bit, else zero
		mask := -(n & 1)
		g = addModP(g, mulModP(p, gk)&mask)
		p = mulModP(p, yk&mask|1&^mask)
		if n >>= 1; n == 0 {
			return g, p
		}
		gk = mulModP(gk, addModP(1, yk))
		yk = mulModP(yk, yk)
	}
}

// mulModP is a·b mod 2^61-1 for a, b < 2^61-1. As 2^61 ≡ 1, the 122-bit
// product folds into its low 61 bits plus the bits above them.
func mulModP(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	r := lo&hashP + (lo>>61 | hi<<3)
	if r >= hashP {
		r -= hashP
	}
	return r
}

func addModP(a, b uint64) uint64 {
	r := a + b
	if r >= hashP {
		r -= hashP
	}
	return r
}
