package main

import (
	"fmt"
	"os"

	"github.com/mpidbg/mpidbg/extensions/gdb/helper"
	"github.com/spf13/pflag"
)

// gdbHelperCommand is started by the gdb extension (extensions/gdb), not
// by people: it speaks the JSON-lines protocol of docs/gdb-helper.md on
// standard input and output until gdb closes its input.
var gdbHelperCommand = &command{
	name:    "gdb-helper",
	hidden:  true,
	summary: "used by the gdb extension: decodes registries for gdb over stdin/stdout",
	about: `Serves the gdb extension (extensions/gdb): reads JSON requests, one per line,
on standard input and answers on standard output until the input ends. It
reads the debugged program's memory only by asking gdb for it. See
docs/gdb-helper.md for the protocol.`,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error {
		return func(o *output, args []string) error {
			if len(args) > 0 {
				return &usageError{cmd: "gdb-helper", msg: fmt.Sprintf("takes no arguments, got %q", args[0]), hint: true}
			}
			return helper.New(os.Stdin, o.stdout, o.stderr, versionString()).Serve()
		}
	},
}
