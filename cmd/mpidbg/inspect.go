package main

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/pretty"
	"github.com/spf13/pflag"
)

var inspectCommand = &command{
	name:    "inspect",
	args:    "EXPR",
	summary: "show an MPI datatype: bounds, trees, type map, element paths, matching",
	about: `Builds the datatype the constructor expression EXPR describes and shows it.
Without flags it prints a summary, the constructor tree and the first --limit
elements of the type map. View flags choose what to print instead; queries
(--path, --element, --offset, --match) answer one question each. Offsets are
bytes from the buffer start (the pointer passed to MPI).

EXPR is a predefined type (INT, MPI_DOUBLE, DOUBLE_INT, LB, ...), NAME=EXPR
to name a derived type, or a constructor call:
  contiguous(COUNT, T)                  vector(COUNT, BLOCKLEN, STRIDE, T)
  hvector(COUNT, BLOCKLEN, BYTES, T)    indexed([BL,...], [DISP,...], T)
  hindexed([BL,...], [BYTES,...], T)    indexed_block(BL, [DISP,...], T)
  hindexed_block(BL, [BYTES,...], T)    struct([BL,...], [BYTES,...], [T,...])
  subarray([SIZES], [SUBSIZES], [STARTS], C|FORTRAN, T)
  darray(SIZE, RANK, [GSIZES], [BLOCK|CYCLIC|NONE,...], [DARG|DFLT,...], [PSIZES], C|FORTRAN, T)
  resized(LB, EXTENT, T)                dup(T)

Examples:
  mpidbg inspect 's_type=struct([1,5,7,2,1],[-4,0,47,76,100],[LB,INT,CHAR,DOUBLE,UB])'
  mpidbg inspect --path 's_type[2][5]' 's_type=struct(...)'
  mpidbg inspect --count 2 --offset 150 's_type=struct(...)'
  mpidbg inspect --match 'contiguous(10,INT)' 'vector(2,5,3,INT)'

Exit status: 1 when --match finds that the receiver's type does not
match the sender's (a mismatch, or a message that does not fit: truncated;
a message shorter than the receive buffer, legal for point-to-point, is
0); 2 for bad input; else 0.`,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error {
		in := &inspect{fs: fs}
		fs.BoolVar(&in.signature, "signature", false, "print the type signature in regular form")
		fs.BoolVar(&in.tree, "tree", false, "print the constructor tree, one node per datatype")
		fs.BoolVar(&in.expanded, "expanded", false, "print the instance tree down to the basic elements (at most --limit nodes)")
		fs.BoolVar(&in.typemap, "typemap", false, "print the type map (the first --limit elements)")
		fs.BoolVar(&in.layout, "layout", false, "print the bytes the data occupies: strided blocks and the block list (first --limit blocks)")
		fs.Int64Var(&in.count, "count", 1, "inspect a buffer of `N` instances of the type")
		fs.IntVar(&in.limit, "limit", 32, "print at most `N` type-map elements or tree nodes")
		fs.StringVar(&in.path, "path", "", "locate the element a `PATH` names, e.g. 's_type[2][5]' or '[1]s_type(STRUCT)[2][5](CHAR)'")
		fs.Int64Var(&in.element, "element", 0, "locate element number `I` (type-map order, from 0)")
		fs.Int64Var(&in.offset, "offset", 0, "find the element covering byte `B` of the buffer")
		fs.StringVar(&in.match, "match", "", "compare the signature of EXPR (the sender) with that of `EXPR2` (the receiver)")
		fs.Int64Var(&in.sendCount, "send-count", 0, "with --match: `N` instances of EXPR sent (default: --count)")
		fs.Int64Var(&in.recvCount, "recv-count", 1, "with --match: `N` instances of EXPR2 received")
		return in.run
	},
}

// inspect holds the flags of the inspect command.
type inspect struct {
	fs                                 *pflag.FlagSet
	signature, tree, expanded, typemap bool
	layout                             bool
	count, element, offset             int64
	sendCount, recvCount               int64
	limit                              int
	path, match                        string
}

