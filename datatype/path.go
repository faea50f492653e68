package datatype

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Path names one basic element of a buffer by the constructor tree: at each
// level the type and the indices that choose a child. Its text form is
//
//	[3]s_type(STRUCT)[2][5](CHAR)
//
// read as: instance 3 of the buffer (only when the count is above one),
// child 2 of struct s_type, element 5 of that block, a CHAR. The indices a
// level takes depend on its constructor: contiguous [elem]; vector,
// hvector, indexed, hindexed, indexed_block, hindexed_block and struct
// [block][elem]; subarray and darray one index per dimension, counted in
// the sub-block, in argument order; a pair type such as DOUBLE_INT [field];
// resized and dup none. A named level is preceded by "." when it follows
// an index. The short form leaves out combiners, the leaf and inner names:
// "s_type[2][5]" or just "[2][5]"; Parse reads both, Type.Resolve checks
// whatever was written against the type. Fortran programs get the
// Fortran form, indices from 1 in one list per level (path_fortran.go),
// which Parse and Resolve take too.
type Path struct {
	Rep   int64 // instance in the buffer, -1 when not given
	Steps []Step
	Basic Basic // the element's type; BasicInvalid when a parsed path leaves it out
}

// Step is one level of a Path.
type Step struct {
	Name     string   // the type's name; "" when unnamed or not written
	Combiner Combiner // CombinerNamed with Pair set for a pair type
	Pair     Basic    // the pair type, when Combiner is CombinerNamed
	Index    []int64
	known    bool // Combiner is set: taken from a type, or written in the text

	// the Fortran form (path_fortran.go)
	fortran bool    // Index was written in Fortran form: from 1, a grid level's as the whole array's
	array   []int64 // a grid level's element in the whole array, from 0, in argument order
	order   Order   // a grid level's storage order
	shape   []int64 // a grid level's whole array, in argument order
}

// String prints the long form; a path parsed from the Fortran form prints
// in that form.
func (p Path) String() string {
	if slices.ContainsFunc(p.Steps, func(s Step) bool { return s.fortran }) {
		return p.Fortran()
	}
	var b strings.Builder
	if p.Rep >= 0 {
		fmt.Fprintf(&b, "[%d]", p.Rep)
	}
	for k := range p.Steps {
		s := p.writeHead(&b, k, '.')
		for _, i := range s.Index {
			fmt.Fprintf(&b, "[%d]", i)
		}
	}
	if p.Basic.Valid() {
		b.WriteString("(" + p.Basic.String() + ")")
	}
	return b.String()
}

// writeHead writes step k's name, after sep when it follows an index,
// and its combiner, for the long and the Fortran form; it returns the
// step.
func (p Path) writeHead(b *strings.Builder, k int, sep byte) Step {
	s := p.Steps[k]
	if s.Name != "" && isIdent(s.Name) {
		if prev := p.Steps[max(k-1, 0)]; k > 0 && len(prev.Index) > 0 && (prev.Name != "" || prev.known) {
			b.WriteByte(sep)
		}
		b.WriteString(s.Name)
	}
	switch {
	case !s.known:
	case s.Combiner == CombinerNamed:
		b.WriteString("(" + s.Pair.String() + ")")
	default:
		b.WriteString("(" + s.Combiner.String() + ")")
	}
	return s
}

