package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/pflag"
)

// version is set at link time: -ldflags "-X main.version=v1.2.3".
var version = ""

var versionCommand = &command{
	name:    "version",
	summary: "print mpidbg's version",
	about:   "Prints mpidbg's version: the one set at link time, else the module version, else \"devel\".",
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error {
		return func(o *output, args []string) error {
			if len(args) > 0 {
				return &usageError{cmd: "version", msg: fmt.Sprintf("takes no arguments, got %q", args[0]), hint: true}
			}
			_, err := fmt.Fprintf(o.stdout, "mpidbg %s\n", versionString())
			return err
		}
	},
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
