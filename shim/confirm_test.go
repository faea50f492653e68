package main

import (
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestThreadWindow: a thread that could run at every sample and got no
// CPU keeps the answer back; one that ran, slept, or was runnable only
// for a moment does not; a gap between samples starts the look afresh.
func TestThreadWindow(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	look := func(tid int, r bool, cpu time.Duration) threadLook {
		return threadLook{tid: tid, runnable: r, cpu: cpu}
	}
	var w threadWindow
	for i := range 6 {
		w.add(t0.Add(time.Duration(i)*confirmEvery), []threadLook{
			look(1, true, time.Duration(i)*ms),     // spins in MPI_Recv
			look(2, false, 5*ms),                   // waits in the kernel
			look(3, true, 7*ms),                    // kept off the CPU
			look(4, i == 2, 9*ms+time.Duration(i)), // runnable once
		})
	}
	if w.span() < confirmWindow {
		t.Fatalf("span %v after six samples %v apart", w.span(), confirmEvery)
	}
	if got := w.starved(); got != 3 {
		t.Errorf("starved %d, want thread 3", got)
	}
	// thread 3 runs: nobody is kept back once the window has moved on
	for i := 6; i < 12; i++ {
		w.add(t0.Add(time.Duration(i)*confirmEvery), []threadLook{look(1, true, time.Duration(i)*ms), look(3, true, 7*ms+time.Duration(i-5)*ms)})
	}
	if got := w.starved(); got != -1 {
		t.Errorf("starved %d after thread 3 ran, want none", got)
	}
	// the rank was stopped: what came before says nothing
	w.add(t0.Add(time.Second), []threadLook{look(1, true, 20*ms)})
	if w.span() != 0 {
		t.Errorf("span %v after a gap, want a fresh look", w.span())
	}
}

// TestThreadsNow reads this process's threads: one that spins gains CPU
// time and is runnable or running; the caller is left out.
func TestThreadsNow(t *testing.T) {
	var stop atomic.Bool
	tidc := make(chan int)
	go func() {
		runtime.LockOSThread()
		tidc <- syscall.Gettid()
		for !stop.Load() {
		}
	}()
	tid := <-tidc
	defer stop.Store(true)
	cpu := func() time.Duration {
		for _, l := range threadsNow(syscall.Gettid()) {
			if l.tid == syscall.Gettid() {
				t.Fatalf("the caller %d was not left out", l.tid)
			}
			if l.tid == tid {
				return l.cpu
			}
		}
		t.Fatalf("thread %d not among the process's (pid %d)", tid, os.Getpid())
		return 0
	}
	a := cpu()
	for end := time.Now().Add(10 * time.Second); cpu() <= a; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("a spinning thread's CPU time stayed at %v for 10 s", a)
		}
	}
}
