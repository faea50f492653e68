package dap

import (
	"io"
	"log"
)

// newLogger returns the logger --log and the tests' MPIDBG_DAP_LOG use.
func newLogger(w io.Writer) *log.Logger { return log.New(w, "", log.Lmicroseconds) }
