package main

/*
#include "engine.h"
*/
import "C"

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// describe writes the finding an event stands for: the catalogue's
// category, severity and rule, a message naming the rule and the values,
// the element path where a datatype is involved, and the related places.
// It returns the finding and the code address of its first related place.
func describe(ev *C.struct_mpidbg_ev) (checks.Finding, uint64) {
	id := C.GoString(C.mpidbg_fid_name(C.int(ev.fid)))
	e, ok := checks.Lookup(id)
	if !ok {
		e = checks.Entry{ID: id, Category: checks.CatArgument, Severity: checks.SevError}
	}
	d := &desc{ev: ev, call: callName(ev.call), arg: C.GoString(ev.arg)}
	if ev.index >= 0 {
		d.arg = fmt.Sprintf("%s[%d]", d.arg, int(ev.index))
	}
	d.message(id)
	f := checks.Finding{
		ID:       e.ID,
		Category: e.Category,
		Severity: e.Severity,
		Message:  d.msg,
		Ranks:    []int{worldRank()},
		Call:     d.call,
		Path:     d.path,
		Rule:     e.Rule,
		Site:     site(uint64(ev.site)),
	}
	if ev.text != nil && crossCategory[e.Category] {
		crossRank(ev, &f)
	}
	var rel uint64
	if ev.related_site != 0 {
		rel = uint64(ev.related_site)
		f.Related = append(f.Related, checks.Related{Message: d.relatedText(), Site: site(rel)})
	}
	if d.typeSite != 0 {
		if rel == 0 {
			rel = d.typeSite
		}
		f.Related = append(f.Related, checks.Related{Message: d.typeText, Site: site(d.typeSite)})
	}
	return f, rel
}

// crossCategory holds the categories of the cross-rank findings, whose
// message the C side writes (xr_p2p.c, xr_coll.c).
var crossCategory = map[checks.Category]bool{
	checks.CatTypeMismatch: true, checks.CatCollective: true, checks.CatMessageRace: true, checks.CatLostMessage: true,
}

type desc struct {
	ev        *C.struct_mpidbg_ev
	call, arg string
	msg, path string
	typeSite  uint64 // where the datatype concerned was made
	typeText  string
}

func (d *desc) printf(format string, args ...any) {
	d.msg = d.call + ": " + fmt.Sprintf(format, args...)
}

func (d *desc) relatedText() string {
	other := callName(d.ev.related_call)
	switch d.ev.related_kind {
	case 1:
		return "datatype made here by " + other
	case 2:
		return "the " + other + " started here"
	case 3:
		return "created here by " + other
	case 4:
		return "MPI_Finalize called here"
	case 5:
		return "freed here by MPI_Type_free"
	case 6:
		return "the rank kept calling " + other + " here"
	}
	return "related"
}

const maxTypeText = 160

// typeText describes a datatype handle for a message: MPI_INT, or the
// derived type's constructor expression (with its name), and notes where
// a derived type was made.
func (d *desc) typeDesc(h uint64) string {
	if n := predefinedName(h); n != "" {
		return n
	}
	rec, ok := lookupType(h)
	if !ok {
		return fmt.Sprintf("%#x", h)
	}
	if d.typeSite == 0 && rec.Site != 0 {
		d.typeSite = rec.Site
		what := "datatype"
		if rec.Name != "" {
			what += " " + rec.Name
		}
		ctor := ctorNames[rec.Combiner]
		if ctor == "" {
			ctor = "a constructor"
		}
		d.typeText = what + " made here by " + ctor
	}
	t, err := modelOf(h)
	if err != nil {
		if rec.Name != "" {
			return rec.Name
		}
		return fmt.Sprintf("%#x (%s)", h, strings.ToLower(rec.Combiner.String()))
	}
	s := t.Expr()
	if len(s) > maxTypeText {
		s = s[:maxTypeText] + "..."
	}
	return s
}

