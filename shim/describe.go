package main

/*
#include "engine.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// describe turns a detector's event into the finding: the checks package
// writes the message (each finding is defined there), the rank adds what
// only it knows: its rank, the code addresses as sites, the places in
// other ranks. It returns the finding and the code address of its first
// related place.
func describe(ev *C.struct_mpidbg_ev) (checks.Finding, uint64) {
	e := event(ev)
	recordEvent(e)
	at := site(uint64(ev.site))
	d := checks.Describe(&e, rankTypes{at: at})
	f := checks.Finding{
		ID:       d.Entry.ID,
		Category: d.Entry.Category,
		Severity: d.Entry.Severity,
		Message:  d.Message,
		Ranks:    []int{worldRank()},
		Call:     e.Call,
		Arg:      d.Arg,
		Path:     d.Path,
		Rule:     d.Entry.Rule,
		Site:     at,
	}
	crossRank(ev, &e, &d, &f)
	var rel uint64
	if ev.related_site != 0 {
		rel = uint64(ev.related_site)
		f.Related = append(f.Related, checks.Related{Message: d.Related, Call: e.RelatedCall, Arg: d.RelatedArg, Site: site(rel)})
	}
	// a datatype made at the finding's own call (a leaked type) needs no
	// second line saying so
	if d.TypeSite != 0 && d.TypeSite != uint64(ev.site) {
		if rel == 0 {
			rel = d.TypeSite
		}
		f.Related = append(f.Related, checks.Related{Message: d.TypeMade, Site: site(d.TypeSite)})
	}
	nativeFrame(&f)
	speakPython(&f)
	return f, rel
}

// event copies the C event into Go.
func event(ev *C.struct_mpidbg_ev) checks.Event {
	e := checks.Event{
		ID:          C.GoString(C.mpidbg_fid_name(C.int(ev.fid))),
		Variant:     checks.Variant(ev.variant),
		Call:        callName(ev.call),
		Arg:         C.GoString(ev.arg),
		Val:         int64(ev.val),
		Lim:         int64(ev.lim),
		Handle:      uint64(ev.handle),
		Handle2:     uint64(ev.handle2),
		Kind:        checks.HandleKind(ev.hkind),
		Count:       int64(ev.count),
		Count2:      int64(ev.count2),
		Addr:        uint64(ev.addr),
		Addr2:       uint64(ev.addr2),
		At:          uint64(ev.at),
		RelatedCall: callName(ev.related_call),
		RelatedKind: checks.RelatedKind(ev.related_kind),
	}
	if ev.index >= 0 {
		e.Arg = fmt.Sprintf("%s[%d]", e.Arg, int(ev.index))
	}
	if ev.text != nil {
		e.Text = C.GoString(ev.text)
	}
	if ev.path != nil {
		e.Path = C.GoString(ev.path)
	}
	e.Rank = worldRank()
	for i := 0; i < int(ev.nremote) && i < len(ev.remote_rank); i++ {
		e.Remote = append(e.Remote, checks.Remote{Rank: int(ev.remote_rank[i]), Call: callName(ev.remote_call[i]),
			Access: checks.Access(ev.remote_access[i])})
	}
	e.Target, e.Epoch, e.Unit, e.Flags = int(ev.target), checks.Epoch(ev.epoch), int64(ev.unit), checks.Flags(ev.flags)
	e.Peer = int(ev.peer)
	e.SendType, e.RecvType = groupTypeName(uint64(ev.stype)), groupTypeName(uint64(ev.rtype))
	if ev.nranks > 0 && ev.ranks != nil {
		for _, r := range unsafe.Slice(ev.ranks, int(ev.nranks)) {
			e.Ranks = append(e.Ranks, int(r))
		}
	}
	if ev.ngroups > 0 && ev.groups != nil {
		for _, g := range unsafe.Slice(ev.groups, int(ev.ngroups)) {
			grp := checks.Group{Call: callName(g.call), Mode: checks.CallMode(g.mode), Root: int64(g.root),
				SendCount: int64(g.scount), RecvCount: int64(g.rcount),
				SendType: groupTypeName(uint64(g.stype)), RecvType: groupTypeName(uint64(g.rtype)), HasRoot: g.has_root != 0}
			if g.op != nil {
				grp.Op = C.GoString(g.op)
			}
			if g.nranks > 0 && g.ranks != nil {
				for _, r := range unsafe.Slice(g.ranks, int(g.nranks)) {
					grp.Ranks = append(grp.Ranks, int(r))
				}
			}
			e.Groups = append(e.Groups, grp)
		}
	}
	return e
}

// groupTypeName names a datatype of a collective's group, given as
// struct mpidbg_coll_group encodes it (xr_coll.c's mpidbg_xc_type_code): the low two
// bits say what the rest is.
func groupTypeName(code uint64) string {
	switch code & 3 {
	case 3:
		if b := datatype.Basic(code >> 2); b.Valid() {
			return "MPI_" + b.String()
		}
	case 2:
		return predefinedName(code >> 2)
	case 1:
		return "a derived datatype"
	}
	return ""
}

// rankTypes answers checks.Types from this rank's registry and datatype
// model, with paths in the language of the finding's code (language.go).
type rankTypes struct{ at checks.Site }

const maxTypeText = 160

func (rankTypes) Type(h uint64) checks.TypeInfo {
	if n := predefinedName(h); n != "" {
		return checks.TypeInfo{Text: n}
	}
	rec, ok := lookupType(h)
	if !ok {
		return checks.TypeInfo{Text: fmt.Sprintf("%#x", h)}
	}
	var ti checks.TypeInfo
	if rec.Site != 0 {
		what := "datatype"
		if rec.Name != "" {
			what += " " + rec.Name
		}
		ctor := ctorNames[rec.Combiner]
		if ctor == "" {
			ctor = "a constructor"
		}
		ti.Site, ti.Made = rec.Site, what+" made here by "+ctor
	}
	t, err := modelOf(h)
	if err != nil {
		ti.Text = rec.Name
		if ti.Text == "" {
			ti.Text = fmt.Sprintf("%#x (%s)", h, strings.ToLower(rec.Combiner.String()))
		}
		return ti
	}
	ti.Text = t.Expr()
	if len(ti.Text) > maxTypeText {
		ti.Text = ti.Text[:maxTypeText] + "..."
	}
	return ti
}

func (rt rankTypes) ElementAt(h, addr uint64, count int64, at uint64) string {
	t, err := modelOf(h)
	if err != nil {
		return ""
	}
	el, ok := t.ElementAtOffset(count, int64(at)-int64(addr))
	if !ok {
		return ""
	}
	return pathAt(el.Path, rt.at)
}

// collisionLimit bounds the bytes of data the search for a colliding pair
// walks; beyond it the message names no elements.
const collisionLimit = 1 << 20

func (rt rankTypes) Collision(h uint64, count int64) (string, string) {
	t, err := modelOf(h)
	if err != nil || count <= 0 || t.TypeSize() > collisionLimit/count {
		return "", ""
	}
	owner := map[int64]int64{}
	var i int64
	for off, b := range t.TypeMap(count) {
		for k := int64(0); k < b.Size(); k++ {
			if j, ok := owner[off+k]; ok {
				e1, err1 := t.ElementAt(count, j)
				e2, err2 := t.ElementAt(count, i)
				if err1 != nil || err2 != nil {
					return "", ""
				}
				return pathAt(e1.Path, rt.at), pathAt(e2.Path, rt.at)
			}
		}
		for k := int64(0); k < b.Size(); k++ {
			owner[off+k] = i
		}
		i++
	}
	return "", ""
}

// KindOf reads an MPICH handle's kind from its bits 26-29; Open MPI's
// handles are addresses and say nothing.
func (rankTypes) KindOf(h uint64) checks.HandleKind {
	if thisMPI() != registry.MPICH {
		return checks.KindNone
	}
	switch (h >> 26) & 0xf {
	case 1:
		return checks.KindComm
	case 2:
		return checks.KindGroup
	case 3:
		return checks.KindType
	case 6:
		return checks.KindOp
	case 8:
		return checks.KindWin
	case 11:
		return checks.KindRequest
	}
	return checks.KindNone
}
