package testenv

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleError says that a library is older than one of the sources make
// builds it from.
type StaleError struct {
	Lib    string // as given to Stale
	Source string // relative to the tree's root
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s is older than %s: run make build", filepath.Join("lib", filepath.Base(e.Lib)), e.Source)
}

// shimDirs are the folders whose non-test Go files the shim is built
// from, and shimGlobs the files of shim/ itself, as the Makefile's
// SHIM_SOURCES lists them (TestMakefileSources keeps the two in step).
var (
	shimDirs  = []string{"datatype", "shim", "checks", "wire", "internal"}
	shimGlobs = []string{"shim/*.c", "shim/*.h", "shim/*.go", "shim/calls.tbl"}
)

// ShimSources lists the files under root that the Makefile rebuilds the
// shims from: shim/*.c shim/*.h shim/*.go shim/calls.tbl, every non-test
// Go file under datatype, shim, checks, wire and internal, and go.mod.
func ShimSources(root string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, g := range shimGlobs {
		ms, err := filepath.Glob(filepath.Join(root, g))
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			add(m)
		}
	}
	for _, d := range shimDirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if n := e.Name(); !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				add(p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	add(filepath.Join(root, "go.mod"))
	return out, nil
}

// Stale returns a *StaleError when lib is older than one of the shim's
// sources under root (the newest of them), nil when it is not, and
// another error when lib or the sources cannot be read.
func Stale(root, lib string) error {
	fi, err := os.Stat(lib)
	if err != nil {
		return err
	}
	srcs, err := ShimSources(root)
	if err != nil {
		return err
	}
	var newest string
	var at time.Time
	for _, s := range srcs {
		si, err := os.Stat(s)
		if err != nil {
			continue // removed while we looked: make does not need it either
		}
		if si.ModTime().After(at) {
			newest, at = s, si.ModTime()
		}
	}
	if newest == "" || !at.After(fi.ModTime()) {
		return nil
	}
	rel, err := filepath.Rel(root, newest)
	if err != nil {
		rel = newest
	}
	return &StaleError{Lib: lib, Source: rel}
}
