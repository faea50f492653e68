package main

import (
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// TestColorOnTerminal: a terminal gets colour, unless NO_COLOR is set to
// anything or TERM is dumb (TestNoColorOnPipes covers the rest).
func TestColorOnTerminal(t *testing.T) {
	pty := testenv.Pty(t)
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
