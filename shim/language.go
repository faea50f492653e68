package main

/*
#include "shim.h"
*/
import "C"

import (
	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/internal/symbolize"
)

// A finding speaks the language of the code it points at: element paths
// of a Fortran call or access in Fortran form (indices from 1, a
// subarray's as the whole array's: datatype.Path.FortranBounds), MPI's constants
// of a Python call as mpi4py spells them (MPI.INT for MPI_INT,
// checks.Language.Names).

// fortranSite says whether the code at s, a place in this process, is
// Fortran. Only a process that loaded a Fortran binding can have any;
// there the unit's DWARF language decides, read with the resolver on a
// finding's first use of a module (ranks read DWARF only for a finding's
// path, which is rare; the launcher resolves everything else).
func fortranSite(s checks.Site) bool {
	if C.mpidbg_nbind == 0 {
		return false
	}
	return siteIsFortran(s)
}

// remoteFortran says whether s, a place in another rank (remoteSite), is
// Fortran: that rank may be a Fortran program where this one is not.
func remoteFortran(s checks.Site) bool { return siteIsFortran(s) }

func siteIsFortran(s checks.Site) bool {
	if s.Module == "" || s.Script != (checks.Location{}) {
		return false
	}
	return resolver.Language(s) == symbolize.LangFortran
}

// pathAt prints p in the form of the language of the code at s: for
// Fortran, a subarray's or darray's indices as those of the array the
// call sees with that shape, by its declared lower bounds.
func pathAt(p datatype.Path, s checks.Site) string {
	return pathIn(p, s, fortranSite(s))
}

// pathIn prints p in Fortran form when fortran says the code at s is.
func pathIn(p datatype.Path, s checks.Site, fortran bool) string {
	if !fortran {
		return p.String()
	}
	return p.FortranBounds(func(shape []int64) []int64 { return resolver.LowerBounds(s, shape) })
}

// speakPython rewrites a finding raised at a Python script's call in
// mpi4py's names: its message, its path and its related places' messages.
// The rule keeps the standard's words.
func speakPython(f *checks.Finding) {
	if f.Site.Script == (checks.Location{}) {
		return
	}
	f.Message = checks.LangPython.Names(f.Message)
	f.Path = checks.LangPython.Names(f.Path)
	for i := range f.Related {
		f.Related[i].Message = checks.LangPython.Names(f.Related[i].Message)
	}
}
