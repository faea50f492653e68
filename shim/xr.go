package main

/*
#include <stdlib.h>
#include <string.h>
#include "engine.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// The Go half of the cross-rank checks (xr_p2p.c, xr_coll.c): what a
// datatype looks like in a shadow message, the exact comparison of a
// sender's signature with a receive's, and the signature digests of
// collectives.

// maxExpr bounds the constructor expression a shadow message carries for
// element paths: larger types are matched exactly all the same, and the
// report names the element by index instead of by path.
const maxExpr = 1024

// mpidbg_go_type_blob describes a datatype for shadow messages: the
// signature's bytes (datatype.Sig.AppendBinary) and its constructor
// expression, behind their lengths. The C side keeps it per type.
//
//export mpidbg_go_type_blob
func mpidbg_go_type_blob(h C.uint64_t, n *C.int32_t) (out *C.uint8_t) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	t, err := modelOf(uint64(h))
	if err != nil {
		return nil
	}
	sig := t.Signature().AppendBinary(nil)
	expr := t.Expr()
	if len(expr) > maxExpr {
		expr = ""
	}
	b := make([]byte, 8, 8+len(sig)+len(expr))
	binary.LittleEndian.PutUint32(b, uint32(len(sig)))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(expr)))
	b = append(append(b, sig...), expr...)
	p := C.malloc(C.size_t(len(b)))
	if p == nil {
		return nil
	}
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	*n = C.int32_t(len(b))
	return (*C.uint8_t)(p)
}

// mpidbg_go_sig_hash is the digest of count instances of a datatype's
// signature, or 0 when the model does not know the type.
//
//export mpidbg_go_sig_hash
func mpidbg_go_sig_hash(h C.uint64_t, count C.int64_t) (out C.uint64_t) {
	defer func() {
		if recover() != nil {
			out = 0
		}
	}()
	t, err := modelOf(uint64(h))
	if err != nil {
		return 0
	}
	d := t.Signature().HashRepeat(int64(count))
	if d == 0 {
		d = 1 // 0 tells the C side the type is unknown (an empty signature hashes to 0)
	}
	return C.uint64_t(d)
}

// mpidbg_go_xr_match compares a message's signature (from its shadow)
// with the receive that took it, exactly (MPI-4.1 §3.3.1; §5.2 for
// MPI_PACKED, §3.2.4 for the legal shorter message). It returns 1 and
// fills m.msg and m.path when the pair is a finding.
//
//export mpidbg_go_xr_match
func mpidbg_go_xr_match(m *C.struct_mpidbg_xrmatch) (found C.int) {
	defer func() {
		if recover() != nil {
			found = 0
		}
	}()
	ssig, err := datatype.DecodeSig(C.GoBytes(unsafe.Pointer(m.sig), C.int(m.siglen)))
	if err != nil {
		return 0
	}
	rt, rsig, err := recvType(m)
	if err != nil {
		return 0
	}
	var sexpr *datatype.Type
	if m.exprlen > 0 {
		if t, err := datatype.ParseExpr(string(C.GoBytes(unsafe.Pointer(m.expr), C.int(m.exprlen)))); err == nil {
			sexpr = t
		}
	}
	scount, rcount := int64(m.scount), int64(m.rcount)
	res := matchSigs(ssig, scount, rsig, rcount)
	if res.Kind == datatype.Match || res.Kind == datatype.Prefix {
		return 0 // the common case: nothing below runs for it
	}
	sname := "the sender's datatype"
	if sexpr != nil {
		sname = describeType(sexpr)
	}
	rname := "the receive's datatype"
	if rt != nil {
		rname = describeType(rt)
	}
	recvAt, sendAt := site(uint64(m.rsite)), remoteSite(uint32(m.smod), uint64(m.soff))
	tm := checks.TypeMatch{SendRank: int(m.srank), RecvRank: worldRank(), SendCount: scount, SendType: sname,
		RecvCount: rcount, RecvType: rname, Element: res.Element, Byte: res.Byte, Fortran: fortranSite(recvAt)}
	switch res.Kind {
	case datatype.Mismatch:
		tm.SendPath = elementName(sexpr, scount, res.Element, res.Send, sendAt, remoteFortran(sendAt))
		tm.RecvPath = elementName(rt, rcount, res.Element, res.Recv, recvAt, fortranSite(recvAt))
		tm.SendBasic, tm.RecvBasic = basicName(res.Send), basicName(res.Recv)
	case datatype.Truncated:
		m.fid_truncated = 1
		tm.Truncated = true
		tm.SendElements, tm.SendBytes, tm.RecvElements = ssig.NumElements()*scount, ssig.Size()*scount, rsig.NumElements()*rcount
		if sexpr != nil {
			if e, err := sexpr.ElementAt(scount, res.Element); err == nil {
				tm.SendPath = pathIn(e.Path, sendAt, remoteFortran(sendAt))
			}
		}
	}
	msg, path := tm.Text()
	cstr(&m.msg[0], len(m.msg), msg)
	cstr(&m.path[0], len(m.path), path)
	return 1
}

// recvType is the receive's datatype and its signature: as described
// when the receive was posted, when the shim kept that (the program may
// have freed the type since, and MPI handed its handle to another one),
// else the handle's. Without an expression the type is nil and only the
// signature compares.
func recvType(m *C.struct_mpidbg_xrmatch) (*datatype.Type, *datatype.Sig, error) {
	if m.rsig == nil {
		rt, err := modelOf(uint64(m.rtype))
		if err != nil {
			return nil, nil, err
		}
		return rt, rt.Signature(), nil
	}
	rsig, err := datatype.DecodeSig(C.GoBytes(unsafe.Pointer(m.rsig), C.int(m.rsiglen)))
	if err != nil {
		return nil, nil, err
	}
	if m.rexprlen > 0 {
		if rt, err := datatype.ParseExpr(string(C.GoBytes(unsafe.Pointer(m.rexpr), C.int(m.rexprlen)))); err == nil {
			return rt, rsig, nil
		}
	}
	return nil, rsig, nil
}

// matchSigs compares scount of ssig, the side the data comes from, with
// rcount of rsig, the side it goes to, exactly (MPI-4.1 §3.3.1); with
// MPI_PACKED on either side, by size alone (§5.2): a prefix when the
// data fits.
func matchSigs(ssig *datatype.Sig, scount int64, rsig *datatype.Sig, rcount int64) datatype.MatchResult {
	if allPacked(ssig) || allPacked(rsig) {
		sb, rb := ssig.Size()*scount, rsig.Size()*rcount
		if sb <= rb {
			return datatype.MatchResult{Kind: datatype.Prefix}
		}
		return datatype.MatchResult{Kind: datatype.Truncated, Byte: rb, Element: rb}
	}
	return datatype.MatchSig(ssig, scount, rsig, rcount)
}

func allPacked(s *datatype.Sig) bool {
	runs := s.Runs()
	return len(runs) == 1 && runs[0].Basic == datatype.Packed
}

func basicName(b datatype.Basic) string { return "MPI_" + b.String() }

// describeType is "t_a" for a named type, "MPI_INT" for a predefined one,
// else the constructor.
func describeType(t *datatype.Type) string {
	switch {
	case t.IsPredefined():
		return "MPI_" + t.Basic.String()
	case t.Name != "":
		return t.Name
	}
	e := t.Expr()
	if len(e) > 80 {
		e = e[:77] + "..."
	}
	return e
}

// elementName names element i of count instances of t by its type-tree
// path, or by index and type when t is unknown; in the language of the
// call at (language.go).
func elementName(t *datatype.Type, count, i int64, b datatype.Basic, at checks.Site, fortran bool) string {
	if t != nil {
		if e, err := t.ElementAt(count, i); err == nil {
			switch {
			case t.IsPredefined() && fortran:
				return fmt.Sprintf("%s(%d)", basicName(b), i+1)
			case t.IsPredefined():
				return fmt.Sprintf("%s[%d]", basicName(b), i)
			}
			return pathIn(e.Path, at, fortran)
		}
	}
	if fortran {
		i++
	}
	return fmt.Sprintf("element %d (%s)", i, basicName(b))
}

// remoteSite turns a place in another rank (the hash of its module's file
// name and an offset, xr_p2p.c) into a Site, when this process has a
// module of that name: the ranks of a job run the same binaries.
func remoteSite(mod uint32, off uint64) checks.Site {
	if mod == 0 {
		return checks.Site{}
	}
	if off&registry.PySiteTag != 0 {
		return pythonRemote(mod, off) // a Python script's call (python.go)
	}
	for _, path := range loadedModules() {
		h := fnv.New32a()
		h.Write([]byte(filepath.Base(path)))
		v := h.Sum32()
		if v == 0 {
			v = 1
		}
		if v == mod {
			return checks.Site{Module: path, Offset: off}
		}
	}
	return checks.Site{}
}

// loadedModules lists the files mapped executable in this process.
func loadedModules() []string {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	if exe, err := os.Executable(); err == nil {
		out = append(out, exe)
		seen[exe] = true
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || !strings.Contains(f[1], "x") || !strings.HasPrefix(f[5], "/") || seen[f[5]] {
			continue
		}
		seen[f[5]] = true
		out = append(out, f[5])
	}
	return out
}

// crossRank adds the places a cross-rank finding names in other ranks
// (module hash and offset, xr_p2p.c), with the texts the finding gave
// them; with FlagRemoteSite the first of them is the finding's own place
// and rank.
func crossRank(ev *C.struct_mpidbg_ev, e *checks.Event, d *checks.Described, f *checks.Finding) {
	for i := range e.Remote {
		s := remoteSite(uint32(ev.remote_mod[i]), uint64(ev.remote_off[i]))
		if i == 0 && e.Flags&checks.FlagRemoteSite != 0 {
			f.Site = s
			f.Ranks = []int{e.Remote[i].Rank}
			continue
		}
		text, arg := "", ""
		if i < len(d.Remote) {
			text = d.Remote[i]
		}
		if i < len(d.RemoteArgs) {
			arg = d.RemoteArgs[i]
		}
		f.Related = append(f.Related, checks.Related{Message: text, Call: e.Remote[i].Call, Arg: arg, Site: s})
	}
}
