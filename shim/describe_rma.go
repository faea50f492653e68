package main

/*
#include "engine.h"
*/
import "C"

import (
	"fmt"

	"github.com/mpidbg/mpidbg/checks"
)

// The messages of the one-sided race findings. rma-conflict and
// rma-target-race are cross-rank: the C side (rma_epoch.c, rma_target.c)
// writes their text, and the places in other ranks travel as module hash
// and offset (crossRank). rma-origin-race comes from the access tracker
// (track.c), which fills the event like any tracked buffer: variant load
// or store, val the range's mode (1 MPI reads the buffer, 2 MPI writes
// it), addr/count/handle the buffer, at the byte touched, the operation
// as the related place.

func init() {
	crossCategory[checks.CatRMARace] = true
	messageHooks["rma-origin-race"] = (*desc).rmaOriginRace
}

// completers names the calls that complete a one-sided operation at the
// origin, for the advice in rma-origin-race.
const completers = "MPI_Win_fence, MPI_Win_complete, MPI_Win_unlock(_all), MPI_Win_flush(_local)(_all)"

func (d *desc) rmaOriginRace() {
	ev := d.ev
	op := callName(ev.related_call)
	here := elementAt(uint64(ev.handle), uint64(ev.addr), int64(ev.count), uint64(ev.at))
	d.path = here
	d.typeDesc(uint64(ev.handle))
	where := ""
	if ev.addr != 0 {
		where = fmt.Sprintf(" at offset %d", int64(uint64(ev.at)-uint64(ev.addr)))
	}
	if here != "" {
		where += ", element " + here
	}
	access, value := "loaded from", "read may be the old one, the new one or a mix"
	if ev.variant == C.MPIDBG_V_STORE {
		access, value = "stored to", "stored may be overwritten"
	}
	switch {
	case int64(ev.val) == 2: // MPI writes the buffer: a Get's (or get-accumulate's) result
		d.printf("the program %s the result buffer%s before the %s completed: MPI may write it at any time until the call that completes the operation at the origin (%s), so the value %s",
			access, where, op, completers, value)
	default: // MPI reads the buffer: a Put's or an accumulate's origin
		d.printf("the program %s the origin buffer%s before the %s completed: MPI may read it at any time until the call that completes the operation at the origin (%s), so the target may receive the old value, the new one or a mix",
			access, where, op, completers)
	}
}
