package datatype

import (
	"fmt"
	"strconv"
	"strings"
)

// Constructor expressions: a one-line text form of a type's constructor
// tree, read by ParseExpr and written by Type.Expr. Whitespace is ignored
// and names are case-insensitive; predefined names may carry an "MPI_"
// prefix. A type is one of
//
//	contiguous(COUNT, T)
//	vector(COUNT, BLOCKLEN, STRIDE, T)
//	hvector(COUNT, BLOCKLEN, STRIDE_BYTES, T)
//	indexed([BL,...], [DISP,...], T)
//	hindexed([BL,...], [DISP_BYTES,...], T)
//	indexed_block(BL, [DISP,...], T)
//	hindexed_block(BL, [DISP_BYTES,...], T)
//	struct([BL,...], [DISP_BYTES,...], [T,...])
//	subarray([SIZES], [SUBSIZES], [STARTS], C|FORTRAN, T)
//	darray(SIZE, RANK, [GSIZES], [BLOCK|CYCLIC|NONE,...], [DARG|DFLT,...], [PSIZES], C|FORTRAN, T)
//	resized(LB, EXTENT, T)
//	dup(T)
//	PREDEFINED_NAME                     e.g. INT, MPI_DOUBLE_INT, LB
//	name=T                              a derived type named name
//
// for example "s_type=struct([1,2],[0,8],[INT,vector(2,1,3,CHAR)])".

// ExprError reports a constructor expression that does not parse or whose
// constructor rejects its arguments (then Err is the *ArgError).
type ExprError struct {
	Text   string
	Offset int // byte offset of the problem in Text
	Msg    string
	Err    error
}

func (e *ExprError) Error() string {
	return fmt.Sprintf("expr %q at offset %d: %s", e.Text, e.Offset, e.Msg)
}

func (e *ExprError) Unwrap() error { return e.Err }

// ParseExpr builds the type a constructor expression describes, as
// MPICH would (Struct's padding rule).
func ParseExpr(s string) (t *Type, err error) { return parseExpr(s, false) }

// parseExpr is ParseExpr with, when padded, StructPadded's rule (Open
// MPI's) for structs.
func parseExpr(s string, padded bool) (t *Type, err error) {
	p := &exprParser{s: s, padded: padded}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*ExprError)
			if !ok {
				panic(r)
			}
			t, err = nil, e
		}
	}()
	t = p.typ()
	if p.skip(); p.pos < len(s) {
		p.fail(p.pos, "unexpected %q after the type", s[p.pos:])
	}
	return t, nil
}

// exprParser is a recursive-descent parser; it reports the first error by
// panicking with an *ExprError, which ParseExpr recovers.
type exprParser struct {
	s      string
	pos    int
	padded bool // structs as StructPadded builds them
	depth  int  // constructors open around the one being read
}

// maxExprDepth bounds how deep constructors nest in an expression. A
// program's types nest a few levels; a text nested thousands deep costs
// time and memory that grow faster than its length in everything that
// walks the tree, and the recursion's stack with it.
const maxExprDepth = 256

func (p *exprParser) fail(at int, format string, args ...any) {
	panic(&ExprError{Text: p.s, Offset: at, Msg: fmt.Sprintf(format, args...)})
}

func (p *exprParser) skip() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

// peek reports whether the next character is c, and consumes it if so.
func (p *exprParser) peek(c byte) bool {
	if p.skip(); p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *exprParser) expect(c byte) {
	if !p.peek(c) {
		p.fail(p.pos, "expected %q", c)
	}
}

// word reads a run of letters, digits and underscores ("2INT" is a word).
func (p *exprParser) word() (string, int) {
	p.skip()
	start := p.pos
	for p.pos < len(p.s) && (p.s[p.pos] == '_' || isLetter(p.s[p.pos]) || '0' <= p.s[p.pos] && p.s[p.pos] <= '9') {
		p.pos++
	}
	if p.pos == start {
		p.fail(start, "expected a name")
	}
	return p.s[start:p.pos], start
}

