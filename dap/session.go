package dap

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mpidbg/mpidbg/dap/gdbmi"
	"github.com/mpidbg/mpidbg/internal/envvar"
)

// miTimeout bounds one MI command: gdb answers at once, or is stuck.
const miTimeout = 30 * time.Second

// session is one debugged job: one gdb with one inferior per rank.
type session struct {
	srv     *Server
	gdb     *gdbmi.Client
	nonStop bool

	queue *recordQueue // gdb's out-of-band records, for the events goroutine

	mu        sync.Mutex
	ranks     []*rank          // by rank number
	groups    map[string]*rank // by gdb thread group ("i2")
	threads   map[int]*thread  // by gdb's global thread id = DAP thread id
	live      bool             // the ranks are released: stops go to the client
	waiters   []chan gdbmi.Record
	capture   *strings.Builder    // console output of the running CLI command
	stops     map[int]*stopInfo   // by thread: why it stopped, frames hidden
	pause     string              // "" | "pause" | "deadlock": why the adapter interrupted
	deadlock  *findingInfo        // the deadlock, once found
	findingBp string              // gdb's number of the breakpoint on mpidbg_break
	exitBp    string              // gdb's number of the breakpoint on _exit, attached processes only (exit.go)
	refs      *handles            // frames and variables, valid until the job runs again
	bps       map[string][]string // source path (or functionBreakpoints) -> gdb breakpoint numbers
	ended     bool

	job        *job // the launched job (ending the session ends it); nil when attached
	noFindings bool // stopOnError false: findings do not stop the ranks
	attached   bool // every rank is under gdb
	releasing  bool
	varobjs    []string // gdb varobjs made for the client, deleted at the next stop
	halted     bool     // all-stop: the client was told of a stop, and nothing runs
	lastStop   int      // the thread of the last stop the client was told of, as gdb named it (the one to resume from)
	signalled  *rank    // ended with no exit code, until the *stopped that names the signal

	suppress suppressRules // findings that do not stop a rank (suppress.go)

	lastWords sync.Once // gdb's last standard error, logged once when it died
}

type rank struct {
	n, pid   int
	host     string // a rank on another host (remote.go), debugged through its gdbserver; "" here. Set before it runs
	group    string
	main     int // the first thread's id
	nthreads int // threads shown so far, to number the next one
	exited   bool
	ending   string // "killed", "detached" or "exited": what the adapter had gdb do to it
	status   string // ending "exited": the status it exits with, "" unknown (exit.go)
}

type thread struct {
	id     int
	rank   *rank
	index  int  // shown threads: 1 for the rank's first, then in order of creation
	hidden bool // a thread of the shim's Go runtime: not shown
	known  bool // hidden has been decided (and index given)
}

// stopInfo is what the client is told of a stopped thread.
type stopInfo struct {
	hide      int          // frames above the program's own, not shown
	exception *findingInfo // the finding it stopped on, if any
	signal    string       // or the signal
}

// newSession is a session of s's with no gdb yet.
func (s *Server) newSession(nonStop bool) *session {
	return &session{srv: s, nonStop: nonStop, groups: map[string]*rank{}, threads: map[int]*thread{},
		stops: map[int]*stopInfo{}, refs: newHandles(), bps: map[string][]string{}, queue: newRecordQueue()}
}

