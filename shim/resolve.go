package main

/*
#include "engine.h"
*/
import "C"

import (
	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/symbolize"
)

// Resolving sites to file:line is the launcher's job; a rank resolves
// only for its standard-error lines, when no launcher listens, and, in a
// process with a Fortran binding, for the language and array bounds of a
// finding's element path (language.go). It does so with the launcher's
// resolver, so that a finding names the same line in either place;
// modules are read on first use and kept.
var resolver = symbolize.New()

// resolve finds the source line of the call that returns to s.Offset.
func resolve(s checks.Site) (checks.Location, bool) {
	loc, err := resolver.Resolve(s)
	return loc, err == nil
}

func mpiWorldSize() int { return int(C.mpidbg_world_size_get()) }
