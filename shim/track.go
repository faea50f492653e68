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
	d.typeDesc(h)
	where := ""
	if addr != 0 {
		where = fmt.Sprintf(" at offset %d", int64(at-addr))
	}
	if d.path != "" {
		where += " (element " + d.path + ")"
	}
	access := "load from"
	if ev.variant == C.MPIDBG_V_STORE {
		access = "store to"
	}
	buf := "send buffer"
	if ev.val == C.MPIDBG_TR_ALL {
		buf = "receive buffer"
	}
	const owner = "MPI owns it until MPI_Wait or a successful MPI_Test completes the operation"
	switch {
	case id == "send-buffer-write":
		d.printf("store to the send buffer%s while the send was pending: MPI may still read it; %s", where, owner)
	case id == "recv-buffer-access":
		d.printf("%s the receive buffer%s before the data arrived: the receive was pending; %s", access, where, owner)
	case id == "buffer-access-latent" && buf == "receive buffer":
		d.printf("%s the receive buffer%s after MPI had filled it but before the completion call: right here by chance, wrong where the data arrives later; %s", access, where, owner)
	case id == "buffer-access-latent":
		d.printf("%s the send buffer%s after MPI had taken the data but before the completion call: right here by chance, wrong where the send reads it later; %s", access, where, owner)
	default:
		d.printf("%s the %s%s while the operation was pending; %s", access, buf, where, owner)
	}
}

// bufferChanged writes the message of send-buffer-changed: the cheap
// tier found the copy it took at the start of a send different at its
// completion.
func (d *desc) bufferChanged() {
	ev := d.ev
	h, addr, at := uint64(ev.handle), uint64(ev.addr), uint64(ev.at)
	d.path = elementAt(h, addr, int64(ev.count), at)
	d.typeDesc(h)
	where := ""
	if addr != 0 {
		where = fmt.Sprintf(" at offset %d", int64(at-addr))
	}
	if d.path != "" {
		where += " (element " + d.path + ")"
	}
	send := callName(ev.related_call)
	d.printf("the buffer of the %s it completes changed while the send was pending: first changed byte%s; the program stored into it before this call (the next sends from that line are watched, to find the store)", send, where)
}
