package pretty

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/mpidbg/mpidbg/datatype"
)

// TypeMap draws the first limit elements of the type map of count
// instances of t: element number, byte offset from the buffer start, basic
// type and the element's path in the long form. When elements are left
// out a last row says how many.
func (r *Renderer) TypeMap(t *datatype.Type, count int64, limit int) string {
	total := t.NumElements() * count
	shown := max(min(total, int64(limit)), 0)
	rows := make([][]string, 0, min(shown, 1024)+1)
	for i := int64(0); i < shown; i++ {
		el, err := t.ElementAt(count, i)
		if err != nil { // cannot happen for i < total; show it rather than hide it
			rows = append(rows, []string{fmt.Sprint(i), "", "", err.Error()})
			continue
		}
		rows = append(rows, []string{fmt.Sprint(i), fmt.Sprint(el.Offset), el.Basic.String(), el.Path.String()})
	}
	var notes map[int]bool
	if shown < total {
		notes = map[int]bool{len(rows): true}
		rows = append(rows, []string{"…", "", "", fmt.Sprintf("%d more", total-shown)})
	}
	if total == 0 {
		notes = map[int]bool{0: true}
		rows = append(rows, []string{"", "", "", "no elements"})
	}
	return r.table([]string{"#", "offset", "type", "path"}, rows, []int{0, 1}, 2, notes)
}

// Values draws decoded elements: byte offset from the buffer start, path,
// basic type and value. A row between two values notes a gap (bytes no
// element covers) or a step back (the next element lies before the end of
// the previous one).
func (r *Renderer) Values(vals []datatype.Value) string {
	rows := make([][]string, 0, len(vals))
	notes := map[int]bool{}
	for i, v := range vals {
		if i > 0 {
			prev := vals[i-1]
			end := prev.Offset + prev.Basic.Size()
			switch {
			case v.Offset > end:
				notes[len(rows)] = true
				rows = append(rows, []string{fmt.Sprint(end), fmt.Sprintf("… %d-byte gap", v.Offset-end), "", ""})
			case v.Offset < end:
				notes[len(rows)] = true
				rows = append(rows, []string{"", fmt.Sprintf("… back %d bytes", end-v.Offset), "", ""})
			}
		}
		rows = append(rows, []string{fmt.Sprint(v.Offset), v.Path.String(), v.Basic.String(), v.Text})
	}
	return r.table([]string{"offset", "path", "type", "value"}, rows, []int{0}, 2, notes)
}

// table draws rows under a header line, without outer borders; columns in
// right are right-aligned, column typeCol holds basic types, rows in notes
// are dimmed.
func (r *Renderer) table(headers []string, rows [][]string, right []int, typeCol int, notes map[int]bool) string {
	isRight := map[int]bool{}
	for _, c := range right {
		isRight[c] = true
	}
	cell := r.lg.NewStyle().Padding(0, 1)
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderStyle(r.dim).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderHeader(true).
		Headers(headers...).
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			s := cell
			if isRight[col] {
				s = s.Align(lipgloss.Right)
			}
			switch {
			case row == table.HeaderRow:
				return s.Inherit(r.head)
			case notes[row]:
				return s.Inherit(r.dim)
			case col == typeCol:
				return s.Inherit(r.comb)
			}
			return s
		})
	return trimLines(t.String())
}

// Field is one line of a key/value block.
type Field struct {
	Key, Value string
}

// Fields draws key/value lines with the values aligned.
func (r *Renderer) Fields(fs []Field) string {
	w := 0
	for _, f := range fs {
		w = max(w, lipgloss.Width(f.Key))
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(r.head.Render(f.Key) + strings.Repeat(" ", w-lipgloss.Width(f.Key)+2) + f.Value + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
