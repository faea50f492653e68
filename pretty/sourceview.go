package pretty

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"

	"github.com/mpidbg/mpidbg/checks"
)

// Drawing source lines under a finding, the way compilers show a
// diagnostic: the line with its number in a gutter, and under it the
// argument at fault marked ^^^^ with the parameter's name (or the call's
// name when no argument is), a related place's argument marked ----.
//
//	   11 | MPI_Sendrecv(&out, 1, t, right, 0, in, 5, MPI_DOUBLE, left, 0, comm, &st);
//	      |                       - sendtype          ^^^^^^^^^^ recvtype

// mark is one place to mark in a file: a call at a line, and the
// argument of it to underline.
type mark struct {
	loc       checks.Location
	call, arg string
	primary   bool // ^ in the severity's colour; else - for a related place
}

// maxSourceSize bounds the files read for source lines.
const maxSourceSize = 8 << 20

// tabWidth is how many columns a tab takes.
const tabWidth = 4

// defaultWidth is the width lines are trimmed to when the renderer has
// none.
const defaultWidth = 100

// readLines reads the file a location names (relative to dir when it is
// not absolute), or nil.
func readLines(file, dir string) []string {
	if file == "" {
		return nil
	}
	if !filepath.IsAbs(file) && dir != "" {
		file = filepath.Join(dir, file)
	}
	st, err := os.Stat(file)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxSourceSize {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil || !utf8.Valid(b) {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// shown is a line to draw and the marks on it, as byte ranges of the
// line.
type shown struct {
	line  int // 0-based
	marks []lineMark
}

type lineMark struct {
	col, end int
	label    string
	primary  bool
}

// source draws the source lines of marks, which are all in one file, with
// every line indented by indent columns; "" when the file cannot be read
// or the line is not in it. st colours the primary marks.
func (r *Renderer) source(marks []mark, dir string, indent int, st lipgloss.Style) string {
	if len(marks) == 0 {
		return ""
	}
	lines := readLines(marks[0].loc.File, dir)
	l := langOf(marks[0].loc.File)
	var rows []shown
	add := func(line int, m *lineMark) {
		for i := range rows {
			if rows[i].line != line {
				continue
			}
			if m == nil {
				return
			}
			// the same span marked twice (a related call on the finding's
			// own line: two ranks at one MPI_Put) is one mark, primary if
			// either is
			for k := range rows[i].marks {
				if o := &rows[i].marks[k]; o.col == m.col && o.end == m.end {
					o.primary = o.primary || m.primary
					return
				}
			}
			rows[i].marks = append(rows[i].marks, *m)
			return
		}
		row := shown{line: line}
		if m != nil {
			row.marks = append(row.marks, *m)
		}
		rows = append(rows, row)
	}
	for _, m := range marks {
		line := m.loc.Line - 1
		if line < 0 || line >= len(lines) {
			continue
		}
		call := m.call
		if call == "" {
			call = anyCall(lines[line], l)
		}
		cs, ok := findCall(lines, line, call, l)
		if !ok { // not an MPI call's line (a load or store): the line alone
			add(line, nil)
			continue
		}
		at, label := cs.name, ""
		if a, ok := cs.argSpan(lines, call, m.arg, l); ok {
			at, label = a, m.arg
			if strings.TrimSpace(lines[a.line][a.col:a.end]) == m.arg {
				label = "" // the argument says its name itself
			}
		}
		add(cs.name.line, nil)
		add(at.line, &lineMark{col: at.col, end: at.end, label: label, primary: m.primary})
	}
	if len(rows) == 0 {
		return ""
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].line < rows[j].line })
	return r.drawSource(lines, rows, indent, st)
}

// drawSource draws rows of lines: tabs expanded, the indentation they
// share removed, each trimmed to the width around its marks.
func (r *Renderer) drawSource(lines []string, rows []shown, indent int, st lipgloss.Style) string {
	numW := len(fmt.Sprint(rows[len(rows)-1].line + 1))
	texts := make([]string, len(rows))
	cols := make([][]int, len(rows)) // expanded column of every byte offset
	common := -1
	for i, row := range rows {
		texts[i], cols[i] = expand(lines[row.line])
		if strings.TrimSpace(texts[i]) == "" {
			continue
		}
		lead := len(texts[i]) - len(strings.TrimLeft(texts[i], " "))
		if common < 0 || lead < common {
			common = lead
		}
	}
	common = max(common, 0)
	width := r.width
	if width <= 0 {
		width = defaultWidth
	}
	avail := max(width-indent-numW-3, 20)
	pad := strings.Repeat(" ", indent)
	bar := r.dim.Render("|")
	var b strings.Builder
	for i, row := range rows {
		if i > 0 && row.line > rows[i-1].line+1 {
			b.WriteString(pad + r.dim.Render(fmt.Sprintf("%*s", numW, "...")) + "\n")
		}
		text := []rune(texts[i][min(common, len(texts[i])):])
		var ms []lineMark
		for _, m := range row.marks { // byte offsets to columns of text
			c0, c1 := cols[i][m.col]-common, cols[i][m.end]-common
			ms = append(ms, lineMark{col: max(c0, 0), end: max(c1, c0+1), label: m.label, primary: m.primary})
		}
		text, ms = trim(text, ms, avail)
		num := r.dim.Render(fmt.Sprintf("%*d", numW, row.line+1))
		b.WriteString(strings.TrimRight(pad+num+" "+bar+" "+string(text), " ") + "\n")
		for _, under := range r.underline(ms, st) {
			b.WriteString(pad + strings.Repeat(" ", numW) + " " + bar + " " + under + "\n")
		}
	}
	return b.String()
}

// expand turns tabs into spaces (tab stops every tabWidth columns) and
// returns, for every byte offset of s and its end, the column it is at.
func expand(s string) (string, []int) {
	var b strings.Builder
	cols := make([]int, len(s)+1)
	col := 0
	for i, c := range s {
		for k := i; k < i+utf8.RuneLen(c) && k < len(s); k++ {
			cols[k] = col
		}
		if c == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col++
	}
	cols[len(s)] = col
	return b.String(), cols
}

// trim cuts text to at most avail columns around its marks (and their
// labels), with "..." where it cut, and moves the marks with it.
func trim(text []rune, ms []lineMark, avail int) ([]rune, []lineMark) {
	if len(text) <= avail {
		return text, ms
	}
	const dots = "..."
	const context = 8            // columns kept before the first mark
	lo, hi := 0, avail-len(dots) // a line without marks keeps its start
	if len(ms) > 0 {
		first, last := ms[0].col, ms[0].end
		for _, m := range ms {
			first, last = min(first, m.col), max(last, m.end+1+len(m.label))
		}
		if last > hi { // cut on the left too
			lo = max(first-context, 0)
			hi = lo + avail - 2*len(dots)
			if hi >= len(text) {
				hi, lo = len(text), len(text)-(avail-len(dots))
			}
		}
	}
	hi = min(hi, len(text))
	var out []rune
	shift := 0
	if lo > 0 {
		out = append(out, []rune(dots)...)
		shift = len(dots) - lo
	}
	out = append(out, text[lo:hi]...)
	if hi < len(text) {
		out = append(out, []rune(dots)...)
	}
	moved := ms[:0:0]
	for _, m := range ms {
		m.col, m.end = m.col+shift, min(m.end+shift, len(out))
		if m.col >= 0 && m.col < m.end {
			moved = append(moved, m)
		}
	}
	return out, moved
}

// underline draws the rows under a source line: ^^^ (primary) or ---
// under each mark, with its label after it when the label fits before
// the next mark, else on a row of its own below, at the mark's column.
func (r *Renderer) underline(ms []lineMark, st lipgloss.Style) []string {
	if len(ms) == 0 {
		return nil
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].col < ms[j].col })
	style := func(m lineMark) lipgloss.Style {
		if m.primary {
			return st
		}
		return r.name
	}
	var first strings.Builder
	var later []lineMark
	col := 0
	for i, m := range ms {
		if m.col < col { // overlaps the previous mark's run or label
			later = append(later, m)
			continue
		}
		first.WriteString(strings.Repeat(" ", m.col-col))
		ch := "^"
		if !m.primary {
			ch = "-"
		}
		first.WriteString(style(m).Render(strings.Repeat(ch, m.end-m.col)))
		col = m.end
		if m.label == "" {
			continue
		}
		if i+1 == len(ms) || m.end+1+len(m.label) < ms[i+1].col {
			first.WriteString(" " + style(m).Render(m.label))
			col += 1 + len(m.label)
		} else {
			later = append(later, lineMark{col: m.col, label: m.label, primary: m.primary})
		}
	}
	out := []string{first.String()}
	for _, m := range later {
		if m.label != "" {
			out = append(out, strings.Repeat(" ", m.col)+style(m).Render(m.label))
		}
	}
	return out
}
