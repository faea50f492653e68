package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// wantColor reports whether output to w should be coloured: only on a
// terminal, and never when NO_COLOR is set to anything but the empty
// string (https://no-color.org) or TERM is "dumb".
func wantColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