// handleKind names the kind of object a handle is: from an MPICH
// handle's bits 26-29 (the kind of the value given, which may not be the
// kind the argument wants), else (an Open MPI handle is an address) from
// the kind the check that reported it says (enum mpidbg_hkind).
func handleKind(h uint64, hkind C.int32_t) (kind, null string) {
	if thisMPI() == registry.MPICH {
		switch (h >> 26) & 0xf {
		case 1:
			return "communicator", "MPI_COMM_NULL"
		case 2:
			return "group", "MPI_GROUP_NULL"
		case 3:
			return "datatype", "MPI_DATATYPE_NULL"
		case 6:
			return "operation", "MPI_OP_NULL"
		case 8:
			return "window", "MPI_WIN_NULL"
		case 11:
			return "request", "MPI_REQUEST_NULL"
		}
	}
	switch hkind {
	case C.MPIDBG_HK_COMM:
		return "communicator", "MPI_COMM_NULL"
	case C.MPIDBG_HK_GROUP:
		return "group", "MPI_GROUP_NULL"
	case C.MPIDBG_HK_WIN:
		return "window", "MPI_WIN_NULL"
	case C.MPIDBG_HK_REQUEST:
		return "request", "MPI_REQUEST_NULL"
	case C.MPIDBG_HK_OP:
		return "operation", "MPI_OP_NULL"
	}
	return "handle", "a null handle"
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (d *desc) message(id string) {
	ev := d.ev
	val, lim, h := int64(ev.val), int64(ev.lim), uint64(ev.handle)
	switch id {
	case "negative-count":
		d.printf("%s %d must be non-negative", d.arg, val)
	case "invalid-rank":
		switch {
		case ev.variant == C.MPIDBG_V_ANY_SOURCE:
			d.printf("%s is MPI_ANY_SOURCE, which only receives accept", d.arg)
		case ev.variant == C.MPIDBG_V_INTER:
			d.printf("%s %d is not a rank of the intercommunicator's remote group (size %d), MPI_PROC_NULL or, for receives, MPI_ANY_SOURCE", d.arg, val, lim)
		case ev.variant == C.MPIDBG_V_RECV:
			d.printf("%s %d is not a rank of the communicator (size %d), MPI_PROC_NULL or MPI_ANY_SOURCE", d.arg, val, lim)
		case strings.Contains(d.arg, "rank"):
			d.printf("%s %d is not a rank of the window's group (size %d) nor MPI_PROC_NULL", d.arg, val, lim)
		default:
			d.printf("%s %d is not a rank of the communicator (size %d) nor MPI_PROC_NULL", d.arg, val, lim)
		}
	case "invalid-root":
		if ev.variant == C.MPIDBG_V_INTER {
			d.printf("root %d is not MPI_ROOT, MPI_PROC_NULL or a rank of the remote group (size %d)", val, lim)
		} else {
			d.printf("root %d is not a rank of the communicator (size %d)", val, lim)
		}
	case "invalid-tag":
		switch ev.variant {
		case C.MPIDBG_V_ANY_TAG:
			d.printf("%s is MPI_ANY_TAG, which only receives accept", d.arg)
		case C.MPIDBG_V_RECV:
			d.printf("%s %d is outside 0..MPI_TAG_UB (%d) and not MPI_ANY_TAG", d.arg, val, lim)
		default:
			d.printf("%s %d is outside 0..MPI_TAG_UB (%d)", d.arg, val, lim)
		}
	case "null-buffer":
		d.printf("%s is NULL but %d x %s hold %d bytes of data; NULL (MPI_BOTTOM) needs a datatype of absolute addresses",
			d.arg, int64(ev.count), d.typeDesc(h), val)
	case "null-array":
		if val > 1 {
			d.printf("%s is NULL but %d entries are needed", d.arg, val)
		} else {
			d.printf("%s is NULL", d.arg)
		}
	case "invalid-handle":
		kind, null := handleKind(h, ev.hkind)
		switch ev.variant {
		case C.MPIDBG_V_NULL:
			d.printf("%s is %s", d.arg, null)
		case C.MPIDBG_V_FREED:
			d.printf("%s %#x is a %s that was freed", d.arg, h, kind)
		default:
			d.printf("%s %#x is not a %s any MPI call returned", d.arg, h, kind)
		}
	case "in-place-misuse":
		switch ev.variant {
		case C.MPIDBG_V_NOT_ROOT:
			d.printf("%s is MPI_IN_PLACE on rank %d, which is not the root: only the root may pass it", d.arg, val)
		case C.MPIDBG_V_INTERCOMM:
			d.printf("%s is MPI_IN_PLACE on an intercommunicator, where collectives have no in-place form", d.arg)
		default:
			d.printf("%s is MPI_IN_PLACE, which %s does not accept", d.arg, d.call)
		}
	case "invalid-argument":
		d.printf("%s", C.GoString(ev.text))
	case "type-null":
		d.printf("%s is MPI_DATATYPE_NULL", d.arg)
	case "type-unknown":
		d.printf("%s %#x is neither a predefined datatype nor one a constructor returned", d.arg, h)
	case "type-not-committed":
		d.printf("%s %s is used before MPI_Type_commit", d.arg, d.typeDesc(h))
	case "type-freed":
		d.printf("%s %s was freed by MPI_Type_free", d.arg, d.typeDesc(h))
	case "type-double-free":
		d.printf("%s %s was freed already", d.arg, d.typeDesc(h))
	case "type-free-predefined":
		d.printf("%s is the predefined datatype %s, which cannot be freed", d.arg, d.typeDesc(h))
	case "commit-predefined":
		d.printf("%s is the predefined datatype %s, committed already", d.arg, d.typeDesc(h))
	case "commit-twice":
		d.printf("%s %s is committed already", d.arg, d.typeDesc(h))
	case "request-unknown":
		switch ev.variant {
		case C.MPIDBG_V_INACTIVE:
			d.printf("%s was completed or freed already", d.arg)
		case C.MPIDBG_V_NOT_PERSISTENT:
			d.printf("%s is not a persistent request: only those can be started", d.arg)
		default:
			d.printf("%s is not a request any MPI call returned", d.arg)
		}
	case "request-active-start":
		d.printf("%s is still active: complete it before starting it again", d.arg)
	case "request-overwritten":
		d.printf("the request variable still held the active request of an earlier %s, which then was never completed", callName(ev.related_call))
	case "request-never-completed":
		d.printf("%s here never completed before MPI_Finalize", plural(val, "operation started", "operations started"))
	case "leak-type":
		one := "it"
		if val > 1 {
			one = "one of them"
		}
		d.printf("%s here never freed (%s: %s)", plural(val, "datatype made", "datatypes made"), one, d.typeDesc(h))
	case "leak-comm":
		d.printf("%s here never freed", plural(val, "communicator made", "communicators made"))
	case "leak-group":
		d.printf("%s here never freed", plural(val, "group made", "groups made"))
	case "leak-op":
		d.printf("%s here never freed", plural(val, "operation made", "operations made"))
	case "leak-win":
		d.printf("%s here never freed", plural(val, "window made", "windows made"))
	case "leak-request":
		d.printf("%s here never freed with MPI_Request_free", plural(val, "persistent request made", "persistent requests made"))
	case "recv-type-overlap":
		d.recvOverlap(h, int64(ev.count), val)
	case "buffer-overlap":
		d.bufferOverlap()
	case "send-recv-overlap":
		d.sendRecvOverlap()
	default:
		if hook := messageHooks[id]; hook != nil {
			hook(d)
			break
		}
		d.printf("%s", id)
	}
}

// messageHooks write the messages of findings described in other files
// (describe_*.go), by id.
var messageHooks = map[string]func(*desc){}

// elementAt returns the path of the element of count x h at addr that
// covers byte at, or "".
func elementAt(h uint64, addr uint64, count int64, at uint64) string {
	t, err := modelOf(h)
	if err != nil {
		return ""
	}
	el, ok := t.ElementAtOffset(count, int64(at)-int64(addr))
	if !ok {
		return ""
	}
	return el.Path.String()
}

func (d *desc) recvOverlap(h uint64, count, from int64) {
	desc := d.typeDesc(h)
	first, second := collision(h, count)
	if second != "" {
		d.path = second
		d.printf("%s %s overlaps itself from %s on and %d are received: elements %s and %s share bytes", d.arg, desc, plural(from, "instance", "instances"), count, first, second)
		return
	}
	d.printf("%s %s overlaps itself from %s on and %d are received", d.arg, desc, plural(from, "instance", "instances"), count)
}

// collisionLimit bounds the bytes of data the search for a colliding pair
// walks; beyond it the message names no elements.
const collisionLimit = 1 << 20

// collision finds the first element of count x h (in type-map order) that
// shares a byte with an earlier one, and returns both paths.
func collision(h uint64, count int64) (string, string) {
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
				return e1.Path.String(), e2.Path.String()
			}
		}
		for k := int64(0); k < b.Size(); k++ {
			owner[off+k] = i
		}
		i++
	}
	return "", ""
}

