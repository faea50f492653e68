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
	n, tty := terminalWidth(f)
	if !tty {
		return defaultWidth
	}
	if c, err := strconv.Atoi(os.Getenv(envvar.Columns)); err == nil && c > 0 {
		return c
	}
	if n <= 0 { // a terminal that does not know its size
		return defaultWidth
	}
	return n
}

// terminalWidth asks the terminal f is for its columns (TIOCGWINSZ), and
// says whether f is a terminal.
func terminalWidth(f *os.File) (int, bool) {
	var ws struct{ rows, cols, x, y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return 0, false
	}
	return int(ws.cols), true
}
