package main

/*
#include "engine.h"
*/
import "C"

import (
	"unsafe"

	"github.com/mpidbg/mpidbg/datatype"
)

// The Go half of the one-sided conflict checks (rma.c, rma_epoch.c): the
// exact bytes an operation touches at its target, from the target
// datatype, so that two origins writing the even and the odd elements of
// one array with vector types are not taken for a conflict.

// mpidbg_go_rma_blocks writes the bytes count instances of the datatype h
// occupy, from the start of the buffer, as sorted, disjoint, merged blocks
// (pairs lo, hi, hi exclusive) into out, at most max of them, and returns
// how many. It returns -1 when there are more than max blocks and -2 when
// the model does not know the type (the caller then makes no record). *basic receives the one basic
// type (datatype.Basic) all elements have, or -1 when they differ: MPI
// allows concurrent accumulates only with the same basic type. *esize
// receives the bytes of one such element when elements of it lie end to
// end inside a block (elementSize), else 0: concurrent accumulates must
// also agree on where the elements start (MPI-4.1 §12.7.1).
//
//export mpidbg_go_rma_blocks
func mpidbg_go_rma_blocks(h C.uint64_t, count C.int64_t, out *C.int64_t, max C.int64_t, basic *C.int32_t, esize *C.int32_t) (n C.int64_t) {
	defer func() {
		if recover() != nil {
			n = -2
		}
	}()
	*basic = -1
	*esize = 0
	t, err := modelOf(uint64(h))
	if err != nil {
		return -2
	}
	b := uniformBasic(t)
	*basic = C.int32_t(b)
	if b > 0 {
		*esize = C.int32_t(elementSize(datatype.Basic(b)))
	}
	var total int64
	for _, s := range t.Strided(int64(count)) {
		total += s.NumBlocks()
		if total > 4*int64(max) {
			return -1 // even merging could not bring it under max: do not expand
		}
	}
	bs := t.Blocks(int64(count))
	if int64(len(bs)) > int64(max) {
		return -1
	}
	o := unsafe.Slice((*C.int64_t)(unsafe.Pointer(out)), 2*len(bs))
	for i, b := range bs {
		o[2*i] = C.int64_t(b.Start)
		o[2*i+1] = C.int64_t(b.End)
	}
	return C.int64_t(len(bs))
}

// uniformBasic is the basic type of every element of t, or -1 when t has
// none or more than one.
func uniformBasic(t *datatype.Type) int {
	sig := t.Signature()
	if sig.NumElements() == 0 {
		return -1
	}
	e, err := t.ElementAt(1, 0)
	if err != nil {
		return -1
	}
	if !datatype.Compressed([]datatype.Run{{Basic: e.Basic, Count: sig.NumElements()}}).Equal(sig) {
		return -1
	}
	return int(e.Basic)
}

// elementSize is the bytes of one value of b when consecutive values in a
// block of the type map follow each other without a gap, so that a block
// [lo, hi) holds elements at lo, lo+size, ...; 0 for the pair types
// whose fields leave a gap or whose extent exceeds their size
// (MPI_SHORT_INT, MPI_DOUBLE_INT, ...), where a block does not say where
// its elements start.
func elementSize(b datatype.Basic) int64 {
	if !b.IsPair() {
		return b.Size()
	}
	f, at := b.Fields()
	if at[0] != 0 || at[1] != f[0].Size() || b.Size()%b.Align() != 0 {
		return 0
	}
	return b.Size()
}
