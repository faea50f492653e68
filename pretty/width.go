package pretty

import (
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// outputWidth is the width text written to w is wrapped to: on a
// terminal, COLUMNS when it is set to a number (the user's choice, or the
// shell's), else the terminal's own; elsewhere (a pipe, a file, a test's
// buffer) always 100, so that output kept is the same wherever it was
// made.
func outputWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return defaultWidth
	}
	n := terminalWidth(f)
	if n <= 0 {
		return defaultWidth
	}
	if c, err := strconv.Atoi(os.Getenv(envvar.Columns)); err == nil && c > 0 {
		return c
	}
	return n
}

// terminalWidth asks the terminal f is for its columns (TIOCGWINSZ); 0
// when f is not a terminal.
func terminalWidth(f *os.File) int {
	var ws struct{ rows, cols, x, y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return 0
	}
	return int(ws.cols)
}
