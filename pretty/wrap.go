package pretty

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
)

// piece is text in one style; a nil style draws it as it is.
type piece struct {
	text  string
	style *lipgloss.Style
}

// word is a run of non-space text, possibly in several styles, and the
// spaces before it; a hard line break is a word with brk set.
type word struct {
	frags []piece
	gap   int
	brk   bool
}

func (w word) width() int {
	n := 0
	for _, f := range w.frags {
		n += utf8.RuneCountInString(f.text)
	}
	return n
}

func (w word) render() string {
	var b strings.Builder
	for _, f := range w.frags {
		if f.style != nil {
			b.WriteString(f.style.Render(f.text))
		} else {
			b.WriteString(f.text)
		}
	}
	return b.String()
}

// words splits pieces at spaces and newlines, keeping each fragment's
// style.
func words(pieces []piece) []word {
	var out []word
	cur := word{}
	gap := 0
	flush := func() {
		if len(cur.frags) > 0 {
			out = append(out, cur)
		}
		cur = word{}
	}
	for _, p := range pieces {
		start := -1
		for i, c := range p.text {
			if c == ' ' || c == '\n' {
				if start >= 0 {
					cur.frags = append(cur.frags, piece{p.text[start:i], p.style})
					start = -1
				}
				flush()
				if c == '\n' {
					out = append(out, word{brk: true})
					gap = 0
				} else {
					gap++
				}
				continue
			}
			if start < 0 {
				start = i
				if len(cur.frags) == 0 {
					cur.gap, gap = gap, 0
				}
			}
		}
		if start >= 0 {
			cur.frags = append(cur.frags, piece{p.text[start:], p.style})
		}
	}
	flush()
	return out
}

// wrap lays pieces out from column start, breaking lines at spaces
// before the renderer's width (never inside a word: a longer word
// overflows) and beginning each further line with indent spaces. Without
// a width, the pieces are drawn on one line.
func (r *Renderer) wrap(pieces []piece, start, indent int) string {
	var b strings.Builder
	col := start
	lineStart := true
	pad := strings.Repeat(" ", indent)
	for _, w := range words(pieces) {
		if w.brk {
			b.WriteString("\n" + pad)
			col, lineStart = indent, true
			continue
		}
		n := w.width()
		gap := w.gap
		if lineStart {
			gap = 0
		}
		if r.width > 0 && !lineStart && col+gap+n > r.width {
			b.WriteString("\n" + pad)
			col, gap = indent, 0
		}
		b.WriteString(strings.Repeat(" ", gap) + w.render())
		col += gap + n
		lineStart = false
	}
	return b.String()
}