// startGdb runs gdb with the extension and the settings every session
// needs.
func (s *Server) startGdb(gdbPath string, nonStop bool) (*session, error) {
	ss := s.newSession(nonStop)
	if gdbPath == "" {
		gdbPath = s.cfg.Gdb
	}
	if gdbPath == "" {
		gdbPath = "gdb"
	}
	argv := []string{gdbPath}
	if s.cfg.Script != "" {
		argv = append(argv, "-iex", "source "+s.cfg.Script)
	}
	if s.cfg.Mpidbg != "" && os.Getenv(envvar.Bin) == "" {
		os.Setenv(envvar.Bin, s.cfg.Mpidbg) // for the extension's helper, in gdb's environment
	}
	if err := ss.connect(argv); err != nil {
		return nil, err
	}
	go ss.events()
	mode := "off"
	if nonStop {
		mode = "on"
	}
	for _, cmd := range []string{
		"-gdb-set mi-async on",
		"-gdb-set non-stop " + mode,
		"-gdb-set schedule-multiple on", // continue resumes every rank: MPI calls need the others
		"-gdb-set breakpoint pending on",
		"-gdb-set pagination off",
		"-gdb-set confirm off",
		"-gdb-set print thread-events off",
		"-gdb-set print inferior-events off",
		"-enable-pretty-printing",
		// an internal error ends gdb (and the session) with its message,
		// without a core file in the adapter's directory
		"-interpreter-exec console \"maint set internal-error corefile no\"",
		// shim/blocked.c asks a blocked rank for its stack with SIGRTMIN+7
		"-interpreter-exec console \"handle SIG41 nostop noprint pass\"",
	} {
		if _, err := ss.mi(cmd); err != nil {
			ss.close()
			return nil, fmt.Errorf("gdb %s: %v (is %s gdb 13 or later?)", cmd, err, gdbPath)
		}
	}
	return ss, nil
}

// connect runs gdb (argv) as the session's, its records going to
// ss.record.
func (ss *session) connect(argv []string) error {
	c, err := gdbmi.Start(argv, ss.record)
	if err != nil {
		return err
	}
	ss.gdb = c
	return nil
}

// mi sends one MI command and waits for its result.
func (ss *session) mi(format string, args ...any) (gdbmi.Record, error) {
	cmd := format
	if len(args) > 0 {
		cmd = fmt.Sprintf(format, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), miTimeout)
	defer cancel()
	ss.srv.logf("mi> %s", cmd)
	r, err := ss.gdb.Send(ctx, cmd)
	if err != nil {
		ss.srv.logf("mi! %v", err)
		select {
		case <-ss.gdb.Done():
			ss.lastWords.Do(func() { ss.srv.logf("gdb's last words:\n%s", ss.gdb.StderrTail()) })
		default:
		}
	}
	return r, err
}

// console runs a CLI command and returns what it printed.
func (ss *session) console(thread, level int, command string) (string, error) {
	var b strings.Builder
	ss.mu.Lock()
	ss.capture = &b
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		ss.capture = nil
		ss.mu.Unlock()
	}()
	sel := ""
	if thread > 0 {
		sel = fmt.Sprintf("--thread %d --frame %d ", thread, level)
	}
	_, err := ss.mi("-interpreter-exec %sconsole %s", sel, quote(command))
	ss.mu.Lock()
	out := b.String()
	ss.mu.Unlock()
	return out, err
}

// close ends gdb.
func (ss *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ss.gdb.Close(ctx)
	ss.queue.close()
}

// quote makes s one MI c-string argument.
func quote(s string) string {
	return strconv.Quote(s)
}

// threadOf returns the thread, nil if unknown.
func (ss *session) threadOf(id int) *thread {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.threads[id]
}

// liveRanks returns the ranks that have not exited.
func (ss *session) liveRanks() []*rank {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []*rank
	for _, r := range ss.ranks {
		if r != nil && !r.exited {
			out = append(out, r)
		}
	}
	return out
}

// threadName is how the client shows a thread.
func threadName(t *thread) string {
	if t.index <= 1 {
		return fmt.Sprintf("rank %d", t.rank.n)
	}
	return fmt.Sprintf("rank %d thread %d", t.rank.n, t.index)
}

// sortedThreads returns the threads to show, by rank, then creation: a
// thread not yet classified (it ran since it was created) waits for
// the next stop, with no number to show it by.
func (ss *session) sortedThreads() []*thread {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []*thread
	for _, t := range ss.threads {
		if t.rank != nil && t.known && !t.hidden {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rank.n != out[j].rank.n {
			return out[i].rank.n < out[j].rank.n
		}
		return out[i].index < out[j].index
	})
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
