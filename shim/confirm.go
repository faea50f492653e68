package main

/*
#include "shim.h"
*/
import "C"

import (
	"bytes"
	"net"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/mpidbg/mpidbg/wire"
)

// The rank's answer to the deadlock detector's question (wire.Confirm):
// is the call the launcher saw still blocked, now that the rank has been
// watched with its threads given the CPU? The launcher cannot tell a rank
// that waits for ever from one that is kept off the CPU while the message
// it waits for has arrived: neither sends anything. The rank can: a
// thread that could run (state R) and got no CPU time over the whole look
// has not had its chance, and the answer is then "not yet".

const (
	confirmEvery = 10 * time.Millisecond
	// confirmLook is the shortest look; confirmMax is how long the rank
	// looks before it answers that it could not tell.
	confirmLook = 50 * time.Millisecond
	confirmMax  = 2 * time.Second
	// confirmRan is the CPU time that shows a runnable thread was given
	// the CPU: a test or a progress loop of MPI takes microseconds.
	confirmRan = 100 * time.Microsecond
)

// confirm answers q on conn. The launcher asked once the job had not
// changed for its timeout, so a message the call waits for was sent
// before the question came: a thread that ran after it came, with the
// call still not returned, had it to take. A panic answers Still,
// leaving the launcher with its own view, as if it had not asked.
func (l *launcher) confirm(conn net.Conn, q wire.Confirm) {
	still := false
	defer func() {
		if recover() != nil {
			still = true
		}
		l.sendOn(conn, wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: worldRank(), Seq: q.Seq, Probe: q.Probe, Still: still}})
	}()
	// On a thread of its own, so that the thread doing the looking is the
	// one left out of the judgement.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := syscall.Gettid()
	var look threadLook
	var polls pollShare
	for start := time.Now(); ; time.Sleep(confirmEvery) {
		blocked, polling := sameCall(q.Seq)
		if !blocked {
			return // the call returned, or another began
		}
		if polling && !polls.add() {
			return
		}
		look.add(threadsNow(self))
		if time.Since(start) >= confirmLook && look.starved() < 0 && polls.waiting() {
			if b, _ := sameCall(q.Seq); b { // it may have returned while the threads were read
				still = true
			}
			return
		}
		if time.Since(start) >= confirmMax {
			return
		}
	}
}

// sameCall tells whether the rank is still blocked in call seq, and
// whether it polls rather than waits in a call. A record being written
// (a call beginning or ending) is read again.
func sameCall(seq uint64) (blocked, polling bool) {
	var rec C.struct_mpidbg_blocked
	for C.mpidbg_blocked_read(&rec) != 1 {
		time.Sleep(time.Millisecond)
	}
	return rec.active != 0 && uint64(rec.seq) == seq, rec.polling != 0
}

// pollShare judges a rank that polls as the watcher does (poller in
// watch.go): it waits while at least half of its time goes to the tests;
// over the look, since a rank that went to compute between its tests is
// not blocked, though the watcher says so only later.
type pollShare struct {
	n        int
	at0, in0 int64 // the first sample's clock and time inside tests (ns)
	at, in   int64 // the last sample's
}

// add takes the poll times now; false when the tests stopped coming.
func (p *pollShare) add() bool {
	var c C.struct_mpidbg_poll
	C.mpidbg_poll_read(&c)
	in := int64(c.in_ns)
	if c.enter_ns != 0 && c.now_ns > c.enter_ns {
		in += int64(c.now_ns - c.enter_ns)
	}
	if p.n == 0 {
		p.at0, p.in0 = int64(c.now_ns), in
	}
	p.n++
	p.at, p.in = int64(c.now_ns), in
	return c.enter_ns != 0 || time.Duration(c.now_ns-c.last_ns) < confirmLook
}

// waiting: no poll seen, or at least half of the look inside tests.
func (p *pollShare) waiting() bool {
	return p.n == 0 || p.at == p.at0 || 2*(p.in-p.in0) >= p.at-p.at0
}

// threadState is one thread at one sample: whether it could run (state
// R) and the CPU time it had used.
type threadState struct {
	tid      int
	runnable bool
	cpu      time.Duration
}

// threadLook follows the threads over a look: for each, the CPU time it
// had at the first sample it was seen in, whether it was runnable at
// every sample since, and at how many samples it was seen.
type threadLook struct {
	seen map[int]*threadSeen
	last []threadState
}

type threadSeen struct {
	cpu0   time.Duration
	always bool
	n      int
}

func (l *threadLook) add(ts []threadState) {
	if l.seen == nil {
		l.seen = map[int]*threadSeen{}
	}
	now := make(map[int]bool, len(ts))
	for _, t := range ts {
		now[t.tid] = true
		s := l.seen[t.tid]
		if s == nil {
			s = &threadSeen{cpu0: t.cpu, always: true}
			l.seen[t.tid] = s
		}
		s.always = s.always && t.runnable
		s.n++
	}
	for tid := range l.seen {
		if !now[tid] { // it ended
			delete(l.seen, tid)
		}
	}
	l.last = ts
}

// starved is a thread that was runnable at every sample of the look and
// got less than confirmRan of CPU since the first, or -1. A thread seen
// at one sample only is not judged yet.
func (l *threadLook) starved() int {
	for _, t := range l.last {
		if s := l.seen[t.tid]; s != nil && s.n > 1 && s.always && t.cpu-s.cpu0 < confirmRan {
			return t.tid
		}
	}
	return -1
}

// threadsNow samples every thread of the process but skip. A thread
// whose state cannot be read (it ended) is left out.
func threadsNow(skip int) []threadState {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make([]threadState, 0, len(names))
	for _, name := range names {
		tid, err := strconv.Atoi(name)
		if err != nil || tid == skip {
			continue
		}
		stat, err := os.ReadFile("/proc/self/task/" + name + "/stat")
		if err != nil {
			continue
		}
		// the state follows the command name, which is in parentheses and
		// may hold anything: after the last ')'
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || i+2 >= len(stat) {
			continue
		}
		cpu, ok := threadCPU(tid)
		if !ok {
			continue
		}
		out = append(out, threadState{tid: tid, runnable: stat[i+2] == 'R', cpu: cpu})
	}
	return out
}

// threadCPU is the CPU time thread tid of this process has used, from its
// clock (Linux's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), which a
// process may read for any of its threads).
func threadCPU(tid int) (time.Duration, bool) {
	clock := int32(^uint32(tid)<<3) | 2 | 4
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, uintptr(clock), uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
