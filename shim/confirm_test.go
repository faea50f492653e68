package main

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestThreadLook: a thread that could run at every sample and got no CPU
// keeps the answer back; one that ran, slept, was runnable only at some
// samples, or was seen once, does not.
func TestThreadLook(t *testing.T) {
	ms := time.Millisecond
	state := func(tid int, r bool, cpu time.Duration) threadState {
		return threadState{tid: tid, runnable: r, cpu: cpu}
	}
	var l threadLook
	for i := range 6 {
		ts := []threadState{
			state(1, true, time.Duration(i)*ms),     // spins in MPI_Recv
			state(2, false, 5*ms),                   // waits in the kernel
			state(3, true, 7*ms),                    // kept off the CPU
			state(4, i == 2, 9*ms+time.Duration(i)), // runnable once
		}
		if i == 5 {
			ts = append(ts, state(5, true, ms)) // new
		}
		l.add(ts)
	}
	if got := l.starved(); got != 3 {
		t.Errorf("starved %d, want thread 3", got)
	}
	l.add([]threadState{state(1, true, 9*ms), state(3, true, 7*ms+200*time.Microsecond), state(5, true, ms)})
	if got := l.starved(); got != 5 {
		t.Errorf("starved %d after thread 3 ran, want 5 (runnable at two samples, no CPU)", got)
	}
	l.add([]threadState{state(1, true, 10*ms), state(3, true, 8*ms)}) // 5 ended
	if got := l.starved(); got != -1 {
		t.Errorf("starved %d, want none", got)
	}
}

// TestPollShare: a poller waits while half of the look goes to tests,
// the test under way included, and polls while its tests keep coming.
func TestPollShare(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, tt := range []struct {
		name        string
		times       []pollTimes
		wantPolls   bool
		wantWaiting bool
	}{
		{"no poll", nil, true, true},
		{"one sample", []pollTimes{{in: 10, now: 100, last: 99}}, true, true},
		{"tests all the time", []pollTimes{{in: 0, now: 0, last: 0}, {in: 49 * ms, now: 50 * ms, last: 50 * ms}}, true, true},
		{"half, one under way", []pollTimes{{in: 0, now: 0}, {in: 15 * ms, enter: 40 * ms, now: 50 * ms, last: 30 * ms}}, true, true},
		{"computes", []pollTimes{{in: 0, now: 0}, {in: 10 * ms, now: 50 * ms, last: 45 * ms}}, true, false},
		{"tests stopped", []pollTimes{{in: 0, now: 0}, {in: 40 * ms, now: 100 * ms, last: 40 * ms}}, false, false},
	} {
		var p pollShare
		polls := true
		for _, c := range tt.times {
			polls = p.add(c)
		}
		if polls != tt.wantPolls || p.waiting() != tt.wantWaiting {
			t.Errorf("%s: polls %v waiting %v, want %v %v", tt.name, polls, p.waiting(), tt.wantPolls, tt.wantWaiting)
		}
	}
}

// TestThreadsNow reads this process's threads: one that spins is
// runnable and gains CPU time, one that sleeps is not runnable, the
// caller is left out.
func TestThreadsNow(t *testing.T) {
	// The shim's runtime runs on one P (goprocs.go): the spinner would
	// hold it, and its thread would sleep whenever this goroutine runs to
	// look at it, so that only a look made while the scheduler was still
	// handing the P over (under no load) saw it runnable.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(3, runtime.GOMAXPROCS(0))))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self := syscall.Gettid()
	var stop atomic.Bool
	defer stop.Store(true)
	spinner, sleeper := make(chan int), make(chan int)
	go func() {
		runtime.LockOSThread()
		spinner <- syscall.Gettid()
		for !stop.Load() {
		}
	}()
	go func() {
		runtime.LockOSThread()
		sleeper <- syscall.Gettid()
		for !stop.Load() {
			var ts syscall.Timespec = syscall.Timespec{Nsec: 5e6}
			syscall.Nanosleep(&ts, nil)
		}
	}()
	spin, sleep := <-spinner, <-sleeper
	find := func(tid int) threadState {
		for _, s := range threadsNow(self) {
			if s.tid == self {
				t.Fatalf("the caller %d was not left out", self)
			}
			if s.tid == tid {
				return s
			}
		}
		t.Fatalf("thread %d not among the process's", tid)
		return threadState{}
	}
	a := find(spin).cpu
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		s := find(spin)
		if s.cpu > a && s.runnable {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("a spinning thread: CPU time %v (was %v), runnable %v, for 10 s", s.cpu, a, s.runnable)
		}
	}
	for end := time.Now().Add(10 * time.Second); find(sleep).runnable; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("a sleeping thread was runnable at every look for 10 s")
		}
	}
}
