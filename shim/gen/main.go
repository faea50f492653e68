// Command gen writes the shim's generated files from shim/calls.tbl and
// the finding catalogue (package checks):
//
//	shim/wrappers_gen.c   one PMPI wrapper per MPI function of the table
//	shim/calls_gen.h      call ids, and the prototypes of the hand-written hooks
//	shim/calls/calls_gen.go  the call names in id order, for Go readers
//	shim/findings_gen.h   the finding ids, categories and event enums, from package checks
//	shim/fortran_gen.S    the Fortran entry points' trampolines
//
// Run it from the repository root (go run ./shim/gen), or with -dir.
// TestGenerated fails when the files on disk differ from what it writes.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("dir", ".", "repository root")
	flag.Parse()
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "shim/gen:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	src, err := os.ReadFile(filepath.Join(root, TablePath))
	if err != nil {
		return err
	}
	files, err := Generate(src)
	if err != nil {
		return err
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
