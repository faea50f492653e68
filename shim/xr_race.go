package main

/*
#include "xr_race.h"
*/
import "C"

import (
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
)

// The Go half of the message-race decision (xr_race.c): whether another
// candidate message fits a receive, by the type matching rules (MPI-4.1
// §3.3.1, §3.2.4 for the longer message, §5.2 for MPI_PACKED), from the
// signatures alone: the receive's datatype may be freed by the time the
// other candidate arrives.

// maxUnitElements bounds the signatures whose runs are walked to name one
// basic type for a truncation's message.
const maxUnitElements = 4096

//export mpidbg_go_race_fit
func mpidbg_go_race_fit(f *C.struct_mpidbg_xrfit) (out C.int) {
	defer func() {
		if recover() != nil {
			out = -1
		}
	}()
	ssig, err := datatype.DecodeSig(C.GoBytes(unsafe.Pointer(f.ssig), C.int(f.ssiglen)))
	if err != nil {
		return -1
	}
	rsig, err := datatype.DecodeSig(C.GoBytes(unsafe.Pointer(f.rsig), C.int(f.rsiglen)))
	if err != nil {
		return -1
	}
	fit, ok := raceFit(ssig, int64(f.scount), rsig, int64(f.rcount))
	if ok {
		return 0
	}
	cstr(&f.text[0], len(f.text), fit.Text())
	return 1
}

// raceFit compares scount x ssig arriving at a receive of rcount x rsig:
// ok when it fits, else what goes wrong.
func raceFit(ssig *datatype.Sig, scount int64, rsig *datatype.Sig, rcount int64) (checks.RaceFit, bool) {
	var res datatype.MatchResult
	if allPacked(ssig) || allPacked(rsig) {
		sb, rb := ssig.Size()*scount, rsig.Size()*rcount
		if sb <= rb {
			return checks.RaceFit{}, true
		}
		return checks.RaceFit{Truncated: true, SendElements: sb, RecvElements: rb, Unit: "bytes"}, false
	}
	res = datatype.MatchSig(ssig, scount, rsig, rcount)
	switch res.Kind {
	case datatype.Match, datatype.Prefix:
		return checks.RaceFit{}, true
	case datatype.Mismatch:
		return checks.RaceFit{Element: res.Element, SendBasic: basicName(res.Send), RecvBasic: basicName(res.Recv)}, false
	}
	fit := checks.RaceFit{Truncated: true, SendElements: ssig.NumElements() * scount, RecvElements: rsig.NumElements() * rcount}
	if u, ok := oneBasic(ssig); ok {
		if v, ok := oneBasic(rsig); ok && u == v {
			fit.Unit = basicName(u)
		}
	}
	return fit, false
}

// oneBasic is the one basic type of a signature made of a single one.
func oneBasic(s *datatype.Sig) (datatype.Basic, bool) {
	if s.NumElements() == 0 || s.NumElements() > maxUnitElements {
		return 0, false
	}
	runs := s.Runs()
	for _, r := range runs[1:] {
		if r.Basic != runs[0].Basic {
			return 0, false
		}
	}
	return runs[0].Basic, true
}