func (in *inspect) run(o *output, args []string) error {
	switch {
	case len(args) == 0:
		return &usageError{cmd: "inspect", msg: "missing the type expression EXPR", hint: true}
	case len(args) > 1:
		return &usageError{cmd: "inspect", msg: fmt.Sprintf("want one type expression, got %d arguments (quote the expression)", len(args)), hint: true}
	case in.count < 1:
		return badInput("inspect", "--count %d: want at least 1", in.count)
	case in.limit < 0:
		return badInput("inspect", "--limit %d: want at least 0", in.limit)
	case in.limit > maxInspectLimit:
		// each line is built in memory before any is printed
		return badInput("inspect", "--limit %d: at most %d", in.limit, maxInspectLimit)
	case in.sendCount < 0:
		return badInput("inspect", "--send-count %d: want at least 0", in.sendCount)
	case in.recvCount < 0:
		return badInput("inspect", "--recv-count %d: want at least 0", in.recvCount)
	}
	t, err := parseExpr("", args[0])
	if err != nil {
		return err
	}
	if !in.fs.Changed("send-count") {
		in.sendCount = in.count
	}
	if err := checkSize("EXPR", t, max(in.count, in.sendCount)); err != nil {
		return err
	}
	var recv *datatype.Type
	matched := true // what --match found, for the exit status
	if in.fs.Changed("match") {
		if recv, err = parseExpr("--match", in.match); err != nil {
			return err
		}
		if err := checkSize("--match", recv, in.recvCount); err != nil {
			return err
		}
	} else if in.fs.Changed("send-count") || in.fs.Changed("recv-count") {
		return badInput("inspect", "--send-count and --recv-count need --match")
	}

	r := pretty.New(o.stdout, o.color) // the terminal's width; the text goes through o.out()
	var sections []section
	add := func(title, body string) { sections = append(sections, section{title, body}) }
	views := in.signature || in.tree || in.expanded || in.typemap || in.layout
	queries := in.fs.Changed("path") || in.fs.Changed("element") || in.fs.Changed("offset") || recv != nil
	if !views && !queries {
		add("", r.Summary(t, in.count))
		add("constructor tree", r.MetaTree(t.MetaTree()))
		add(in.typeMapTitle(t), r.TypeMap(t, in.count, in.limit))
	}
	if in.signature {
		add("signature", t.Signature().String())
	}
	if in.tree {
		add("constructor tree", r.MetaTree(t.MetaTree()))
	}
	if in.expanded {
		add("instance tree", r.ExpandedTree(t.ExpandedTree(in.count, in.limit)))
	}
	if in.typemap {
		add(in.typeMapTitle(t), r.TypeMap(t, in.count, in.limit))
	}
	if in.layout {
		add("layout", in.layoutView(r, t))
	}
	if in.fs.Changed("path") {
		p, err := datatype.ParsePath(in.path)
		if err != nil {
			var pe *datatype.PathError
			if errors.As(err, &pe) {
				return &usageError{cmd: "inspect", msg: "--path: " + pe.Msg, detail: caret(pe.Text, pe.Offset)}
			}
			return badInput("inspect", "--path: %v", err)
		}
		el, err := t.Resolve(in.count, p)
		if err != nil {
			return badInput("inspect", "--path: %v", err)
		}
		add("path "+in.path, r.Element(el))
	}
	if in.fs.Changed("element") {
		el, err := t.ElementAt(in.count, in.element)
		if err != nil {
			return badInput("inspect", "--element: %v", err)
		}
		add(fmt.Sprintf("element %d", in.element), r.Element(el))
	}
	if in.fs.Changed("offset") {
		title := fmt.Sprintf("byte %d", in.offset)
		if el, ok := t.ElementAtOffset(in.count, in.offset); ok {
			add(title, r.Element(el))
		} else {
			lo, hi := t.TrueLB(), (in.count-1)*t.Extent()+t.TrueUB()
			if t.Extent() < 0 {
				lo, hi = (in.count-1)*t.Extent()+t.TrueLB(), t.TrueUB()
			}
			add(title, fmt.Sprintf("no element covers byte %d (the data lies in bytes %d to %d)", in.offset, lo, hi-1))
		}
	}
	if recv != nil {
		m := datatype.MatchTypes(t, in.sendCount, recv, in.recvCount)
		// A prefix is legal for point-to-point (MPI-4.1 §3.2.4).
		matched = m.Kind == datatype.Match || m.Kind == datatype.Prefix
		var se, re *datatype.Element
		if m.Kind != datatype.Match {
			if el, err := t.ElementAtPacked(in.sendCount, m.Byte); err == nil {
				se = &el
			}
			if el, err := recv.ElementAtPacked(in.recvCount, m.Byte); err == nil {
				re = &el
			}
		}
		add(fmt.Sprintf("%d x %s sent, %d x %s received", in.sendCount, t.Label(), in.recvCount, recv.Label()), r.Match(m, se, re))
	}
	if err := writeSections(o, r, sections); err != nil {
		return err
	}
	if !matched {
		return exitStatus(1)
	}
	return nil
}