func (p *exprParser) int() int64 {
	p.skip()
	start := p.pos
	if p.pos < len(p.s) && (p.s[p.pos] == '-' || p.s[p.pos] == '+') {
		p.pos++
	}
	for p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
		p.pos++
	}
	v, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
	if err != nil {
		p.fail(start, "expected an integer")
	}
	return v
}

// list reads "[X, ...]" calling item for each X.
func (p *exprParser) list(item func()) {
	p.expect('[')
	if p.peek(']') {
		return
	}
	for {
		item()
		if !p.peek(',') {
			break
		}
	}
	p.expect(']')
}

func (p *exprParser) ints() []int64 {
	var v []int64
	p.list(func() { v = append(v, p.int()) })
	return v
}

// keyword reads a word and returns its upper-case form without any of the
// given prefixes.
func (p *exprParser) keyword(prefixes ...string) (string, int) {
	w, at := p.word()
	w = upper(w)
	for _, pre := range prefixes {
		w = strings.TrimPrefix(w, pre)
	}
	return w, at
}

func (p *exprParser) order() Order {
	switch w, at := p.keyword("MPI_", "ORDER_"); w {
	case "C":
		return OrderC
	case "FORTRAN":
		return OrderFortran
	default:
		p.fail(at, "order %s is not C or FORTRAN", w)
	}
	return 0
}

func (p *exprParser) distrib() Distrib {
	w, at := p.keyword("MPI_", "DISTRIBUTE_")
	for d := DistribBlock; d <= DistribNone; d++ {
		if w == d.String() {
			return d
		}
	}
	p.fail(at, "distribution %s is not BLOCK, CYCLIC or NONE", w)
	return 0
}

func (p *exprParser) darg() int64 {
	p.skip()
	if p.pos < len(p.s) && isLetter(p.s[p.pos]) {
		if w, at := p.keyword("MPI_", "DISTRIBUTE_"); w != "DFLT" && w != "DFLT_DARG" {
			p.fail(at, "darg %s is not an integer or DFLT", w)
		}
		return DargDefault
	}
	return p.int()
}

// typ reads a type: a predefined name, name=T, or a constructor call.
func (p *exprParser) typ() *Type {
	w, at := p.word()
	if p.peek('=') {
		p.enter(at)
		defer p.leave()
		if !isIdent(w) {
			p.fail(at, "%s is not a valid type name", w)
		}
		t := p.typ()
		if t.IsPredefined() {
			p.fail(at, "predefined type %s cannot be renamed", t.Name)
		}
		return t.SetName(w)
	}
	if !p.peek('(') {
		b, ok := ParseBasic(w)
		if !ok {
			p.fail(at, "unknown type %s", w)
		}
		return Predefined(b)
	}
	p.enter(at)
	defer p.leave()
	t, err := p.call(strings.ToLower(w), at)
	if err != nil {
		panic(&ExprError{Text: p.s, Offset: at, Msg: err.Error(), Err: err})
	}
	p.expect(')')
	return t
}

// enter and leave count the constructors (and names) open around the
// type being read.
func (p *exprParser) enter(at int) {
	if p.depth++; p.depth > maxExprDepth {
		p.fail(at, "constructors nested more than %d deep", maxExprDepth)
	}
}

func (p *exprParser) leave() { p.depth-- }

