package dap

import (
	"strings"
	"sync"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// recordQueue is an unbounded FIFO of gdb records: gdb's reader must
// never wait for the events goroutine, which itself sends MI commands.
type recordQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	recs   []gdbmi.Record
	closed bool
}

func newRecordQueue() *recordQueue {
	q := &recordQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *recordQueue) put(r gdbmi.Record) {
	q.mu.Lock()
	q.recs = append(q.recs, r)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *recordQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

// get waits for the next record; false once closed and empty.
func (q *recordQueue) get() (gdbmi.Record, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.recs) == 0 && !q.closed {
		q.cond.Wait()
	}
	if len(q.recs) == 0 {
		return gdbmi.Record{}, false
	}
	r := q.recs[0]
	q.recs = q.recs[1:]
	return r, true
}

// record runs on gdb's reading goroutine for every out-of-band record:
// it keeps the thread table current at once (so that a command's caller
// sees the threads its command created) and queues the rest.
func (ss *session) record(r gdbmi.Record) {
	ss.srv.logf("mi< %v %s %v %q", r.Kind, r.Class, r.Results, r.Text)
	ss.mu.Lock()
	switch {
	case r.Kind == gdbmi.ConsoleStream && ss.capture != nil:
		ss.capture.WriteString(r.Text)
		ss.mu.Unlock()
		return
	case r.Kind == gdbmi.NotifyRecord && r.Class == "thread-created":
		id, group := atoi(r.Results.String("id")), r.Results.String("group-id")
		rk := ss.groups[group]
		t := &thread{id: id, rank: rk}
		if rk != nil && rk.main == 0 {
			// the rank's first thread is the program's: it is shown at
			// once as "rank R"; the others are numbered once classified
			// (classify), which hidden Go runtime threads never are
			rk.main, rk.nthreads = id, 1
			t.known, t.index = true, 1
		}
		ss.threads[id] = t
	}
	ss.mu.Unlock()
	ss.queue.put(r)
}

// events turns gdb's records into DAP events, in order.
func (ss *session) events() {
	for {
		r, ok := ss.queue.get()
		if !ok {
			return
		}
		switch {
		case r.Kind == gdbmi.ExecRecord && r.Class == "stopped":
			ss.onStopped(r.Results)
		case r.Kind == gdbmi.ExecRecord && r.Class == "running":
			ss.onRunning(r.Results)
		case r.Kind == gdbmi.NotifyRecord && r.Class == "thread-group-exited":
			ss.onRankExited(r.Results)
			if ss.job == nil && len(ss.liveRanks()) == 0 {
				ss.srv.terminated() // attached: the session ends with the last rank
			}
		case r.Kind == gdbmi.NotifyRecord && r.Class == "thread-created":
			ss.threadEvent(atoi(r.Results.String("id")), "started")
		case r.Kind == gdbmi.NotifyRecord && r.Class == "thread-exited":
			id := atoi(r.Results.String("id"))
			ss.threadEvent(id, "exited")
			ss.mu.Lock()
			delete(ss.threads, id)
			ss.mu.Unlock()
		case r.Kind == gdbmi.TargetStream:
			ss.srv.output("stdout", r.Text)
		case r.Kind == gdbmi.ConsoleStream:
			// gdb's own account of stops and exits, which the client
			// shows its own way; what a REPL command prints is captured
			// apart (session.console).
		}
	}
}

// threadEvent tells the client of a shown thread of a released rank;
// a thread not yet classified is one the client has not been shown.
func (ss *session) threadEvent(id int, reason string) {
	ss.mu.Lock()
	live := ss.live
	t := ss.threads[id]
	ss.mu.Unlock()
	if !live || t == nil || !t.known || t.hidden || t.rank == nil {
		return
	}
	ev := &dap.ThreadEvent{Event: event("thread")}
	ev.Body.Reason, ev.Body.ThreadId = reason, id
	ss.srv.send(ev)
}

// onRunning forgets what was known of stopped threads.
func (ss *session) onRunning(res gdbmi.Tuple) {
	id := res.String("thread-id")
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if id == "all" || !ss.nonStop {
		ss.halted = false
		ss.stops = map[int]*stopInfo{}
		ss.refs.reset()
		stale := ss.varobjs
		ss.varobjs = nil
		if len(stale) > 0 {
			go func() {
				for _, v := range stale {
					ss.mi("-var-delete %s", quote(v))
				}
			}()
		}
		return
	}
	delete(ss.stops, atoi(id))
}

// output sends program or adapter output to the client.
func (s *Server) output(category, text string) {
	if text == "" {
		return
	}
	ev := &dap.OutputEvent{Event: event("output")}
	ev.Body.Category, ev.Body.Output = category, text
	s.send(ev)
}

// trimConsole is gdb's console text as a REPL answer.
func trimConsole(s string) string {
	return strings.TrimRight(s, "\n")
}
