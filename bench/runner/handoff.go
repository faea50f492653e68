package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// handoff measures how long a cache line takes to go from one CPU to
// another: two threads, pinned to the first two CPUs of this process,
// take turns writing a counter the other waits for. Every cross-rank
// exchange the shim makes through shared memory pays this once per line
// on the critical path, and on a virtual machine it changes with where
// the hypervisor puts the virtual CPUs (a C equivalent read 74 and 300
// ns on one machine an hour apart), so a run's nanoseconds are read
// beside it. The figure is the fastest of several batches, so that a
// batch in which the scheduler ran something else on one of the CPUs
// does not count. Go's atomic store is a locked exchange, slower than
// the plain store a C program would make (the C equivalent read 77-83
// ns when this read 111-113): the figure is for comparing runs, not a
// bound on what the shim pays. ok is false when
// the threads cannot be put on two CPUs; cpus names the two.
func handoff() (perHop time.Duration, cpus [2]int, ok bool) {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return 0, cpus, false
	}
	n := 0
	for c := 0; c < 1024 && n < 2; c++ {
		if set.IsSet(c) {
			cpus[n] = c
			n++
		}
	}
	// two spinning threads on one CPU would take turns a time slice
	// at a time
	if n < 2 || runtime.GOMAXPROCS(0) < 2 {
		return 0, cpus, false
	}
	const batches, rounds = 20, 10000
	// one counter per cache line, so that each write moves only its own
	var ping, pong struct {
		_ [64]byte
		n atomic.Uint64
		_ [64]byte
	}
	// Each side runs on a thread of its own, pinned, and left locked when
	// it returns, so that the runtime ends the thread rather than reuse
	// it pinned. The spinning loops allocate nothing, so no
	// stop-the-world waits on them (and with asynchronous preemption off,
	// one could: GODEBUG=asyncpreemptoff=1 is not for this program).
	pin := func(c int) bool {
		runtime.LockOSThread()
		var s unix.CPUSet
		s.Set(c)
		return unix.SchedSetaffinity(0, &s) == nil
	}
	var wg, ready sync.WaitGroup
	var pinned atomic.Int32
	best := time.Duration(-1)
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
		for i := uint64(1); i <= batches*rounds; i++ {
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
		i := uint64(0)
		for b := 0; b < batches; b++ {
			t0 := time.Now()
			for end := i + rounds; i < end; {
				i++
				ping.n.Store(i)
				for pong.n.Load() != i {
				}
			}
			if d := time.Since(t0); best < 0 || d < best {
				best = d
			}
		}
	}()
	wg.Wait()
	if pinned.Load() != 2 {
		return 0, cpus, false
	}
	return best / (2 * rounds), cpus, true
}

// handoffText is handoff's result for the report's header and footer.
func handoffText() string {
	d, cpus, ok := handoff()
	if !ok {
		return "a cache line between two CPUs: not measured (could not run on two CPUs)"
	}
	return fmt.Sprintf("a cache line from CPU %d to CPU %d: %d ns", cpus[0], cpus[1], d.Nanoseconds())
}
