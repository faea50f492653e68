package dap

import (
	"io"
	"log"
)

// newLogger returns the logger the tests' MPIDBG_DAP_LOG writes to, in the
// format of mpidbg dap --log's (cmd/mpidbg/dap.go makes that one).
func newLogger(w io.Writer) *log.Logger { return log.New(w, "", log.Lmicroseconds) }
