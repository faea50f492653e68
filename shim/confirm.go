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
// call still not returned, had it to take. The answer carries the call
// the rank is in now (0: none), which is q.Seq unless the call returned.
// A panic answers Still, leaving the launcher with its own view, as if
// it had not asked.
func (l *launcher) confirm(conn net.Conn, q wire.Confirm) {
	seq, still := q.Seq, false
	defer func() {
		if recover() != nil {
			seq, still = q.Seq, true
		}
		l.sendOn(conn, wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: worldRank(), Seq: seq, Probe: q.Probe, Still: still}})
	}()
	// On a thread of its own, so that the thread doing the looking is the
	// one left out of the judgement.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := syscall.Gettid()
	var look threadLook
	var polls pollShare
	for start := time.Now(); ; time.Sleep(confirmEvery) {
		now, polling := blockedCall()
		if seq = now; now != q.Seq {
			return // the call returned, or another began
		}
		if polling && !polls.add(readPoll()) {
			return // the tests stopped: the rank went to compute
		}
		look.add(threadsNow(self))
		if time.Since(start) >= confirmLook && look.starved() < 0 && polls.waiting() {
			// it may have returned while the threads were read
			seq, _ = blockedCall()
			still = seq == q.Seq
			return
		}
		if time.Since(start) >= confirmMax {
			return
		}
	}
}

// blockedCall is the call the rank is blocked in (its callSeq; 0:
// none), and whether it polls rather than waits in a call. A record being
// written, a call beginning or ending, is read again, for a while; one
// that stays so is a rank that moves.
func blockedCall() (seq uint64, polling bool) {
	var rec C.struct_mpidbg_blocked
	for try := 0; C.mpidbg_blocked_read(&rec) != 1; try++ {
		if try == 100 {
			return 0, false
		}
		time.Sleep(time.Millisecond)
	}
	if rec.active == 0 {
		return 0, false
	}
	return callSeq(&rec), rec.polling != 0
}

// pollShare judges a rank that polls as the watcher does (poller in
// watch.go): it waits while at least half of its time goes to the tests;
// over the look, since a rank that went to compute between its tests is
// not blocked, though the watcher says so only later.
type pollShare struct {
	first, last pollTimes
	n           int
}

// add takes the poll times c; false when the tests stopped coming.
func (p *pollShare) add(c pollTimes) bool {
	if p.n == 0 {
		p.first = c
	}
	p.n++
	p.last = c
	return c.testing(confirmLook)
}

// waiting: no poll seen, or at least half of the look inside tests.
func (p *pollShare) waiting() bool {
	dt := p.last.now - p.first.now
	return dt <= 0 || 2*(p.last.inTests()-p.first.inTests()) >= dt
}

// threadState is one thread at one sample: whether it could run (state
// R) and the CPU time it had used.
type threadState struct {
	tid      int
	runnable bool
	cpu      time.Duration
}

// threadLook follows the threads of the process over a look, each from
// the first sample it was seen in.
type threadLook struct {
	samples int
	seen    map[int]*threadSeen
}

type threadSeen struct {
	cpu0, cpu time.Duration // at the first sample, at the last
	always    bool          // runnable at every sample
	n, at     int           // samples it was seen in; the last of them
}

func (l *threadLook) add(ts []threadState) {
	if l.seen == nil {
		l.seen = map[int]*threadSeen{}
	}
	l.samples++
	for _, t := range ts {
		s := l.seen[t.tid]
		if s == nil {
			s = &threadSeen{cpu0: t.cpu, always: true}
			l.seen[t.tid] = s
		}
		s.cpu, s.always, s.at = t.cpu, s.always && t.runnable, l.samples
		s.n++
	}
	for tid, s := range l.seen {
		if s.at != l.samples { // it ended
			delete(l.seen, tid)
		}
	}
}

// starved is a thread that was runnable at every sample of the look and
// got less than confirmRan of CPU since the first, or -1. A thread seen
// at one sample only is not judged yet.
func (l *threadLook) starved() int {
	for tid, s := range l.seen {
		if s.n > 1 && s.always && s.cpu-s.cpu0 < confirmRan {
			return tid
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
