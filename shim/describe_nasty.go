package main

/*
#include "engine.h"
*/
import "C"

import "time"

func init() {
	messageHooks["rma-unsynchronised"] = (*desc).unsynchronised
}

// unsynchronised writes the message of rma-unsynchronised (nasty.c): the
// held operation is the finding's call and place; val is its target
// rank, lim the hold timeout in ms (not the time it was actually held,
// which differs from rank to rank: the report merges equal messages),
// addr2 its target displacement; the related place is the call the rank
// kept making.
func (d *desc) unsynchronised() {
	ev := d.ev
	target := int64(ev.val)
	held := time.Duration(int64(ev.lim)) * time.Millisecond
	d.printf("the operation to rank %d (target_disp %d) was still held back after %v while this rank kept calling %s, which does not complete it; "+
		"MPI may deliver it only at a synchronisation call that does (MPI_Win_flush(%d, win), MPI_Win_unlock, ...): mpidbg issued it then",
		target, int64(ev.addr2), held, callName(ev.related_call), target)
}
