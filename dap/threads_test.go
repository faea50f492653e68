package dap

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// Stacks as gdb 13 lists them (-stack-list-frames), shaped on those of
// MPICH ranks with the shim (Go 1.26): the Go runtime's threads end in
// garbage past crosscall1 or runtime.mcall, the program's and MPI's in
// start_thread.
const (
	goFrames = `frame={level="%d",addr="0x00007f7a375020e3",func="%s",file="%s",fullname="%s",line="570",arch="i386:x86-64"}`
	// the netpoller's thread: the frames the old rule did not know
	stackNetpoll = `stack=[` +
		`frame={level="0",addr="0x00007f7a37503a2e",func="internal/runtime/syscall/linux.Syscall6",file="/usr/local/go/src/internal/runtime/syscall/linux/asm_linux_amd64.s",fullname="/usr/local/go/src/internal/runtime/syscall/linux/asm_linux_amd64.s",line="36",arch="i386:x86-64"},` +
		`frame={level="1",addr="0x00007f7a374a1b32",func="internal/runtime/syscall/linux.EpollWait",file="/usr/local/go/src/internal/runtime/syscall/linux/syscall_linux.go",fullname="/usr/local/go/src/internal/runtime/syscall/linux/syscall_linux.go",line="32",arch="i386:x86-64"},` +
		`frame={level="2",addr="0x00007f7a374a2c10",func="runtime.netpoll",file="/usr/local/go/src/runtime/netpoll_epoll.go",fullname="/usr/local/go/src/runtime/netpoll_epoll.go",line="117",arch="i386:x86-64"},` +
		`frame={level="3",addr="0x00007f7a374cc5a8",func="runtime.findRunnable",file="/usr/local/go/src/runtime/proc.go",fullname="/usr/local/go/src/runtime/proc.go",line="3717",arch="i386:x86-64"},` +
		`frame={level="4",addr="0x00007f7a374cd971",func="runtime.schedule",file="/usr/local/go/src/runtime/proc.go",fullname="/usr/local/go/src/runtime/proc.go",line="4164",arch="i386:x86-64"},` +
		`frame={level="5",addr="0x00007f7a374cde05",func="runtime.park_m",file="/usr/local/go/src/runtime/proc.go",fullname="/usr/local/go/src/runtime/proc.go",line="4304",arch="i386:x86-64"},` +
		`frame={level="6",addr="0x00007f7a374fe8f7",func="runtime.mcall",file="/usr/local/go/src/runtime/asm_amd64.s",fullname="/usr/local/go/src/runtime/asm_amd64.s",line="496",arch="i386:x86-64"},` +
		`frame={level="7",addr="0x01ffffffffffff00",func="??",arch="i386:x86-64"},` +
		`frame={level="8",addr="0x0000000000000000",func="??",arch="i386:x86-64"}]`
	// sysmon, as recorded
	stackSysmon = `stack=[` +
		`frame={level="0",addr="0x00007f7a375020e3",func="runtime.futex",file="/usr/local/go/src/runtime/sys_linux_amd64.s",fullname="/usr/local/go/src/runtime/sys_linux_amd64.s",line="570",arch="i386:x86-64"},` +
		`frame={level="1",addr="0x00007f7a374bf665",func="runtime.futexsleep",file="/usr/local/go/src/runtime/os_linux.go",fullname="/usr/local/go/src/runtime/os_linux.go",line="79",arch="i386:x86-64"},` +
		`frame={level="2",addr="0x00007f7a374d3118",func="runtime.sysmon",file="/usr/local/go/src/runtime/proc.go",fullname="/usr/local/go/src/runtime/proc.go",line="6542",arch="i386:x86-64"},` +
		`frame={level="3",addr="0x00007f7a374fe86c",func="runtime.mstart",file="/usr/local/go/src/runtime/asm_amd64.s",fullname="/usr/local/go/src/runtime/asm_amd64.s",line="426",arch="i386:x86-64"},` +
		`frame={level="4",addr="0x00007f7a3766c86c",func="crosscall1",file="gcc_amd64.S",fullname="/_/GOROOT/src/runtime/cgo/gcc_amd64.S",line="42",arch="i386:x86-64"},` +
		`frame={level="5",addr="0x00007f7a30b9f000",func="??",arch="i386:x86-64"},` +
		`frame={level="6",addr="0x0000000000000000",func="??",arch="i386:x86-64"}]`
	// UCX's progress thread (MPICH's): shown, as recorded
	stackUCX = `stack=[` +
		`frame={level="0",addr="0x00007f7a34b26f36",func="epoll_wait",file="../sysdeps/unix/sysv/linux/epoll_wait.c",fullname="./misc/../sysdeps/unix/sysv/linux/epoll_wait.c",line="30",arch="i386:x86-64"},` +
		`frame={level="1",addr="0x00007f7a349f3959",func="ucs_event_set_wait",from="/lib/x86_64-linux-gnu/libucs.so.0",arch="i386:x86-64"},` +
		`frame={level="2",addr="0x00007f7a349dad1e",func="??",from="/lib/x86_64-linux-gnu/libucs.so.0",arch="i386:x86-64"},` +
		`frame={level="3",addr="0x00007f7a34aa71f5",func="start_thread",file="./nptl/pthread_create.c",fullname="./nptl/./nptl/pthread_create.c",line="442",arch="i386:x86-64"},` +
		`frame={level="4",addr="0x00007f7a34b278ec",func="clone3",file="../sysdeps/unix/sysv/linux/x86_64/clone3.S",fullname="./misc/../sysdeps/unix/sysv/linux/x86_64/clone3.S",line="81",arch="i386:x86-64"}]`
	// a thread of the program in an MPI call, in the shim's Go code
	// through cgo: Go frames on top, but the program's below
	stackUserInGo = `stack=[` +
		`frame={level="0",addr="0x00007f7a375020e3",func="runtime.futex",file="/usr/local/go/src/runtime/sys_linux_amd64.s",fullname="/usr/local/go/src/runtime/sys_linux_amd64.s",line="570",arch="i386:x86-64"},` +
		`frame={level="1",addr="0x00007f7a374c0001",func="runtime.cgocallback",file="/usr/local/go/src/runtime/asm_amd64.s",fullname="/usr/local/go/src/runtime/asm_amd64.s",line="1082",arch="i386:x86-64"},` +
		`frame={level="2",addr="0x00007f7a3766c900",func="crosscall2",file="gcc_amd64.S",fullname="/_/GOROOT/src/runtime/cgo/gcc_amd64.S",line="60",arch="i386:x86-64"},` +
		`frame={level="3",addr="0x00007f7a37600100",func="MPI_Send",file="wrappers_gen.c",fullname="/work/main/shim/wrappers_gen.c",line="812",arch="i386:x86-64"},` +
		`frame={level="4",addr="0x000056520ef9e1f7",func="worker.constprop.0",file="app.c",fullname="/ws/app.c",line="18",arch="i386:x86-64"},` +
		`frame={level="5",addr="0x00007f7a34aa71f5",func="start_thread",file="./nptl/pthread_create.c",fullname="./nptl/./nptl/pthread_create.c",line="442",arch="i386:x86-64"},` +
		`frame={level="6",addr="0x00007f7a34b278ec",func="clone3",file="../sysdeps/unix/sysv/linux/x86_64/clone3.S",fullname="./misc/../sysdeps/unix/sysv/linux/x86_64/clone3.S",line="81",arch="i386:x86-64"}]`
)

