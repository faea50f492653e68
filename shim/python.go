package main

/*
#include <stdint.h>
#include "reg.h"
#include "python.h"

// an address in a record as the string it is
static const char *pystr(uint64_t a) { return (const char *)(uintptr_t)a; }
*/
import "C"

import (
	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// Python sites (python.c): a call a Python script made has a site with
// registry.PySiteTag set, the index of a record naming the script's
// file, line and function and the native code that called MPI. The tag
// is reg.h's MPIDBG_PYSITE_TAG: this fails to compile when they differ.
var _ = [1]struct{}{}[registry.PySiteTag^uint64(C.MPIDBG_PYSITE_TAG)]

// pythonSite describes a Python site: the native caller as Module and
// Offset, the script's place as Script.
func pythonSite(s uint64) checks.Site {
	var r C.struct_mpidbg_pysite
	if C.mpidbg_python_site_get(C.uint64_t(s), &r) == 0 {
		return checks.Site{}
	}
	out := checks.Site{}
	if r.native != 0 {
		out = site(uint64(r.native))
	}
	out.Script = checks.Location{
		File:     C.GoString(C.pystr(r.file)),
		Line:     int(r.line),
		Function: C.GoString(C.pystr(r.function)),
	}
	return out
}

// pythonRemote names another rank's Python site (python.c,
// mpidbg_python_remote).
func pythonRemote(mod uint32, off uint64) checks.Site {
	var file [4096]C.char
	var fn [256]C.char
	var line C.int
	if C.mpidbg_python_remote(C.uint32_t(mod), C.uint64_t(off), &file[0], C.int(len(file)), &fn[0], C.int(len(fn)), &line) == 0 {
		return checks.Site{}
	}
	return checks.Site{Script: checks.Location{File: C.GoString(&file[0]), Line: int(line), Function: C.GoString(&fn[0])}}
}

// nativeFrame adds, to a finding made at a Python site, the native code
// under the script's line as a related place: what the site would name
// without the interpreter's frame (mpi4py's call into MPI, or the
// extension's code that touched a buffer).
func nativeFrame(f *checks.Finding) {
	if f.Site.Script == (checks.Location{}) || f.Site.Module == "" {
		return
	}
	f.Related = append(f.Related, checks.Related{Message: "the native frame",
		Site: checks.Site{Module: f.Site.Module, Offset: f.Site.Offset}})
}