func (in *inspect) typeMapTitle(t *datatype.Type) string {
	total := t.NumElements() * in.count
	if int64(in.limit) >= total {
		return fmt.Sprintf("type map (%d elements)", total)
	}
	return fmt.Sprintf("type map (first %d of %d elements)", in.limit, total)
}

// maxBlocks bounds the block list --layout builds: Blocks expands the
// strided form, so a huge buffer shows the strided form alone.
const maxBlocks = 1 << 20

// maxInspectLimit bounds --limit: the report is built whole before it is
// printed, some hundreds of bytes per element or node.
const maxInspectLimit = 1000000

func (in *inspect) layoutView(r *pretty.Renderer, t *datatype.Type) string {
	strided := t.Strided(in.count)
	var n int64
	for _, s := range strided {
		n += s.NumBlocks()
	}
	var b strings.Builder
	b.WriteString(r.Heading("strided") + "\n" + r.Strided(strided) + "\n")
	if n > maxBlocks {
		fmt.Fprintf(&b, "\n%d blocks: too many to list", n)
		return b.String()
	}
	bs := t.Blocks(in.count)
	var data int64
	for _, x := range bs {
		data += x.End - x.Start
	}
	fmt.Fprintf(&b, "\n%s\n%s", r.Heading(fmt.Sprintf("blocks (%d, covering %d bytes)", len(bs), data)), r.Blocks(bs, in.limit))
	return b.String()
}

type section struct{ title, body string }

// writeSections prints the sections separated by blank lines, with their
// titles when there is more than one.
func writeSections(o *output, r *pretty.Renderer, sections []section) error {
	var b strings.Builder
	for i, s := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		if len(sections) > 1 && s.title != "" {
			b.WriteString(r.Heading(s.title) + "\n")
		}
		b.WriteString(s.body + "\n")
	}
	_, err := fmt.Fprint(o.out(), b.String())
	return err
}

// checkSize rejects a type whose element count, size or extent, times
// count, does not fit in 64 bits: nothing could be shown right for it.
func checkSize(what string, t *datatype.Type, count int64) error {
	n, size, ext := t.NumElements(), t.TypeSize(), t.Extent()
	lim := int64(math.MaxInt64) / max(count, 1)
	if n < 0 || size < 0 || n > lim || size > lim || ext > lim || ext < -lim {
		if count > 1 {
			return badInput("inspect", "%s: %d instances of %s are too large: the element count, size or extent overflows 64 bits", what, count, t.Label())
		}
		return badInput("inspect", "%s: %s is too large: its element count, size or extent overflows 64 bits", what, t.Label())
	}
	return nil
}

// parseExpr parses a type expression; flag names where it came from ("" for
// the argument).
func parseExpr(flag, s string) (*datatype.Type, error) {
	t, err := datatype.ParseExpr(s)
	if err == nil {
		return t, nil
	}
	what := "EXPR"
	if flag != "" {
		what = flag
	}
	var e *datatype.ExprError
	if errors.As(err, &e) {
		return nil, &usageError{cmd: "inspect", msg: fmt.Sprintf("%s: %s", what, e.Msg), detail: caret(e.Text, e.Offset)}
	}
	return nil, badInput("inspect", "%s: %v", what, err)
}

// caret shows text with a caret under byte offset at, both indented.
func caret(text string, at int) string {
	clean := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, text)
	at = max(0, min(at, len(clean)))
	return "  " + clean + "\n  " + strings.Repeat(" ", len([]rune(clean[:at]))) + "^"
}
