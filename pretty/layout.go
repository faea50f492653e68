package pretty

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/datatype"
)

// Blocks draws a compact block list (datatype.Type.Blocks): for each run
// of contiguous data bytes its first and last byte, its length, and the gap
// since the previous block; at most limit rows, then a row saying how many
// more.
func (r *Renderer) Blocks(bs []datatype.Block, limit int) string {
	shown := min(len(bs), max(limit, 0))
	rows := make([][]string, 0, shown+1)
	for i, b := range bs[:shown] {
		gap := ""
		if i > 0 {
			gap = fmt.Sprint(b.Start - bs[i-1].End)
		}
		rows = append(rows, []string{fmt.Sprint(i), fmt.Sprint(b.Start), fmt.Sprint(b.Last()), fmt.Sprint(b.End - b.Start), gap})
	}
	notes := map[int]bool{}
	if shown < len(bs) {
		notes[len(rows)] = true
		rows = append(rows, []string{"…", "", "", "", fmt.Sprintf("%d more", len(bs)-shown)})
	}
	if len(bs) == 0 {
		notes[0] = true
		rows = append(rows, []string{"", "", "", "", "no data"})
	}
	return r.table([]string{"#", "first", "last", "bytes", "gap"}, rows, []int{0, 1, 2, 3, 4}, -1, notes)
}

// Strided draws strided blocks (datatype.Type.Strided) on one line each:
// "off+len", then "xCOUNT/STRIDE" per dimension, innermost first, and the
// number of blocks each stands for.
func (r *Renderer) Strided(ss []datatype.Strided) string {
	if len(ss) == 0 {
		return r.dim.Render("no data")
	}
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s.String())
		if n := s.NumBlocks(); n > 1 {
			b.WriteString(r.dim.Render(fmt.Sprintf("  (%d blocks of %d bytes)", n, s.Len)))
		}
	}
	return b.String()
}
