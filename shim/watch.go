package main

/*
#include <stdio.h>
#include "shim.h"

// watch_comm_name writes the name the registry holds for a communicator
// handle ("" when it has none), as blocked.c does for the arguments.
static void watch_comm_name(uint64_t h, char *out, int n)
{
	struct mpidbg_cobj *co = mpidbg_hmap_get(&mpidbg_comms, h);
	out[0] = 0;
	if (co && co->rec && co->rec->name[0])
		snprintf(out, n, "%s", co->rec->name);
}

static int watch_any_tag(void) { return MPI_ANY_TAG; }
*/
import "C"

import (
	"net"
	"time"
	"unsafe"

	"github.com/mpidbg/mpidbg/wire"
)

// The rank's side of the deadlock detector. A goroutine reads the
// blocked-call record (blocked.h) every watchEvery; a call that is still
// the same (same callSeq) after blockedAfter is announced to the launcher with
// its waits in MPI_COMM_WORLD ranks and its stack, and its return with
// Unblocked. Another goroutine reads the launcher's commands (Stop). None
// of this calls MPI, and none of it may stop or crash the rank: the record
// is copied under its seqlock, the stack is taken by the blocked thread
// itself (blocked.c), and every step recovers from a panic. The record
// becomes a message in blockedmsg.go; the commands are in stop.go.

const (
	watchEvery   = 25 * time.Millisecond
	blockedAfter = 100 * time.Millisecond
)

// watch runs until the connection conn is no longer the launcher's (Bye,
// or lost).
func (l *launcher) watch(conn net.Conn) {
	var w watcher
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for now := range t.C {
		if !l.step(conn, &w, now) {
			return
		}
	}
}

// watcher is what the watch loop remembers between looks.
type watcher struct {
	seq       uint64    // the call in the record at the last look; 0 none
	seen      time.Time // when that call was first seen
	announced uint64    // the call announced as blocked; 0 none
	poll      poller    // when the record is a polling episode
}

// poller tells when a rank that polls is only waiting. At each look it
// sees how much of the time since the last look the rank spent inside
// its tests, and sums that over the last pollLooks looks: at least half
// (a loop that does nothing but test) is waiting; less, or tests that
// stopped coming, is a rank that computes while it polls, as a correct
// program overlapping communication does. Summing over several looks
// keeps a rank that the scheduler paused for a moment from flapping
// between blocked and running. The episode counts as blocked from the
// look that began an unbroken run of waiting looks.
type poller struct {
	seq         uint64 // the episode looked at
	at, in      int64  // the last look's clock and the time inside tests then (ns)
	dt, din     [pollLooks]int64
	n           int
	waitingFrom int64 // the run of waiting looks began here; 0 none
}

// pollLooks is how many looks (watchEvery apart) the share is taken over.
const pollLooks = 16

// pollStale is how long after the last test a rank no longer counts as
// polling (it went to compute, or to another call).
const pollStale = 250 * time.Millisecond

// look takes the episode seq's counters; it returns whether the rank
// waits, and since when (ns, the C clock's).
func (p *poller) look(seq uint64, c pollTimes) (waiting bool, from int64) {
	if seq != p.seq {
		*p = poller{seq: seq, at: c.start}
	}
	in := c.inTests()
	k := p.n % pollLooks
	p.dt[k], p.din[k] = c.now-p.at, in-p.in
	p.n++
	p.at, p.in = c.now, in
	var dt, din int64
	for i := range min(p.n, pollLooks) {
		dt += p.dt[i]
		din += p.din[i]
	}
	busy := dt > 0 && 2*din >= dt && c.testing(pollStale)
	switch {
	case !busy:
		p.waitingFrom = 0
	case p.waitingFrom == 0:
		p.waitingFrom = c.now - p.dt[k]
	}
	return p.waitingFrom != 0, p.waitingFrom
}

// pollTimes is struct mpidbg_poll in Go.
type pollTimes struct{ start, last, in, enter, now int64 }

