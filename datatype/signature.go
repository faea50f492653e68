package datatype

import (
	"strconv"
	"strings"
)

// A type signature is the sequence of basic types of a type map, without
// displacements (MPI-4.1 §5.1.1); two operations match when their
// signatures do (§3.3.1, §5.1.11). Sig holds one in regular form: a list of
// items, each either a run of one basic type or a body repeated a number of
// times. Signatures follow the constructor tree, so a million-element array
// of structs is one repeated item and never materialised.
//
// Building normalises as it goes: adjacent runs of one type merge, a
// repeated body is reduced to its primitive root ((A B A B)*3 = (A B)*6),
// adjacent repetitions of equal bodies merge, and copies of a body next to
// its repetition are absorbed. Equal signatures built through the same
// repetition structure therefore have equal forms, and MatchSig skips equal
// repetitions in one step. Equal signatures can still have different forms
// (a repetition rotated against its neighbours: A (B A)*2 versus (A B)*2 A);
// MatchSig is exact regardless, because it compares element by element
// wherever the forms differ.
type Sig struct {
	items        []sigItem
	elems, bytes int64
}

type sigItem struct {
	basic Basic // a run of count elements of basic, when body is nil
	count int64
	body  *Sig // else body repeated count times
}

// Run is count consecutive elements of one basic type; a list of maximal
// runs is the compressed form of a signature.
type Run struct {
	Basic Basic
	Count int64
}

// NumElements is the number of basic elements the signature holds.
func (s *Sig) NumElements() int64 { return s.elems }

// Size is the number of bytes the signature's data occupies when packed.
func (s *Sig) Size() int64 { return s.bytes }

// Signature returns t's signature in regular form. It is computed once per
// type and shared, so that equal bodies are usually the same pointer.
func (t *Type) Signature() *Sig {
	t.sigOnce.Do(func() { t.sig = t.buildSig() })
	return t.sig
}

func (t *Type) buildSig() *Sig {
	if t.Combiner == CombinerNamed {
		if t.Basic.IsMarker() {
			return &Sig{}
		}
		if t.Basic.IsPair() {
			f, _ := t.Basic.Fields()
			return concatSig(runSig(f[0], 1), runSig(f[1], 1))
		}
		return runSig(t.Basic, 1)
	}
	switch k := t.kids.(type) {
	case *stridedKids:
		return repeatSig(k.old.Signature(), k.count*k.blockLen)
	case *gridKids:
		return repeatSig(k.old.Signature(), t.nelem/max(k.old.nelem, 1))
	case *listKids:
		s := &Sig{}
		for i, n := range k.counts {
			s = concatSig(s, repeatSig(k.child(int64(i)).Signature(), n))
		}
		return s
	}
	panic("datatype: unknown layout")
}

func runSig(b Basic, n int64) *Sig {
	if n == 0 {
		return &Sig{}
	}
	return &Sig{items: []sigItem{{basic: b, count: n}}, elems: n, bytes: n * b.Size()}
}

// repeatSig is s repeated n times, in normal form.
func repeatSig(s *Sig, n int64) *Sig {
	switch {
	case n == 0 || len(s.items) == 0:
		return &Sig{}
	case n == 1:
		return s
	case len(s.items) == 1:
		it := s.items[0]
		it.count *= n
		return &Sig{items: []sigItem{it}, elems: s.elems * n, bytes: s.bytes * n}
	}
	body, k := primitiveRoot(s)
	return &Sig{items: []sigItem{{count: n * k, body: body}}, elems: s.elems * n, bytes: s.bytes * n}
}

// primitiveRoot writes s as body repeated k times with the shortest body.
func primitiveRoot(s *Sig) (*Sig, int64) {
	n := len(s.items)
outer:
	for p := 1; p <= n/2; p++ {
		if n%p != 0 {
			continue
		}
		for i := p; i < n; i++ {
			if !s.items[i].equal(&s.items[i-p]) {
				continue outer
			}
		}
		b := &Sig{items: s.items[:p:p], elems: s.elems / int64(n/p), bytes: s.bytes / int64(n/p)}
		return b, int64(n / p)
	}
	return s, 1
}

// maxAbsorb bounds how far back concatSig looks for a repetition whose body
// the items just appended complete; it keeps building linear.
const maxAbsorb = 16