// call reads the arguments of constructor fn, up to the closing
// parenthesis, and calls it.
func (p *exprParser) call(fn string, at int) (*Type, error) {
	comma := func() { p.expect(',') }
	switch fn {
	case "contiguous":
		n := p.int()
		comma()
		return Contiguous(n, p.typ())
	case "vector", "hvector":
		n := p.int()
		comma()
		bl := p.int()
		comma()
		stride := p.int()
		comma()
		if fn == "vector" {
			return Vector(n, bl, stride, p.typ())
		}
		return Hvector(n, bl, stride, p.typ())
	case "indexed", "hindexed":
		bls := p.ints()
		comma()
		disps := p.ints()
		comma()
		if fn == "indexed" {
			return Indexed(bls, disps, p.typ())
		}
		return Hindexed(bls, disps, p.typ())
	case "indexed_block", "hindexed_block":
		bl := p.int()
		comma()
		disps := p.ints()
		comma()
		if fn == "indexed_block" {
			return IndexedBlock(bl, disps, p.typ())
		}
		return HindexedBlock(bl, disps, p.typ())
	case "struct":
		bls := p.ints()
		comma()
		disps := p.ints()
		comma()
		var types []*Type
		p.list(func() { types = append(types, p.typ()) })
		if p.padded {
			return StructPadded(bls, disps, types)
		}
		return Struct(bls, disps, types)
	case "subarray":
		sizes := p.ints()
		comma()
		subsizes := p.ints()
		comma()
		starts := p.ints()
		comma()
		order := p.order()
		comma()
		return Subarray(sizes, subsizes, starts, order, p.typ())
	case "darray":
		size := p.int()
		comma()
		rank := p.int()
		comma()
		gsizes := p.ints()
		comma()
		var distribs []Distrib
		p.list(func() { distribs = append(distribs, p.distrib()) })
		comma()
		var dargs []int64
		p.list(func() { dargs = append(dargs, p.darg()) })
		comma()
		psizes := p.ints()
		comma()
		order := p.order()
		comma()
		return Darray(size, rank, gsizes, distribs, dargs, psizes, order, p.typ())
	case "resized":
		lb := p.int()
		comma()
		extent := p.int()
		comma()
		return Resized(lb, extent, p.typ())
	case "dup":
		return Dup(p.typ())
	}
	p.fail(at, "unknown constructor %s", fn)
	return nil, nil
}

// Expr prints t as a constructor expression that ParseExpr reads back into
// an identical type. Names that are not identifiers are left out.
func (t *Type) Expr() string {
	if t.IsPredefined() {
		return t.Basic.String()
	}
	var args []string
	add := func(a ...string) { args = append(args, a...) }
	switch t.Combiner {
	case CombinerContiguous:
		add(itoa(t.Count))
	case CombinerVector, CombinerHvector:
		add(itoa(t.Count), itoa(t.BlockLen), itoa(t.Stride))
	case CombinerIndexed, CombinerHindexed:
		add(exprList(t.BlockLens, itoa), exprList(t.Disps, itoa))
	case CombinerIndexedBlock, CombinerHindexedBlock:
		add(itoa(t.BlockLen), exprList(t.Disps, itoa))
	case CombinerStruct:
		add(exprList(t.BlockLens, itoa), exprList(t.Disps, itoa), exprList(t.Types, (*Type).Expr))
	case CombinerSubarray:
		add(exprList(t.Sizes, itoa), exprList(t.Subsizes, itoa), exprList(t.Starts, itoa), t.Order.String())
	case CombinerDarray:
		add(itoa(t.Size), itoa(t.Rank), exprList(t.Gsizes, itoa), exprList(t.Distribs, Distrib.String),
			exprList(t.Dargs, dargString), exprList(t.Psizes, itoa), t.Order.String())
	case CombinerResized:
		add(itoa(t.ResizedLB), itoa(t.ResizedExtent))
	}
	if t.Old != nil {
		add(t.Old.Expr())
	}
	call := strings.ToLower(t.Combiner.String()) + "(" + strings.Join(args, ",") + ")"
	if isIdent(t.Name) {
		return t.Name + "=" + call
	}
	return call
}

func exprList[T any](v []T, str func(T) string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = str(x)
	}
	return "[" + strings.Join(s, ",") + "]"
}

func dargString(d int64) string {
	if d == DargDefault {
		return "DFLT"
	}
	return itoa(d)
}
