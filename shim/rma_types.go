package main

/*
#include "engine.h"
*/
import "C"

import (
	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
)

// rmaSides names the two sides of a one-sided call's transfer, by
// MPIDBG_RMA_DIR_*.
var rmaSides = [...][2]string{
	C.MPIDBG_RMA_DIR_TO_TARGET: {"origin", "target"},
	C.MPIDBG_RMA_DIR_TO_ORIGIN: {"target", "origin"},
	C.MPIDBG_RMA_DIR_TO_RESULT: {"target", "result"},
}

// mpidbg_go_rma_match compares the two datatypes of a one-sided call's
// transfer exactly, as a send's with a receive's (MPI-4.1 §12.3.1:
// §3.3.1's matching, §5.2 for MPI_PACKED, and no truncation). It returns
// 1 and fills m.msg and m.path when the pair is a finding; a datatype the
// model does not know gives no finding.
//
//export mpidbg_go_rma_match
func mpidbg_go_rma_match(m *C.struct_mpidbg_rmamatch) (found C.int) {
	defer func() {
		if recover() != nil {
			found = 0
		}
	}()
	st, err := modelOf(uint64(m.stype))
	if err != nil {
		return 0
	}
	rt, err := modelOf(uint64(m.rtype))
	if err != nil {
		return 0
	}
	dir := int(m.dir)
	if dir < 0 || dir >= len(rmaSides) {
		return 0
	}
	ssig, rsig := st.Signature(), rt.Signature()
	scount, rcount := int64(m.scount), int64(m.rcount)
	res := matchSigs(ssig, scount, rsig, rcount)
	if res.Kind == datatype.Match || res.Kind == datatype.Prefix {
		return 0
	}
	at := site(uint64(m.site))
	fortran := fortranSite(at)
	tm := checks.RMATypeMatch{Call: callName(C.int32_t(m.call)), From: rmaSides[dir][0], To: rmaSides[dir][1],
		FromCount: scount, FromType: describeType(st), ToCount: rcount, ToType: describeType(rt),
		Element: res.Element, Byte: res.Byte, Fortran: fortran}
	switch res.Kind {
	case datatype.Mismatch:
		tm.FromPath = elementName(st, scount, res.Element, res.Send, at, fortran)
		tm.ToPath = elementName(rt, rcount, res.Element, res.Recv, at, fortran)
		tm.FromBasic, tm.ToBasic = basicName(res.Send), basicName(res.Recv)
	case datatype.Truncated:
		tm.Truncated = true
		m.truncated = 1
		tm.FromElements, tm.ToRoom = ssig.NumElements()*scount, rsig.NumElements()*rcount
		if e, err := st.ElementAt(scount, res.Element); err == nil {
			tm.FromPath = pathIn(e.Path, at, fortran)
		}
	default:
		return 0
	}
	msg, path := tm.Text()
	cstr(&m.msg[0], len(m.msg), msg)
	cstr(&m.path[0], len(m.path), path)
	return 1
}
