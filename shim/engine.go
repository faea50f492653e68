package main

/*
#include <stdlib.h>
#include <string.h>
#include "engine.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// The entry points the C side calls. None of them may take the
// application down: a panic is recovered and the answer is "unknown".

//export mpidbg_go_init
func mpidbg_go_init() {
	defer func() { _ = recover() }()
	goProcsForThreads()
	launch.start()
}

// mpidbg_go_sessions_only is a process that used MPI through sessions
// alone (sessions.c): it reaches the launcher only to say that it was
// not checked.
//
//export mpidbg_go_sessions_only
func mpidbg_go_sessions_only() {
	defer func() { _ = recover() }()
	launch.start()
	launch.note("used MPI through the sessions model only (MPI_Session_init, MPI-4.1 §11.3), without MPI_Init: mpidbg checks a process from MPI_Init on, so its MPI calls were not checked")
	launch.bye(0)
}

// mpidbg_go_enter does nothing: a thread's first call into Go binds it
// to the runtime, and the C side makes that call where it is safe
// (mpidbg_track_first_go).
//
//export mpidbg_go_enter
func mpidbg_go_enter() {}

//export mpidbg_go_finalize
func mpidbg_go_finalize(findings C.int64_t) {
	defer func() { _ = recover() }()
	launch.bye(int(findings))
}

// mpidbg_go_basic_size is the size in bytes the model gives the
// predefined type basic (datatype.Basic), -1 for a number it does not
// know: the registry enters a predefined handle only when MPI's size for
// it is the model's (reg.c), so that a library built with other Fortran
// kinds leaves the type unknown rather than wrong.
//
//export mpidbg_go_basic_size
func mpidbg_go_basic_size(basic C.int32_t) C.int64_t {
	if b := datatype.Basic(basic); basic > 0 && basic < 256 && b.Valid() {
		return C.int64_t(b.Size())
	}
	return -1
}

// mpidbg_go_overlap_count returns the smallest count at which a buffer of
// the type overlaps itself (0: never), or -1 when the model cannot tell.
//
//export mpidbg_go_overlap_count
func mpidbg_go_overlap_count(h C.uint64_t) (n C.int64_t) {
	n = -1
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	t, err := modelOf(uint64(h))
	if err != nil {
		return -1
	}
	return C.int64_t(t.SelfOverlapCount())
}

// mpidbg_go_ctor_check builds a datatype from constructor arguments in
// MPI_Type_get_contents form and, when a rule is broken, writes the
// model's rule text to out and returns 1.
//
//export mpidbg_go_ctor_check
func mpidbg_go_ctor_check(combiner C.int, ints *C.int32_t, nints C.int, addrs *C.int64_t, naddrs C.int,
	types *C.uint64_t, ntypes C.int, out *C.char, outlen C.int) (bad C.int) {
	defer func() {
		if recover() != nil {
			bad = 0
		}
	}()
	is := make([]int32, int(nints))
	for i, v := range unsafe.Slice(ints, int(nints)) {
		is[i] = int32(v)
	}
	as := make([]int64, int(naddrs))
	for i, v := range unsafe.Slice(addrs, int(naddrs)) {
		as[i] = int64(v)
	}
	olds := make([]*datatype.Type, int(ntypes))
	for i, h := range unsafe.Slice(types, int(ntypes)) {
		t, err := modelOf(uint64(h))
		if err != nil {
			return 0
		}
		olds[i] = t
	}
	c := datatype.Combiner(combiner)
	_, err := registry.FromContents(thisMPI(), c, is, as, olds)
	var ae *datatype.ArgError
	var ce *registry.ContentsError
	var text string
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ae):
		text = ae.Error()
	case errors.As(err, &ce) && !strings.Contains(ce.Msg, "fit its layout"):
		text = strings.ToLower(c.String()) + ": " + ce.Msg
	default:
		return 0
	}
	cstr(out, int(outlen), text)
	return 1
}

// mpidbg_go_overlap tells whether two buffer segments share a byte, and
// the first one: 1 yes, 0 no, -1 the model does not know a type.
//
//export mpidbg_go_overlap
func mpidbg_go_overlap(a, b *C.struct_mpidbg_seg, at *C.uint64_t) (r C.int) {
	defer func() {
		if recover() != nil {
			r = -1
		}
	}()
	ba, err := bufferOf(a.addr, a.count, a._type)
	if err != nil {
		return -1
	}
	bb, err := bufferOf(b.addr, b.count, b._type)
	if err != nil {
		return -1
	}
	addr, ok := datatype.Overlap(ba, bb)
	if !ok {
		return 0
	}
	*at = C.uint64_t(addr)
	return 1
}

func bufferOf(addr C.uint64_t, count C.int64_t, h C.uint64_t) (datatype.Buffer, error) {
	t, err := modelOf(uint64(h))
	if err != nil {
		return datatype.Buffer{}, err
	}
	return datatype.Buffer{Addr: int64(addr), Type: t, Count: int64(count)}, nil
}

// mpidbg_go_report turns an event into a finding: text, element path and
// related places; writes it to the registry's ring and to the launcher
// (or standard error); returns the ring slot for the break hook.
//
//export mpidbg_go_report
func mpidbg_go_report(ev *C.struct_mpidbg_ev) (slot *C.struct_mpidbg_finding) {
	defer func() {
		if r := recover(); r != nil {
			slot = nil
		}
	}()
	f, relSite := describe(ev)
	sev := C.uint32_t(0)
	switch f.Severity {
	case checks.SevWarning:
		sev = 1
	case checks.SevInfo:
		sev = 2
	}
	cs := func(s string) *C.char { return C.CString(s) }
	id, cat, call, path, msg := cs(f.ID), cs(string(f.Category)), cs(f.Call), cs(f.Path), cs(f.Message)
	slot = C.mpidbg_ring_put(ev.site, C.uint64_t(relSite), sev, id, cat, call, path, msg)
	for _, p := range []*C.char{id, cat, call, path, msg} {
		C.free(unsafe.Pointer(p))
	}
	launch.finding(f)
	return slot
}

// mpidbg_go_note passes a note about how this rank is checked (a check
// this machine cannot support) to the launcher's report.
//
//export mpidbg_go_note
func mpidbg_go_note(text *C.char) {
	defer func() { recover() }()
	launch.note(C.GoString(text))
}

// cstr copies s, NUL-terminated and truncated, into a C buffer.
func cstr(out *C.char, n int, s string) {
	if n <= 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(out)), n)
	k := copy(b[:n-1], s)
	b[k] = 0
}

// site describes a code address as checks.Site.
func site(pc uint64) checks.Site {
	if pc == 0 {
		return checks.Site{}
	}
	if pc&registry.PySiteTag != 0 {
		return pythonSite(pc) // a Python script's call (python.go)
	}
	var buf [4096]C.char
	var off C.uint64_t
	if C.mpidbg_site_info(C.uint64_t(pc), &buf[0], C.int(len(buf)), &off) != 0 {
		return checks.Site{Offset: pc}
	}
	return checks.Site{Module: C.GoString(&buf[0]), Offset: uint64(off)}
}

func callName(id C.int32_t) string {
	return C.GoString(C.mpidbg_call_name(C.int(id)))
}

func worldRank() int { return int(C.mpidbg_registry.world_rank) }

// spawned says MPI_Comm_spawn started this process (spawn.c).
func spawned() bool { return C.mpidbg_spawned != 0 }

// who names this process on standard error: its rank, or, for a spawned
// process, which is not one of the job's ranks, its rank in its own
// MPI_COMM_WORLD and its pid.
func who() string {
	if spawned() {
		return fmt.Sprintf("spawned process %d (pid %d)", worldRank(), os.Getpid())
	}
	return "rank " + strconv.Itoa(worldRank())
}
