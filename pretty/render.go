package pretty

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Renderer draws with one lipgloss renderer and colour profile. Its zero
// value is not usable; make one with New, NewProfile or Plain.
type Renderer struct {
	lg *lipgloss.Renderer
	// width is the column the report's text wraps before; 0: no wrapping
	width int

	name   lipgloss.Style // type names
	comb   lipgloss.Style // combiners and basic types
	num    lipgloss.Style // sizes, offsets
	dim    lipgloss.Style // edges, notes, "… N more"
	head   lipgloss.Style // table headers, summary keys
	bad    lipgloss.Style // mismatches, errors
	good   lipgloss.Style // matches
	indent lipgloss.Style // tree enumerators
}

// New returns a Renderer for output written to w. With color false it
// never emits escape sequences. With color true it uses the colours the
// terminal announces in TERM and COLORTERM, and 16 colours when those say
// nothing; deciding whether w wants colour at all (a terminal, NO_COLOR)
// is the caller's business. The report's text is wrapped to COLUMNS, or
// the width of the terminal w is, or 100 columns.
func New(w io.Writer, color bool) *Renderer {
	if !color {
		return NewProfile(termenv.Ascii).WithWidth(outputWidth(w))
	}
	p := termenv.NewOutput(w, termenv.WithTTY(true)).ColorProfile()
	if p == termenv.Ascii {
		p = termenv.ANSI
	}
	return NewProfile(p).WithWidth(outputWidth(w))
}

// WithWidth returns a copy of r that wraps the report's text before
// column width (0: never).
func (r *Renderer) WithWidth(width int) *Renderer {
	c := *r
	c.width = max(width, 0)
	return &c
}

// NewProfile returns a Renderer with a fixed colour profile, whatever the
// environment says, that does not wrap text: for tests and for files.
func NewProfile(p termenv.Profile) *Renderer {
	lg := lipgloss.NewRenderer(io.Discard)
	lg.SetColorProfile(p)
	lg.SetHasDarkBackground(true) // never query the terminal
	s := lg.NewStyle
	return &Renderer{
		lg:     lg,
		name:   s().Bold(true).Foreground(lipgloss.Color("6")),
		comb:   s().Foreground(lipgloss.Color("5")),
		num:    s().Foreground(lipgloss.Color("3")),
		dim:    s().Faint(true),
		head:   s().Bold(true),
		bad:    s().Bold(true).Foreground(lipgloss.Color("1")),
		good:   s().Bold(true).Foreground(lipgloss.Color("2")),
		indent: s().Faint(true).PaddingRight(1),
	}
}

var plain = NewProfile(termenv.Ascii)

// Plain returns the Renderer without colour.
func Plain() *Renderer { return plain }
