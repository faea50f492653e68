// Package pretty renders mpidbg's data for people: datatype trees, type
// maps, decoded buffer values and summaries, as text for a terminal
// (lipgloss). It only draws: callers choose what to show and whether to use
// colour, and pass the data in; every function returns a string. The one
// thing it reads itself is the program's source, for the lines of the
// calls an `mpidbg run` report names (source.go, sourceview.go).
//
// A Renderer carries the lipgloss renderer and the colour profile. Plain()
// never emits escape sequences; New(w, true) colours for the terminal w
// writes to. The package-level functions render with Plain().
package pretty