// concatSig is a followed by b, in normal form.
func concatSig(a, b *Sig) *Sig {
	if len(a.items) == 0 {
		return b
	}
	if len(b.items) == 0 {
		return a
	}
	out := &Sig{items: append(make([]sigItem, 0, len(a.items)+len(b.items)), a.items...), elems: a.elems + b.elems, bytes: a.bytes + b.bytes}
	for _, it := range b.items {
		out.push(it)
	}
	return out
}

func (s *Sig) push(it sigItem) {
	n := len(s.items)
	if n > 0 {
		last := &s.items[n-1]
		switch {
		case it.body == nil && last.body == nil && last.basic == it.basic:
			last.count += it.count
			s.absorb()
			return
		case it.body != nil && last.body != nil && last.body.equal(it.body):
			last.count += it.count
			return
		case it.body != nil && n >= len(it.body.items) && itemsEqual(s.items[n-len(it.body.items):], it.body.items):
			// a copy of the body right before its repetition
			s.items = s.items[:n-len(it.body.items)]
			it.count++
			s.push(it)
			return
		}
	}
	s.items = append(s.items, it)
	s.absorb()
}

// absorb folds a copy of a repetition's body that now ends the list into
// the repetition: (A B)*3 A B becomes (A B)*4.
func (s *Sig) absorb() {
	n := len(s.items)
	for k := 1; k <= maxAbsorb && k < n; k++ {
		r := &s.items[n-1-k]
		if r.body != nil && len(r.body.items) == k && itemsEqual(s.items[n-k:], r.body.items) {
			r.count++
			s.items = s.items[:n-k]
			return
		}
	}
}

func (it *sigItem) equal(o *sigItem) bool {
	if it.count != o.count || (it.body == nil) != (o.body == nil) {
		return false
	}
	if it.body == nil {
		return it.basic == o.basic
	}
	return it.body.equal(o.body)
}

func itemsEqual(a, b []sigItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].equal(&b[i]) {
			return false
		}
	}
	return true
}

// equal reports whether two signatures have the same regular form.
func (s *Sig) equal(o *Sig) bool {
	if s == o {
		return true
	}
	return s.elems == o.elems && s.bytes == o.bytes && itemsEqual(s.items, o.items)
}

// Equal reports whether s and o hold the same sequence of basic types.
func (s *Sig) Equal(o *Sig) bool {
	return s.equal(o) || MatchSig(s, 1, o, 1).Kind == Match
}

// Runs returns the compressed form: the maximal runs of one basic type, in
// order. It materialises one run per change of type, so it can be large.
func (s *Sig) Runs() []Run {
	var out []Run
	s.appendRuns(&out, 1)
	return out
}

func (s *Sig) appendRuns(out *[]Run, times int64) {
	for r := int64(0); r < times; r++ {
		for _, it := range s.items {
			if it.body != nil {
				it.body.appendRuns(out, it.count)
				continue
			}
			if n := len(*out); n > 0 && (*out)[n-1].Basic == it.basic {
				(*out)[n-1].Count += it.count
			} else {
				*out = append(*out, Run{it.basic, it.count})
			}
		}
	}
}

// Compressed builds a flat signature from runs, with no repetitions: the
// compressed typesig, for comparison with the regular form.
func Compressed(runs []Run) *Sig {
	s := &Sig{}
	for _, r := range runs {
		if r.Count == 0 {
			continue
		}
		s.elems += r.Count
		s.bytes += r.Count * r.Basic.Size()
		if n := len(s.items); n > 0 && s.items[n-1].body == nil && s.items[n-1].basic == r.Basic {
			s.items[n-1].count += r.Count
		} else {
			s.items = append(s.items, sigItem{basic: r.Basic, count: r.Count})
		}
	}
	return s
}

// String prints the regular form: runs as TYPE*count, repetitions as
// (body)*count, e.g. "INT*5 CHAR*7 DOUBLE*2" or "(INT DOUBLE*3)*100".
func (s *Sig) String() string {
	var b strings.Builder
	s.write(&b)
	return b.String()
}

func (s *Sig) write(b *strings.Builder) {
	for i, it := range s.items {
		if i > 0 {
			b.WriteByte(' ')
		}
		if it.body != nil {
			b.WriteByte('(')
			it.body.write(b)
			b.WriteString(")*" + strconv.FormatInt(it.count, 10))
			continue
		}
		b.WriteString(it.basic.String())
		if it.count != 1 {
			b.WriteString("*" + strconv.FormatInt(it.count, 10))
		}
	}
}
