package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
	"github.com/mpidbg/mpidbg/internal/envvar"
)

// wantColor reports whether output to w should be coloured: only on a
// terminal, and never when NO_COLOR is set to anything but the empty
// string (https://no-color.org) or TERM is "dumb".
func wantColor(w io.Writer) bool {
	if os.Getenv(envvar.NoColor) != "" || os.Getenv(envvar.Term) == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
