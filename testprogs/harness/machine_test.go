package harness

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// machineNeeds are what a program may say it needs of the machine
// ("// needs: NAME"), each with the function that tells whether this
// machine has it: "" when it does, else why not.
var machineNeeds = map[string]func() string{
	// The access tracker watches the bytes of a stack buffer's first page
	// with the CPU's debug registers (docs/races.md, "Stack buffers").
	// Some hypervisors accept the perf events and never deliver their
	// exceptions; the shim then notes it and watches such a buffer from
	// its second page on, and what these programs want is not reported.
	"debug-registers": debugRegisters,
}

// skipForMachine skips p where the machine lacks what it needs, saying
// what and why.
func skipForMachine(t *testing.T, p program) {
	t.Helper()
	for _, need := range p.needs {
		if why := machineNeeds[need](); why != "" {
			t.Skipf("%s needs %s: %s", p.file, need, why)
		}
	}
}

// hwBreakpointW is HW_BREAKPOINT_W of linux/hw_breakpoint.h, which
// golang.org/x/sys/unix does not name.
const hwBreakpointW = 2

var (
	debugRegsOnce sync.Once
	debugRegsWhy  string
)

// The flag bits of perf_event_attr the shim's watchpoints set besides
// golang.org/x/sys/unix's (linux/perf_event.h: remove_on_exec, sigtrap).
const (
	perfBitRemoveOnExec = 1 << 36
	perfBitSigtrap      = 1 << 37
)

// debugRegisters asks what the shim's traps (shim/track_hw.c) asks at
// MPI_Init: does the kernel take a watchpoint as the tracker makes it
// (opened disabled, so that its signal never reaches the Go runtime),
// and does a counted one fire on a store? A debugger holding the
// registers (ENOSPC) counts as none here; the shim tries again later.
func debugRegisters() string {
	debugRegsOnce.Do(func() {
		runtime.LockOSThread() // the event watches this thread
		defer runtime.UnlockOSThread()
		probe := new(uint64)
		attr := unix.PerfEventAttr{
			Type:    unix.PERF_TYPE_BREAKPOINT,
			Size:    uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Sample:  1,
			Bits:    unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv | perfBitRemoveOnExec | perfBitSigtrap,
			Bp_type: hwBreakpointW,
			Ext1:    uint64(uintptr(unsafe.Pointer(probe))),
			Ext2:    8,
		}
		fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			debugRegsWhy = "perf_event_open refuses a hardware watchpoint with a signal: " + err.Error()
			return
		}
		unix.Close(fd)
		attr.Bits = unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv
		fd, err = unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			debugRegsWhy = "perf_event_open refuses a hardware watchpoint: " + err.Error()
			return
		}
		defer unix.Close(fd)
		atomic.AddUint64(probe, 1)
		var n [8]byte
		if k, err := unix.Read(fd, n[:]); err != nil || k != 8 || *(*uint64)(unsafe.Pointer(&n)) == 0 {
			debugRegsWhy = "a hardware watchpoint never fires on this machine (a hypervisor that does not pass the debug exceptions on)"
		}
	})
	return debugRegsWhy
}
