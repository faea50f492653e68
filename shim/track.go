package main

/*
#include "track.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// The access tracker's Go side (track.c is the rest): the exact bytes of a
// derived datatype for the fault handler, and the messages of the
// buffer-race findings.

// mpidbg_go_layout writes the strided blocks of count instances of the
// type into out (C.MPIDBG_TR_BLOCKS of them at most, each with at most
// C.MPIDBG_TR_DIMS dimensions) and returns their number; -1 when the
// model does not know the type or its layout needs more.
//
//export mpidbg_go_layout
func mpidbg_go_layout(h C.uint64_t, count C.int64_t, out *C.struct_mpidbg_tr_block) (n C.int) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	t, err := modelOf(uint64(h))
	if err != nil {
		return -1
	}
	blocks := t.Strided(int64(count))
	if len(blocks) == 0 || len(blocks) > C.MPIDBG_TR_BLOCKS {
		return -1
	}
	dst := unsafe.Slice(out, C.MPIDBG_TR_BLOCKS)
	for i, b := range blocks {
		if len(b.Dims) > C.MPIDBG_TR_DIMS {
			return -1
		}
		o := &dst[i]
		*o = C.struct_mpidbg_tr_block{}
		o.off = C.int64_t(b.Off)
		o.len = C.int64_t(b.Len)
		o.nd = C.int32_t(len(b.Dims))
		for d, dim := range b.Dims {
			o.cnt[d] = C.int64_t(dim.Count)
			o.stride[d] = C.int64_t(dim.Stride)
		}
	}
	return C.int(len(blocks))
}

func init() {
	for _, id := range []string{"send-buffer-write", "recv-buffer-access", "buffer-access-latent"} {
		id := id
		messageHooks[id] = func(d *desc) { d.bufferAccess(id) }
	}
	messageHooks["send-buffer-changed"] = (*desc).bufferChanged
}

// bufferAccess writes the message of a load or store of the program to a
// buffer MPI owned (send-buffer-write, recv-buffer-access,
// buffer-access-latent; the event as track.c fills it: variant load or
// store, val the range's mode, val2 1 when MPI had moved the data): the
// kind of access, the buffer, the offset and element touched, and the
// state of the operation.
func (d *desc) bufferAccess(id string) {
	ev := d.ev
	h, addr, at := uint64(ev.handle), uint64(ev.addr), uint64(ev.at)
	d.path = elementAt(h, addr, int64(ev.count), at)
	where := fmt.Sprintf(" (%d x %s)", int64(ev.count), d.typeDesc(h))
	if addr != 0 {
		where += fmt.Sprintf(" at offset %d", int64(at-addr))
	}
	if d.path != "" {
		where += ", element " + d.path + ","
	}
	access := "load from"
	if ev.variant == C.MPIDBG_V_STORE {
		access = "store to"
	}
	buf, op := "send buffer", "send"
	if ev.val == C.MPIDBG_TR_ALL {
		buf, op = "receive buffer", "receive"
	}
	const done = "MPI_Wait or a successful MPI_Test"
	switch {
	case id == "send-buffer-write":
		d.printf("store to the send buffer%s before the send completed: MPI may read the buffer until %s completes it", where, done)
	case id == "recv-buffer-access":
		d.printf("%s the receive buffer%s before the receive completed: the data had not arrived; MPI may write the buffer until %s completes it", access, where, done)
	case id == "buffer-access-latent" && op == "receive":
		d.printf("%s the receive buffer%s after the data arrived but before %s completed the receive: correct here by chance, erroneous wherever the data arrives later", access, where, done)
	case id == "buffer-access-latent":
		d.printf("%s the send buffer%s after MPI had taken the data but before %s completed the send: correct here by chance, erroneous wherever MPI reads the buffer later", access, where, done)
	default:
		d.printf("%s the %s%s before the operation completed", access, buf, where)
	}
}

// bufferChanged writes the message of send-buffer-changed: the cheap
// tier found the copy it took at the start of a send different at its
// completion.
func (d *desc) bufferChanged() {
	ev := d.ev
	h, addr, at := uint64(ev.handle), uint64(ev.addr), uint64(ev.at)
	d.path = elementAt(h, addr, int64(ev.count), at)
	what := fmt.Sprintf("%d x %s", int64(ev.count), d.typeDesc(h))
	where := ""
	if addr != 0 {
		where = fmt.Sprintf(" at offset %d", int64(at-addr))
	}
	if d.path != "" {
		where += ", element " + d.path
	}
	send := callName(ev.related_call)
	d.printf("the send buffer (%s) of the %s completed here changed while the send was pending (first changed byte%s): the program stored into it after the %s and before this call", what, send, where, send)
}
