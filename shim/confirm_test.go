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

// TestPollShare: a poller waits while half of the look goes to tests.
func TestPollShare(t *testing.T) {
	for _, tt := range []struct {
		name        string
		at0, in0    int64
		at, in      int64
		n           int
		wantWaiting bool
	}{
		{"no poll", 0, 0, 0, 0, 0, true},
		{"one sample", 100, 10, 100, 10, 1, true},
		{"tests all the time", 0, 0, 50e6, 49e6, 6, true},
		{"half", 0, 0, 50e6, 25e6, 6, true},
		{"computes", 0, 0, 50e6, 10e6, 6, false},
	} {
		p := pollShare{n: tt.n, at0: tt.at0, in0: tt.in0, at: tt.at, in: tt.in}
		if got := p.waiting(); got != tt.wantWaiting {
			t.Errorf("%s: waiting %v, want %v", tt.name, got, tt.wantWaiting)
		}
	}
}

// TestThreadsNow reads this process's threads: one that spins is
// runnable and gains CPU time, one that sleeps is not runnable, the
// caller is left out.
func TestThreadsNow(t *testing.T) {
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