func (d *desc) bufferOverlap() {
	ev := d.ev
	other := callName(ev.related_call)
	here := elementAt(uint64(ev.handle), uint64(ev.addr), int64(ev.count), uint64(ev.at))
	there := elementAt(uint64(ev.handle2), uint64(ev.addr2), int64(ev.count2), uint64(ev.at))
	d.path = here
	d.typeDesc(uint64(ev.handle))
	verb := "reads memory that the " + other + " still in progress writes"
	switch ev.variant {
	case C.MPIDBG_V_WRITES:
		verb = "writes memory that the " + other + " still in progress reads"
	case C.MPIDBG_V_BOTH_WRITE:
		verb = "writes memory that the " + other + " still in progress also writes"
	}
	d.printf("%s %s: first shared byte%s%s", d.arg, verb, offsets(uint64(ev.at), uint64(ev.addr), "", uint64(ev.addr2), other), elements(here, there))
}

// offsets places the first shared byte at as offsets from the start of
// both buffers, never as an address: addresses differ from rank to rank,
// and the report merges only findings with the same message. A buffer at
// MPI_BOTTOM (0) has no start to count from. an and bn name the buffers
// ("" for the call's own, where the message names it already).
func offsets(at, a uint64, an string, b uint64, bn string) string {
	var parts []string
	if a != 0 {
		if an == "" {
			parts = append(parts, fmt.Sprintf("at offset %d here", int64(at-a)))
		} else {
			parts = append(parts, fmt.Sprintf("at offset %d of %s", int64(at-a), an))
		}
	}
	if b != 0 {
		if an == "" {
			parts = append(parts, fmt.Sprintf("%d in the %s's buffer", int64(at-b), bn))
		} else {
			parts = append(parts, fmt.Sprintf("%d of %s", int64(at-b), bn))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, ", ")
}

func elements(here, there string) string {
	switch {
	case here != "" && there != "":
		return fmt.Sprintf(", element %s here, %s there", here, there)
	case here != "":
		return fmt.Sprintf(", element %s here", here)
	}
	return ""
}

func (d *desc) sendRecvOverlap() {
	ev := d.ev
	recv := C.GoString(ev.text)
	here := elementAt(uint64(ev.handle2), uint64(ev.addr2), int64(ev.count2), uint64(ev.at))
	there := elementAt(uint64(ev.handle), uint64(ev.addr), int64(ev.count), uint64(ev.at))
	d.path = here
	d.typeDesc(uint64(ev.handle2))
	d.printf("%s and %s overlap: first shared byte%s%s; use disjoint buffers or MPI_IN_PLACE", d.arg, recv, offsets(uint64(ev.at), uint64(ev.addr), d.arg, uint64(ev.addr2), recv), elementsOf(recv, here, d.arg, there))
}

func elementsOf(a, pa, b, pb string) string {
	var parts []string
	if pa != "" {
		parts = append(parts, fmt.Sprintf("element %s of %s", pa, a))
	}
	if pb != "" {
		parts = append(parts, fmt.Sprintf("element %s of %s", pb, b))
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}
