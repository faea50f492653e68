package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// handoff measures how long a cache line takes to go from one core to
// another: two threads on the first two CPUs of this process take turns
// writing a counter the other waits for. Every cross-rank exchange the
// shim makes through shared memory pays this once per line on the
// critical path, and on a virtual machine it changes with where the
// hypervisor puts the virtual CPUs (74 and 300 ns on the same machine an
// hour apart), so a run's nanoseconds are read beside it. ok is false
// when the process cannot be put on two CPUs. Go's atomic store is a
// locked exchange, which adds some tens of nanoseconds to each hop over
// the plain store a C program would make: the figure is to compare runs
// with, not a bound on what the shim pays.
func handoff() (perHop time.Duration, ok bool) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return 0, false
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	// two spinning threads on one CPU would take turns a time slice
	// at a time
	if len(cpus) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return 0, false
	}
	const rounds = 200000
	// one counter per cache line, so that each write moves only its own
	var ping, pong struct {
		_ [64]byte
		n atomic.Uint64
		_ [64]byte
	}
	// Each side runs on a thread of its own, pinned, and left locked when
	// it returns, so that the runtime ends the thread rather than reuse
	// it pinned.
	pin := func(c int) bool {
		runtime.LockOSThread()
		var s unix.CPUSet
		s.Set(c)
		return unix.SchedSetaffinity(0, &s) == nil
	}
	var wg, ready sync.WaitGroup
	var pinned atomic.Int32
	var took time.Duration
	both := func(c int) bool {
		if pin(c) {
			pinned.Add(1)
		}
		ready.Done()
		ready.Wait()
		return pinned.Load() == 2
	}
	wg.Add(2)
	ready.Add(2)
	go func() {
		defer wg.Done()
		if !both(cpus[1]) {
			return
		}
		for i := uint64(1); i <= rounds; i++ {
			for ping.n.Load() != i {
			}
			pong.n.Store(i)
		}
	}()
	go func() {
		defer wg.Done()
		if !both(cpus[0]) {
			return
		}
		t0 := time.Now()
		for i := uint64(1); i <= rounds; i++ {
			ping.n.Store(i)
			for pong.n.Load() != i {
			}
		}
		took = time.Since(t0)
	}()
	wg.Wait()
	return took / (2 * rounds), pinned.Load() == 2
}

// handoffText is handoff's result for the report's header.
func handoffText() string {
	d, ok := handoff()
	if !ok {
		return "not measured (fewer than two CPUs)"
	}
	return fmt.Sprintf("%d ns", d.Nanoseconds())
}