// readPoll reads the polling episode's times (blocked.c).
func readPoll() pollTimes {
	var p C.struct_mpidbg_poll
	C.mpidbg_poll_read(&p)
	return pollTimes{start: int64(p.start_ns), last: int64(p.last_ns), in: int64(p.in_ns), enter: int64(p.enter_ns), now: int64(p.now_ns)}
}

// inTests is the time spent inside the tests so far, the one under way
// included.
func (c pollTimes) inTests() int64 {
	if c.enter != 0 && c.now > c.enter {
		return c.in + c.now - c.enter
	}
	return c.in
}

// testing tells whether a test is under way or one returned within d:
// the rank still polls.
func (c pollTimes) testing(d time.Duration) bool {
	return c.enter != 0 || time.Duration(c.now-c.last) < d
}

// step looks at the record once; false when the connection is gone.
func (l *launcher) step(conn net.Conn, w *watcher, now time.Time) (alive bool) {
	alive = true
	defer func() {
		if recover() != nil {
			w.seq = 0 // look at the call afresh; what was announced stays so
		}
	}()
	var rec C.struct_mpidbg_blocked
	if C.mpidbg_blocked_read(&rec) != 1 {
		return true // a writer was busy: look again later
	}
	raw, seq := uint64(rec.seq), callSeq(&rec)
	active := rec.active != 0
	var pollFor time.Duration
	if active && rec.polling != 0 {
		pt := readPoll()
		waiting, from := w.poll.look(seq, pt)
		active = waiting
		pollFor = time.Duration(pt.now - from)
	}
	if w.announced != 0 && (!active || seq != w.announced) {
		if !l.sendOn(conn, wire.Message{Kind: wire.KindUnblocked, Unblocked: &wire.Unblocked{Rank: worldRank(), Seq: w.announced}}) {
			return false
		}
		w.announced = 0
	}
	if !active {
		w.seq = 0
		return l.connected(conn)
	}
	if seq != w.seq {
		w.seq, w.seen = seq, now
	}
	if rec.polling != 0 {
		w.seen = now.Add(-pollFor) // a poll is blocked from when it began to wait
	}
	if w.announced == seq || now.Sub(w.seen) < blockedAfter {
		return l.connected(conn)
	}
	// The stack is taken once per call, by the blocked thread; the
	// arguments are formatted with it. Then the record is read again: if
	// the call returned meanwhile, there is nothing to announce.
	C.mpidbg_blocked_stack(C.uint64_t(raw))
	if C.mpidbg_blocked_read(&rec) != 1 || rec.active == 0 || callSeq(&rec) != seq {
		return l.connected(conn)
	}
	b := blockedOf(recordOf(&rec), cLookup, now.Sub(w.seen))
	b.Polling = rec.polling != 0
	if !l.sendOn(conn, wire.Message{Kind: wire.KindBlocked, Blocked: b}) {
		return false
	}
	w.announced = b.Seq // the sends taken are counted once, in recordOf
	return true
}

// connected tells whether conn is still the launcher's connection.
func (l *launcher) connected(conn net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn == conn
}

// sendOn sends m if conn is still the launcher's connection.
func (l *launcher) sendOn(conn net.Conn, m wire.Message) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn == conn && l.send(m)
}

// callSeq names the call a record is about, for the launcher: the
// record's own number, and how many of its sends the receivers took
// meanwhile (blocked.h), so that the launcher sees the call change when
// one of its sends stops waiting (an MPI_Sendrecv whose small send was
// received while its receive still waits). The count sits in bits the
// composed record of MPI_THREAD_MULTIPLE uses, which never carries a
// slot: its sends go by shadow messages.
func callSeq(rec *C.struct_mpidbg_blocked) uint64 {
	seq, _ := takenSeq(rec)
	return seq
}

// takenSeq is callSeq and the taken flag of each listed wait, read once.
func takenSeq(rec *C.struct_mpidbg_blocked) (uint64, []bool) {
	n := min(max(int(rec.nwait), 0), len(rec.wait))
	taken := make([]bool, n)
	var count uint64
	for i := range n {
		if C.mpidbg_blocked_taken(&rec.wait[i]) != 0 {
			taken[i] = true
			count++
		}
	}
	return uint64(rec.seq) + count<<56, taken
}