// parseStack reads the frames of a -stack-list-frames answer.
func parseStack(t *testing.T, stack string) []gdbmi.Tuple {
	t.Helper()
	r, err := gdbmi.Parse("^done," + stack)
	if err != nil {
		t.Fatalf("%v", err)
	}
	var out []gdbmi.Tuple
	for _, res := range r.Results.List("stack").Results {
		f, _ := res.Value.(gdbmi.Tuple)
		out = append(out, f)
	}
	return out
}

// goStack is a stack of Go frames (function, file) with no garbage.
func goStack(frames ...[2]string) string {
	var parts []string
	for i, f := range frames {
		parts = append(parts, fmt.Sprintf(goFrames, i, f[0], f[1], f[1]))
	}
	return "stack=[" + strings.Join(parts, ",") + "]"
}

func TestGoRuntimeStack(t *testing.T) {
	for _, c := range []struct {
		name  string
		stack string
		want  bool
	}{
		{"netpoller in internal/runtime/syscall/linux.Syscall6", stackNetpoll, true},
		{"sysmon", stackSysmon, true},
		{"MPI's progress thread", stackUCX, false},
		{"the program's thread in the shim's Go code", stackUserInGo, false},
		// gdb lost the stack past the assembly of Syscall6
		{"netpoller, stack lost at once", `stack=[frame={level="0",addr="0x1",func="internal/runtime/syscall/linux.Syscall6",file="asm_linux_amd64.s",fullname="/usr/local/go/src/internal/runtime/syscall/linux/asm_linux_amd64.s",line="36"},frame={level="1",addr="0x0",func="??"}]`, true},
		// a goroutine of the shim's own package, in a .go file
		{"the shim's goroutine", goStack([2]string{"runtime.gopark", "/usr/local/go/src/runtime/proc.go"},
			[2]string{"main.serve", "/build/shim/serve.go"}, [2]string{"runtime.goexit", "/usr/local/go/src/runtime/asm_amd64.s"}), true},
		// a shim without debug information: gdb gives the library
		{"the Open MPI shim, no debug info", `stack=[frame={level="0",addr="0x1",func="??",from="/opt/mpidbg/lib/libmpidbg-openmpi.so"},frame={level="1",addr="0x2",func="??",from="/opt/mpidbg/lib/libmpidbg-openmpi.so"},frame={level="2",addr="0x0",func="??"}]`, true},
		// a program's function with a dot (a gcc clone) where gdb lost
		// the stack: not Go
		{"the program's clone", `stack=[frame={level="0",addr="0x1",func="poll",file="poll.c",fullname="/x/poll.c",line="1"},frame={level="1",addr="0x2",func="compute.part.0",file="app.c",fullname="/ws/app.c",line="9"},frame={level="2",addr="0x0",func="??"}]`, false},
		{"nothing known", `stack=[frame={level="0",addr="0x0",func="??"}]`, false},
		{"no frames", `stack=[]`, false},
	} {
		if got := goRuntimeStack(parseStack(t, c.stack)); got != c.want {
			t.Errorf("%s: goRuntimeStack = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestInternalFrame: the Go runtime's frames are not the program's,
// whatever their package (mpiInternalFunc knew runtime.* only).
func TestInternalFrame(t *testing.T) {
	frames := parseStack(t, stackNetpoll)
	for _, f := range frames[:7] {
		if !internalFrame(f) {
			t.Errorf("%s: not internal", f.String("func"))
		}
	}
	user := parseStack(t, stackUserInGo)
	if internalFrame(user[4]) || internalFrame(user[5]) {
		t.Errorf("the program's frames %s, %s are taken as internal", user[4].String("func"), user[5].String("func"))
	}
	if !internalFrame(user[3]) || !internalFrame(user[2]) {
		t.Errorf("the shim's frames MPI_Send, crosscall2 are not taken as internal")
	}
}

// testSession is a session without gdb (gdb, when not "", is a
// stand-in's path), whose server writes its messages to the buffer.
func testSession(t *testing.T, gdb string) (*session, *bytes.Buffer) {
	t.Helper()
	out := &bytes.Buffer{}
	srv, out := testServer(Config{})
	ss := srv.newSession(false)
	if gdb != "" {
		if err := ss.connect([]string{gdb}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ss.close)
	}
	return ss, out
}

// feed hands MI records to the session as gdb's reader does.
func feed(t *testing.T, ss *session, lines ...string) {
	t.Helper()
	for _, l := range lines {
		r, err := gdbmi.Parse(l)
		if err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		ss.record(r)
	}
}

// fakeGdb writes a stand-in for gdb that answers -stack-list-frames
// --thread N with the file stack.N of its directory (a thread without
// one is running), and every other command with ^done.
func fakeGdb(t *testing.T, stacks map[int]string) (path string, setStack func(id int, stack string)) {
	dir := t.TempDir()
	script := `#!/bin/sh
dir=$(dirname "$0")
while IFS= read -r line; do
	tok=${line%%-*}
	cmd=${line#"$tok"}
	case $cmd in
	"-stack-list-frames --thread "*)
		id=${cmd#-stack-list-frames --thread }
		id=${id%% *}
		if [ -f "$dir/stack.$id" ]; then
			printf '%s^done,%s\n' "$tok" "$(cat "$dir/stack.$id")"
		else
			printf '%s^error,msg="Selected thread is running."\n' "$tok"
		fi;;
	-gdb-exit) printf '%s^exit\n' "$tok"; exit 0;;
	*) printf '%s^done\n' "$tok";;
	esac
done
`
	path = filepath.Join(dir, "gdb")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	setStack = func(id int, stack string) {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("stack.%d", id)), []byte(stack), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for id, s := range stacks {
		setStack(id, s)
	}
	return path, setStack
}

// shownNames is what the client is shown: the threads' names by id.
func shownNames(ss *session) map[int]string {
	out := map[int]string{}
	for _, t := range ss.sortedThreads() {
		out[t.id] = threadName(t)
	}
	return out
}

// TestThreadNumbers: "rank R thread T" counts the threads of rank R the
// client is shown, so that MPI's progress thread has the same number in
// every rank, however many Go runtime threads each rank started before
// it; a number is kept for the thread's life and not given again.
func TestThreadNumbers(t *testing.T) {
	gdb, setStack := fakeGdb(t, map[int]string{
		2: stackSysmon, 3: stackSysmon, 4: stackUCX, 5: stackNetpoll, // rank 0
		7: stackSysmon, 8: stackSysmon, 9: stackNetpoll, 10: stackSysmon, 11: stackUCX, // rank 1
	})
	ss, _ := testSession(t, gdb)
	ss.addRank(0, 100, "i1")
	ss.addRank(1, 200, "i2")
	var created []string
	for id := 1; id <= 11; id++ {
		group := "i1"
		if id >= 6 {
			group = "i2"
		}
		created = append(created, fmt.Sprintf(`=thread-created,id="%d",group-id="%s"`, id, group))
	}
	feed(t, ss, created...)
	if got := shownNames(ss); fmt.Sprint(got) != fmt.Sprint(map[int]string{1: "rank 0", 6: "rank 1"}) {
		t.Fatalf("before classifying, shown %v: want the ranks' first threads only", got)
	}
	ss.classifyThreads()
	want := map[int]string{1: "rank 0", 4: "rank 0 thread 2", 6: "rank 1", 11: "rank 1 thread 2"}
	if got := shownNames(ss); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("shown %v, want %v", got, want)
	}

	// Thread 12 (rank 0) runs when the client asks: not shown, nor
	// numbered, until a stop lets gdb read its stack.
	feed(t, ss, `=thread-created,id="12",group-id="i1"`)
	ss.classifyThreads()
	if got := shownNames(ss); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("with thread 12 running, shown %v, want %v", got, want)
	}
	// Thread 4 ends; 12 and a new 13 are the program's: 3 and 4, never 2
	// again.
	ss.mu.Lock()
	delete(ss.threads, 4)
	ss.mu.Unlock()
	feed(t, ss, `=thread-created,id="13",group-id="i1"`)
	setStack(12, stackUserInGo)
	setStack(13, stackUCX)
	ss.classifyThreads()
	delete(want, 4)
	want[12], want[13] = "rank 0 thread 3", "rank 0 thread 4"
	if got := shownNames(ss); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("shown %v, want %v", got, want)
	}
}

// outputs reads the console output events the server wrote.
func outputs(t *testing.T, out *bytes.Buffer) []string {
	t.Helper()
	var lines []string
	r := bufio.NewReader(bytes.NewReader(out.Bytes()))
	for {
		m, err := dap.ReadProtocolMessage(r)
		if err == io.EOF {
			return lines
		}
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := m.(*dap.OutputEvent); ok && o.Body.Category == "console" {
			lines = append(lines, o.Body.Output)
		}
	}
}

// TestRankExits: how a rank ended, from gdb's records (as gdb 13 wrote
// them): an exit code (in octal), a signal, or the adapter's kill or
// detach, none of which has an exit code.
func TestRankExits(t *testing.T) {
	ss, out := testSession(t, "")
	for r := 0; r < 5; r++ {
		ss.addRank(r, 100+r, fmt.Sprintf("i%d", r+1))
	}
	ss.ending(ss.ranks[3], "killed")
	ss.ending(ss.ranks[4], "detached")
	feed(t, ss,
		`=thread-exited,id="1",group-id="i1"`,
		`=thread-group-exited,id="i1",exit-code="012"`,
		`*stopped,reason="exited",exit-code="012"`,
		`=thread-group-exited,id="i2",exit-code="0"`,
		`=thread-exited,id="3",group-id="i3"`,
		`=thread-group-exited,id="i3"`,
		`*stopped,reason="exited-signalled",signal-name="SIGSEGV",signal-meaning="Segmentation fault"`,
		`=thread-group-exited,id="i4"`,
		`=thread-group-exited,id="i5"`,
	)
	ss.queue.close()
	ss.events()
	got := outputs(t, out)
	want := []string{
		"mpidbg: rank 0 (pid 100) exited with status 10\n",
		"mpidbg: rank 1 (pid 101) exited with status 0\n",
		"mpidbg: rank 2 (pid 102) was ended by signal SIGSEGV (Segmentation fault)\n",
		"mpidbg: rank 3 (pid 103) was killed by the debugger\n",
		"mpidbg: rank 4 (pid 104) was detached: it runs on without the debugger\n",
	}
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("console output:\n%s\nwant:\n%s", strings.Join(got, ""), strings.Join(want, ""))
	}
	if n := len(ss.liveRanks()); n != 0 {
		t.Errorf("%d ranks still live", n)
	}

	// A rank that ended with no exit code and no stop to name the
	// signal is said to have ended without one, not with status 0.
	ss, out = testSession(t, "")
	ss.addRank(0, 100, "i1")
	ss.addRank(1, 101, "i2")
	feed(t, ss, `=thread-group-exited,id="i1"`, `=thread-group-exited,id="i2",exit-code="03"`)
	ss.queue.close()
	ss.events()
	got = outputs(t, out)
	want = []string{
		"mpidbg: rank 0 (pid 100) ended without an exit status\n",
		"mpidbg: rank 1 (pid 101) exited with status 3\n",
	}
	if strings.Join(got, "") != strings.Join(want, "") {
		t.Errorf("console output:\n%s\nwant:\n%s", strings.Join(got, ""), strings.Join(want, ""))
	}
}