// Short prints the short form: the top name and all indices.
func (p Path) Short() string {
	var b strings.Builder
	if p.Rep >= 0 {
		fmt.Fprintf(&b, "[%d]", p.Rep)
	}
	if len(p.Steps) > 0 && isIdent(p.Steps[0].Name) {
		b.WriteString(p.Steps[0].Name)
	}
	for _, s := range p.Steps {
		for _, i := range s.Index {
			fmt.Fprintf(&b, "[%d]", i)
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// PathError reports a malformed path text, with the byte offset.
type PathError struct {
	Text   string
	Offset int
	Msg    string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("path %q at offset %d: %s", e.Text, e.Offset, e.Msg)
}

// ParsePath reads a path in the long or the short form, or in the
// Fortran form (path_fortran.go).
func ParsePath(s string) (Path, error) {
	p := Path{Rep: -1}
	i := 0
	fail := func(msg string) (Path, error) { return Path{}, &PathError{Text: s, Offset: i, Msg: msg} }
	var cur *Step
	newStep := func() *Step {
		p.Steps = append(p.Steps, Step{})
		return &p.Steps[len(p.Steps)-1]
	}
	for i < len(s) {
		if p.Basic.Valid() {
			return fail("nothing may follow the element type")
		}
		switch c := s[i]; {
		case c == '.' || c == '%':
			i++
			if i >= len(s) || !(s[i] == '_' || isLetter(s[i])) {
				return fail(strconv.QuoteRune(rune(c)) + " must be followed by a type name")
			}
		case c == '(' && isFortranGroup(s[i+1:]):
			j := strings.IndexByte(s[i:], ')')
			if j < 0 {
				return fail("unclosed '('")
			}
			idx, ok := fortranGroup(s[i+1 : i+j])
			if !ok {
				return fail("index list " + strconv.Quote(s[i+1:i+j]) + " is not integers separated by ','")
			}
			if cur == nil || len(cur.Index) > 0 {
				cur = newStep()
			}
			cur.Index, cur.fortran = idx, true
			i += j + 1
		case c == '_' || isLetter(c):
			j := i
			for j < len(s) && (s[j] == '_' || isLetter(s[j]) || '0' <= s[j] && s[j] <= '9') {
				j++
			}
			cur = newStep()
			cur.Name = s[i:j]
			i = j
		case c == '(':
			j := strings.IndexByte(s[i:], ')')
			if j < 0 {
				return fail("unclosed '('")
			}
			word := s[i+1 : i+j]
			if comb, ok := ParseCombiner(word); ok && comb != CombinerNamed {
				if cur == nil || cur.known || len(cur.Index) > 0 {
					cur = newStep()
				}
				cur.Combiner, cur.known = comb, true
			} else if b, ok := ParseBasic(word); ok {
				rest := s[i+j+1:]
				if b.IsPair() && (strings.HasPrefix(rest, "[") || strings.HasPrefix(rest, "(") && isFortranGroup(rest[1:])) {
					if cur == nil || cur.known || len(cur.Index) > 0 {
						cur = newStep()
					}
					cur.Combiner, cur.Pair, cur.known = CombinerNamed, b, true
				} else if rest == "" {
					p.Basic = b
				} else {
					return fail("element type " + word + " must come last")
				}
			} else {
				return fail("unknown combiner or type " + strconv.Quote(word))
			}
			i += j + 1
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return fail("unclosed '['")
			}
			v, err := strconv.ParseInt(strings.TrimSpace(s[i+1:i+j]), 10, 64)
			if err != nil || v < 0 {
				return fail("index " + strconv.Quote(s[i+1:i+j]) + " is not a non-negative integer")
			}
			if cur == nil || cur.fortran {
				cur = newStep()
			}
			cur.Index = append(cur.Index, v)
			i += j + 1
		default:
			return fail("unexpected " + strconv.QuoteRune(rune(c)))
		}
	}
	if len(p.Steps) == 0 && !p.Basic.Valid() {
		return Path{}, &PathError{Text: s, Msg: "empty path"}
	}
	f := slices.ContainsFunc(p.Steps, func(s Step) bool { return s.fortran })
	if f && slices.ContainsFunc(p.Steps, func(s Step) bool { return !s.fortran && len(s.Index) > 0 }) {
		return Path{}, &PathError{Text: s, Msg: "indices in both forms, [i][j] from 0 and (i,j) from 1"}
	}
	return p, nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// ErrPathMismatch is wrapped when a path does not fit the type.
var ErrPathMismatch = errors.New("path does not fit the type")

// Resolve finds the element a path names in a buffer of count instances of
// t. Names, combiners and the element type are checked when the path gives
// them. With count above one the first index chooses the instance.
func (t *Type) Resolve(count int64, p Path) (Element, error) {
	type tok struct {
		head    *Step // a step's name or combiner
		index   int64
		fortran bool // index is in Fortran form (path_fortran.go)
	}
	var toks []tok
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Name != "" || s.known {
			toks = append(toks, tok{head: s})
		}
		for _, v := range s.Index {
			toks = append(toks, tok{index: v, fortran: s.fortran})
		}
	}
	bad := func(format string, args ...any) (Element, error) {
		return Element{}, fmt.Errorf("%s: %s: %w", p, fmt.Sprintf(format, args...), ErrPathMismatch)
	}
	el := Element{}
	el.Path.Rep = -1
	pos := 0
	rep := int64(0)
	if len(toks) > 0 && toks[0].head == nil && (count > 1 || len(toks) > 1 && toks[1].head != nil && matches(toks[1].head, t)) {
		rep = toks[0].index
		if toks[0].fortran {
			rep--
		}
		pos = 1
		if rep < 0 || rep >= count {
			return bad("instance %d of a buffer of %d", toks[0].index, count)
		}
		if count > 1 {
			el.Path.Rep = rep
		}
	} else if count > 1 {
		el.Path.Rep = 0
	}
	el.Offset, el.Index, el.Packed = rep*t.Extent(), rep*t.nelem, rep*t.size
	cur := t
	ok := true
	for !cur.leaf() {
		k := cur.kids
		if pos < len(toks) && toks[pos].head != nil {
			if matches(toks[pos].head, cur) {
				pos++
			} else if k.arity() > 0 {
				return bad("names %s where the type is %s", headString(toks[pos].head), level(cur))
			}
		}
		idx := make([]int64, 0, k.arity())
		fortran := pos < len(toks) && toks[pos].fortran
		for len(idx) < k.arity() {
			if pos >= len(toks) {
				return bad("%s needs %d indices, the path gives %d", level(cur), k.arity(), len(idx))
			}
			if toks[pos].head != nil {
				return bad("%s needs %d indices before %s", level(cur), k.arity(), headString(toks[pos].head))
			}
			idx = append(idx, toks[pos].index)
			pos++
		}
		given := idx // as written, for the message
		if fortran {
			if idx, ok = fromFortran(cur, idx); !ok {
				return bad("index %v is out of range for %s", given, level(cur))
			}
		}
		var i, j int64
		if i, j, ok = k.block(idx); !ok {
			return bad("index %v is out of range for %s", given, level(cur))
		}
		disp, _, c := k.at(i)
		el.Path.Steps = append(el.Path.Steps, stepOf(cur, idx))
		el.Offset += disp + j*c.Extent()
		el.Index += k.before(i, byElements) + j*c.nelem
		el.Packed += k.before(i, byBytes) + j*c.size
		cur = c
	}
	if pos < len(toks) {
		return bad("%d more indices or names than the type has levels", len(toks)-pos)
	}
	if cur.Basic.IsMarker() {
		return bad("names an MPI_%s marker, which holds no data", cur.Basic)
	}
	if p.Basic.Valid() && p.Basic != cur.Basic {
		return bad("names %s where the element is %s", p.Basic, cur.Basic)
	}
	el.Basic, el.Path.Basic = cur.Basic, cur.Basic
	return el, nil
}

// level names one level of a type for messages: "s_type(STRUCT)", or
// "(VECTOR)" when unnamed, or "(DOUBLE_INT)" for a pair type.
func level(t *Type) string {
	if t.Combiner == CombinerNamed {
		return "(" + t.Basic.String() + ")"
	}
	return t.Name + "(" + t.Combiner.String() + ")"
}

func matches(s *Step, t *Type) bool {
	if s.Name != "" && s.Name != t.Name && !(t.Combiner == CombinerNamed && s.Name == t.Basic.String()) {
		return false
	}
	if s.known {
		if t.Combiner != s.Combiner || (s.Combiner == CombinerNamed && s.Pair != t.Basic) {
			return false
		}
	}
	return true
}

func headString(s *Step) string {
	if s.known && s.Combiner == CombinerNamed {
		return s.Name + "(" + s.Pair.String() + ")"
	}
	if s.known {
		return s.Name + "(" + s.Combiner.String() + ")"
	}
	return s.Name
}
