package dap

import (
	"io"
	"log"
)

// NewLogger returns a logger for Config.Log that writes to w: one line
// per message, prefixed with the time to the microsecond, so that a log
// shows how long gdb and the client took. mpidbg dap --log and the tests
// use it alike.
func NewLogger(w io.Writer) *log.Logger { return log.New(w, "", log.Lmicroseconds) }
