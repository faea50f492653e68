package main

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// TestColorOnTerminal: a terminal gets colour, unless NO_COLOR is set to
// anything or TERM is dumb (TestNoColorOnPipes covers the rest).
func TestColorOnTerminal(t *testing.T) {
	pty := openPty(t)
	t.Setenv(envvar.Term, "xterm")
	t.Setenv(envvar.NoColor, "")
	if !wantColor(pty) {
		t.Errorf("wantColor(terminal) = false, want true")
	}
	t.Setenv(envvar.NoColor, "1")
	if wantColor(pty) {
		t.Errorf("wantColor(terminal) with NO_COLOR=1 = true, want false")
	}
	t.Setenv(envvar.NoColor, "")
	t.Setenv(envvar.Term, "dumb")
	if wantColor(pty) {
		t.Errorf("wantColor(terminal) with TERM=dumb = true, want false")
	}
}

// openPty opens a pseudo-terminal and returns its terminal side, or skips.
func openPty(t *testing.T) *os.File {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("TIOCGPTN: %v", e)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("TIOCSPTLCK: %v", e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
