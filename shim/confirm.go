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
	// confirmWindow is how long the call must stay blocked with no thread
	// kept from running; confirmMax is how long the rank looks before it
	// answers that it could not tell.
	confirmWindow = 50 * time.Millisecond
	confirmMax    = 2 * time.Second
	// confirmRan is the CPU time that shows a runnable thread was given
	// the CPU: a test or a progress loop of MPI takes microseconds.
	confirmRan = 100 * time.Microsecond
	// confirmGap: samples further apart than this mean the rank itself
	// was stopped between them (SIGSTOP, a stalled machine); what was
	// seen before says nothing of what follows.
	confirmGap = 5 * confirmEvery
)

// confirm answers q on conn. A panic answers Still, leaving the launcher
// with its own view, as if it had not asked.
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
	var w threadWindow
	for start := time.Now(); ; time.Sleep(confirmEvery) {
		var rec C.struct_mpidbg_blocked
		if C.mpidbg_blocked_read(&rec) == 1 && (rec.active == 0 || uint64(rec.seq) != q.Seq) {
			return // the call returned, or another began
		}
		if rec.polling != 0 {
			// a poller is blocked while it keeps testing; one that went
			// to compute is not (the watcher says so once pollStale has
			// passed, too late for this answer)
			var p C.struct_mpidbg_poll
			C.mpidbg_poll_read(&p)
			if p.enter_ns == 0 && time.Duration(p.now_ns-p.last_ns) >= confirmWindow {
				return
			}
		}
		now := time.Now()
		w.add(now, threadsNow(self))
		if w.span() >= confirmWindow && w.starved() < 0 {
			still = true
			return
		}
		if now.Sub(start) >= confirmMax {
			return
		}
	}
}

// threadLook is one thread at one sample: whether it could run (state R)
// and the CPU time it had used.
type threadLook struct {
	tid      int
	runnable bool
	cpu      time.Duration
}

// threadSample is every thread of the process at one moment.
type threadSample struct {
	at      time.Time
	threads []threadLook
}

// threadWindow is the samples of the current look, oldest first; a gap
// (confirmGap) starts it afresh.
type threadWindow struct{ samples []threadSample }

func (w *threadWindow) add(at time.Time, ts []threadLook) {
	if n := len(w.samples); n > 0 && at.Sub(w.samples[n-1].at) > confirmGap {
		w.samples = w.samples[:0]
	}
	w.samples = append(w.samples, threadSample{at: at, threads: ts})
	// Only the last confirmWindow matters: a thread that ran before it
	// may have been kept off the CPU since.
	for len(w.samples) > 2 && w.samples[len(w.samples)-1].at.Sub(w.samples[1].at) >= confirmWindow {
		w.samples = w.samples[1:]
	}
}

// span is the time the samples cover.
func (w *threadWindow) span() time.Duration {
	if len(w.samples) < 2 {
		return 0
	}
	return w.samples[len(w.samples)-1].at.Sub(w.samples[0].at)
}

// starved is a thread that was runnable at every sample of the window
// and got less than confirmRan of CPU over it, or -1.
func (w *threadWindow) starved() int {
	if len(w.samples) < 2 {
		return -1
	}
	first := map[int]time.Duration{}
	for _, t := range w.samples[0].threads {
		if t.runnable {
			first[t.tid] = t.cpu
		}
	}
	for _, s := range w.samples[1:] {
		now := map[int]bool{}
		for _, t := range s.threads {
			if t.runnable {
				now[t.tid] = true
			}
		}
		for tid := range first {
			if !now[tid] {
				delete(first, tid)
			}
		}
	}
	for _, t := range w.samples[len(w.samples)-1].threads {
		if cpu0, ok := first[t.tid]; ok && t.cpu-cpu0 < confirmRan {
			return t.tid
		}
	}
	return -1
}

// threadsNow samples every thread of the process but skip. A thread
// whose state cannot be read (it ended) is left out.
func threadsNow(skip int) []threadLook {
	d, err := os.Open("/proc/self/task")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make([]threadLook, 0, len(names))
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
		out = append(out, threadLook{tid: tid, runnable: stat[i+2] == 'R', cpu: cpu})
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