// recordOf copies the C record into Go, its enumerations mapped.
func recordOf(rec *C.struct_mpidbg_blocked) record {
	seq, taken := takenSeq(rec)
	r := record{
		seq:   seq,
		call:  int32(rec.call),
		site:  uint64(rec.site),
		or:    rec.mode == C.MPIDBG_WAIT_OR,
		nwait: int(rec.nwait),
		zero:  rec.zero_buffered != 0,
		args:  cstringN(unsafe.Pointer(&rec.args[0]), len(rec.args)),
	}
	for i := range taken {
		w := waitRecordOf(&rec.wait[i])
		w.taken = taken[i]
		r.waits = append(r.waits, w)
	}
	for i := 0; i < min(max(int(rec.nframes), 0), len(rec.frames)); i++ {
		r.frames = append(r.frames, uint64(rec.frames[i]))
	}
	return r
}

func waitRecordOf(w *C.struct_mpidbg_wait) waitRecord {
	k := waitOther
	switch w.kind {
	case C.MPIDBG_WAIT_RECV:
		k = waitRecv
	case C.MPIDBG_WAIT_SEND:
		k = waitSend
	case C.MPIDBG_WAIT_COLL:
		k = waitColl
	case C.MPIDBG_WAIT_SYNC:
		k = waitSync
	}
	return waitRecord{kind: k, peer: int32(w.peer), tag: int32(w.tag), call: int32(w.call), win: w.win != 0,
		comm: uint64(w.comm), commID: uint64(w.comm_id), coll: uint64(w.coll_seq), site: uint64(w.site)}
}

// cLookup answers blockedOf's questions from the shim's C side.
var cLookup = lookup{
	call: func(id int32) string { return callName(C.int32_t(id)) },
	site: site,
	group: func(comm uint64) []int {
		return worldRanks(comm, func(h C.uint64_t, out *C.int32_t, n C.int32_t) C.int {
			return C.mpidbg_comm_world_ranks(h, out, n, 0)
		})
	},
	members: func(comm uint64) []int {
		return worldRanks(comm, func(h C.uint64_t, out *C.int32_t, n C.int32_t) C.int {
			return C.mpidbg_comm_world_ranks(h, out, n, 1)
		})
	},
	commName: func(comm uint64) string {
		var buf [C.MPI_MAX_OBJECT_NAME]C.char
		C.watch_comm_name(C.uint64_t(comm), &buf[0], C.int(len(buf)))
		return C.GoString(&buf[0])
	},
	winGroup: func(win uint64) []int {
		return worldRanks(win, func(h C.uint64_t, out *C.int32_t, n C.int32_t) C.int {
			return C.mpidbg_win_world_ranks(h, out, n)
		})
	},
	winName: func(win uint64) string {
		var buf [C.MPI_MAX_OBJECT_NAME + 16]C.char
		C.mpidbg_win_name(C.uint64_t(win), &buf[0], C.int(len(buf)))
		return C.GoString(&buf[0])
	},
	worldSize: mpiWorldSize,
	anyTag:    int(C.watch_any_tag()),
}

// worldRanks asks get for the MPI_COMM_WORLD ranks of a communicator's or
// window's group (nil when unknown).
func worldRanks(h uint64, get func(C.uint64_t, *C.int32_t, C.int32_t) C.int) []int {
	size := mpiWorldSize()
	if size <= 0 || h == 0 {
		return nil
	}
	buf := make([]C.int32_t, size)
	n := int(get(C.uint64_t(h), &buf[0], C.int32_t(size)))
	if n <= 0 || n > size {
		return nil
	}
	out := make([]int, n)
	for i, r := range buf[:n] {
		out[i] = int(r)
	}
	return out
}

// cstringN is the NUL-terminated string in a C array of n bytes, which
// need not hold a NUL.
func cstringN(p unsafe.Pointer, n int) string {
	b := unsafe.Slice((*byte)(p), n)
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
