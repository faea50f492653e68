package main

/*
#include "track.h"
*/
import "C"

import "unsafe"

// The access tracker's Go side (track.c is the rest): the exact bytes of a
// derived datatype for the fault handler. The buffer-race findings'
// messages are in checks/bufferrace.go.

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
