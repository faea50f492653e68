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
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// The rank's side of the deadlock detector. A goroutine reads the
// blocked-call record (blocked.h) every watchEvery; a call that is still
// the same (same seq) after blockedAfter is announced to the launcher with
// its waits in MPI_COMM_WORLD ranks and its stack, and its return with
// Unblocked. Another goroutine reads the launcher's commands (Stop). None
// of this calls MPI, and none of it may stop or crash the rank: the record
// is copied under its seqlock, the stack is taken by the blocked thread
// itself (blocked.c), and every step recovers from a panic.

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
}

// step looks at the record once; false when the connection is gone.
func (l *launcher) step(conn net.Conn, w *watcher, now time.Time) (alive bool) {
	alive = true
	defer func() {
		if recover() != nil {
			*w = watcher{} // start over at the next look
		}
	}()
	var rec C.struct_mpidbg_blocked
	if C.mpidbg_blocked_read(&rec) != 1 {
		return true // a writer was busy: look again later
	}
	seq := uint64(rec.seq)
	active := rec.active != 0
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
	if w.announced == seq || now.Sub(w.seen) < blockedAfter {
		return l.connected(conn)
	}
	// The stack is taken once per call, by the blocked thread; the
	// arguments are formatted with it. Then the record is read again: if
	// the call returned meanwhile, there is nothing to announce.
	C.mpidbg_blocked_stack(C.uint64_t(seq))
	if C.mpidbg_blocked_read(&rec) != 1 || rec.active == 0 || uint64(rec.seq) != seq {
		return l.connected(conn)
	}
	b := blockedOf(&rec, now.Sub(w.seen))
	if !l.sendOn(conn, wire.Message{Kind: wire.KindBlocked, Blocked: b}) {
		return false
	}
	w.announced = seq
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

// blockedOf turns a copy of the record into the message: the call, its
// site and arguments, the waits with their peers translated to
// MPI_COMM_WORLD ranks, the stack from the call's site outwards.
func blockedOf(rec *C.struct_mpidbg_blocked, blockedFor time.Duration) *wire.Blocked {
	b := &wire.Blocked{
		Rank:         worldRank(),
		Seq:          uint64(rec.seq),
		Call:         callName(rec.call),
		Site:         site(uint64(rec.site)),
		Args:         cstringN(unsafe.Pointer(&rec.args[0]), len(rec.args)),
		Mode:         wire.And,
		ZeroBuffered: rec.zero_buffered != 0,
		ForMS:        blockedFor.Milliseconds(),
	}
	if rec.mode == C.MPIDBG_WAIT_OR {
		b.Mode = wire.Or
	}
	n := int(rec.nwait)
	if n > len(rec.wait) {
		n, b.Truncated = len(rec.wait), true
	}
	names := map[uint64]string{}
	for i := 0; i < max(n, 0); i++ {
		b.Waits = append(b.Waits, waitOf(&rec.wait[i], names))
	}
	frames := make([]uint64, 0, len(rec.frames))
	for i := 0; i < min(max(int(rec.nframes), 0), len(rec.frames)); i++ {
		frames = append(frames, uint64(rec.frames[i]))
	}
	b.Stack = stackOf(frames, uint64(rec.site))
	return b
}

// waitOf translates one wait entry. names caches communicator names by
// handle for one message.
func waitOf(w *C.struct_mpidbg_wait, names map[uint64]string) wire.Wait {
	out := wire.Wait{Tag: int(w.tag), Call: callName(w.call), Comm: uint64(w.comm_id), Coll: uint64(w.coll_seq)}
	if int(w.tag) == int(C.watch_any_tag()) {
		out.Tag = wire.AnyTag
	}
	if w.site != 0 {
		out.Site = site(uint64(w.site))
	}
	h := uint64(w.comm)
	if h != 0 {
		name, ok := names[h]
		if !ok {
			var buf [C.MPI_MAX_OBJECT_NAME]C.char
			C.watch_comm_name(C.uint64_t(h), &buf[0], C.int(len(buf)))
			name = C.GoString(&buf[0])
			names[h] = name
		}
		out.CommName = name
	}
	peer := int(w.peer)
	switch w.kind {
	case C.MPIDBG_WAIT_RECV:
		out.Kind = wire.WaitRecv
		out.Any = peer < 0
	case C.MPIDBG_WAIT_SEND:
		out.Kind = wire.WaitSend
	case C.MPIDBG_WAIT_COLL:
		out.Kind, peer = wire.WaitColl, -1
	default:
		out.Kind = wire.WaitOther
		return out
	}
	group := commWorldRanks(h)
	switch {
	case group == nil:
		// not translated: the detector takes the wait as satisfiable
	case peer < 0:
		out.Ranks = group
	case peer < len(group):
		out.Ranks = []int{group[peer]}
	}
	return out
}

// commWorldRanks returns the MPI_COMM_WORLD ranks of a communicator's
// peers (the remote group of an intercommunicator), in its rank order;
// nil when the shim does not know them.
func commWorldRanks(comm uint64) []int {
	size := mpiWorldSize()
	if size <= 0 || comm == 0 {
		return nil
	}
	buf := make([]C.int32_t, size)
	n := int(C.mpidbg_comm_world_ranks(C.uint64_t(comm), &buf[0], C.int32_t(size), 0))
	if n <= 0 || n > size {
		return nil
	}
	out := make([]int, 0, n)
	for _, r := range buf[:n] {
		if r < 0 || int(r) >= size {
			return nil // a rank outside the world: not a translation to trust
		}
		out = append(out, int(r))
	}
	return out
}

// stackOf is the part of a stack (innermost first) the user wrote: from
// the call's site, when the stack holds it (the frames before are inside
// MPI and the shim), up to the first frame in the C library (what called
// main, or started the thread).
func stackOf(frames []uint64, callSite uint64) []checks.Site {
	for i, pc := range frames {
		if pc == callSite {
			frames = frames[i:]
			break
		}
	}
	var out []checks.Site
	for _, pc := range frames {
		s := site(pc)
		if base := filepath.Base(s.Module); strings.HasPrefix(base, "libc.so") || strings.HasPrefix(base, "libc-") {
			break
		}
		out = append(out, s)
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

// commands reads what the launcher sends on conn until it closes: Stop
// stops the rank for a debugger; other kinds are for newer ranks, and
// ignored.
func (l *launcher) commands(conn net.Conn) {
	defer func() { _ = recover() }()
	r := wire.NewReader(conn)
	for {
		m, err := r.Read()
		if errors.Is(err, wire.ErrMalformed) {
			continue
		}
		if err != nil {
			return
		}
		if m.Kind == wire.KindStop {
			stopForDebugger(m.Stop.Why)
		}
	}
}

// prSetPtracer and prSetPtracerAny let any process of the user attach
// (Yama's ptrace_scope 1 allows only ancestors otherwise).
const (
	prSetPtracer    = 0x59616d61
	prSetPtracerAny = ^uintptr(0)
)

// stopForDebugger says how to attach, then stops the whole process
// (every thread) with SIGSTOP; a debugger, or SIGCONT, resumes it.
func stopForDebugger(why string) {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetPtracer, prSetPtracerAny, 0)
	host, _ := os.Hostname()
	pid := os.Getpid()
	if why == "" {
		why = "asked by mpidbg"
	}
	fmt.Fprintf(os.Stderr, "mpidbg: rank %d (pid %d on %s) stopped (%s): attach with gdb -p %d; resume with kill -CONT %d\n",
		worldRank(), pid, host, why, pid, pid)
	syscall.Kill(pid, syscall.SIGSTOP)
}
