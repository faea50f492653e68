package dap

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/internal/envvar"
)

// attachRank puts one process under gdb as rank r's inferior. The first
// rank takes the inferior gdb starts with.
func (ss *session) attachRank(r, pid int) error {
	group, err := ss.inferiorFor(r)
	if err != nil {
		return err
	}
	ss.addRank(r, pid, group)
	if _, err := ss.mi("-target-attach --thread-group %s %d", group, pid); err != nil {
		return fmt.Errorf("gdb cannot attach to rank %d (pid %d): %v", r, pid, err)
	}
	ss.classifyThreads()
	return nil
}

// inferiorFor is the gdb inferior (thread group) for rank r: the one gdb
// starts with for the first rank, a new one for each other.
func (ss *session) inferiorFor(r int) (string, error) {
	ss.mu.Lock()
	first := len(ss.groups) == 0
	ss.mu.Unlock()
	if first {
		return "i1", nil
	}
	rec, err := ss.mi("-add-inferior")
	if err != nil {
		return "", fmt.Errorf("gdb cannot add an inferior for rank %d: %v", r, err)
	}
	return rec.Results.String("inferior"), nil
}

// addRank registers process pid as rank n, gdb's thread group (inferior)
// group: the threads gdb then reports in the group are the rank's.
func (ss *session) addRank(n, pid int, group string) *rank {
	rk := &rank{n: n, pid: pid, group: group}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.groups[group] = rk
	for len(ss.ranks) <= n {
		ss.ranks = append(ss.ranks, nil)
	}
	if n >= 0 {
		ss.ranks[n] = rk
	}
	return rk
}

// onConfigurationDoneRequest lets the ranks go once the client has set
// its breakpoints.
func (s *Server) onConfigurationDoneRequest(req *dap.ConfigurationDoneRequest) {
	s.mu.Lock()
	s.configured = true
	ss := s.sess
	s.mu.Unlock()
	s.send(&dap.ConfigurationDoneResponse{Response: response(req)})
	if ss != nil {
		ss.maybeRelease()
	}
}

// maybeRelease starts the ranks once they are all attached and the
// client is configured: the finding breakpoint, the release of the
// shim's wait, then (stopOnEntry) each rank alone to main, or every
// rank at once.
func (ss *session) maybeRelease() {
	ss.srv.mu.Lock()
	configured := ss.srv.configured
	ss.srv.mu.Unlock()
	ss.mu.Lock()
	ready := configured && ss.attached && !ss.live && !ss.releasing
	if ready {
		ss.releasing = true
	}
	ss.mu.Unlock()
	if !ready {
		return
	}
	go ss.release()
}

func (ss *session) release() {
	start := time.Now()
	j := ss.job
	ss.updateFindingBreakpoint() // for findings, and for exits (exit.go)
	ss.insertExitBreakpoint()    // attached processes only
	ranks := ss.liveRanks()
	if j != nil {
		for _, rk := range ranks {
			if _, err := ss.mi("-data-evaluate-expression --thread %d %s", rk.main, quote("mpidbg_debugger_attached=1")); err != nil {
				ss.srv.output("console", fmt.Sprintf("mpidbg: rank %d: cannot release it from the shim's wait: %v\n", rk.n, err))
			}
		}
	}
	if j != nil && j.entry && len(ranks) > 0 {
		ss.runToMain(ranks)
		ss.mu.Lock()
		ss.live = true
		ss.mu.Unlock()
		ss.srv.logf("released to main in %v", time.Since(start))
		ss.stopped(ranks[0].main, "entry", "", nil, nil)
		return
	}
	ss.mu.Lock()
	ss.live = true
	ss.mu.Unlock()
	ss.resumeAll()
	ss.srv.logf("released in %v", time.Since(start))
}

// runToMain runs each rank alone to main (schedule-multiple off: only the
// selected inferior runs), so that every rank is at its entry at once.
func (ss *session) runToMain(ranks []*rank) {
	if !ss.nonStop {
		ss.mi("-gdb-set schedule-multiple off")
		defer ss.mi("-gdb-set schedule-multiple on")
	}
	rec, err := ss.mi("-break-insert main")
	if err != nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: no main to stop at: %v\n", err))
		return
	}
	bp := rec.Results.Tuple("bkpt").String("number")
	defer ss.mi("-break-delete %s", bp)
	for _, rk := range ranks {
		ch := ss.waitStop()
		sel := fmt.Sprintf("--thread %d", rk.main)
		if ss.nonStop {
			sel = "--thread-group " + rk.group
		}
		if _, err := ss.mi("-exec-continue %s", sel); err != nil {
			ss.srv.output("console", fmt.Sprintf("mpidbg: rank %d: %v\n", rk.n, err))
			continue
		}
		select {
		case <-ch:
		case <-time.After(30 * time.Second):
			ss.srv.output("console", fmt.Sprintf("mpidbg: rank %d did not reach main within 30 s\n", rk.n))
		}
	}
}

// resumeAll continues every rank. gdb resumes from the selected
// inferior, which must be one that has not exited ("The program is not
// being run"): select a thread of a live rank. A rank whose main thread
// has exited but whose process gdb has not yet reported gone cannot be
// resumed from, and a failed continue leaves every rank stopped: each
// candidate is tried in turn, then --all.
func (ss *session) resumeAll() error {
	if ss.nonStop {
		_, err := ss.mi("-exec-continue --all")
		return err
	}
	var first error
	for _, tid := range ss.resumeThreads() {
		_, err := ss.mi("-exec-continue --thread %d", tid) // schedule-multiple: every rank
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	if _, err := ss.mi("-exec-continue --all"); err != nil {
		if first == nil {
			first = err
		}
		return first
	}
	return nil
}

// resumeThreads are the threads to resume all-stop gdb from, best first:
// the thread of the last stop while its rank lives (gdb steps that thread
// over its breakpoint when it resumes; resumed from another, a
// multi-inferior gdb was seen to report the same hit twice), then each
// live rank's main thread, then any other thread of a live rank.
func (ss *session) resumeThreads() []int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out, mains, others []int
	if t := ss.threads[ss.lastStop]; t != nil && t.rank != nil && !t.rank.exited {
		out = append(out, ss.lastStop)
	}
	for id, t := range ss.threads {
		if t.rank == nil || t.rank.exited || id == ss.lastStop {
			continue
		}
		if id == t.rank.main {
			mains = append(mains, id)
		} else {
			others = append(others, id)
		}
	}
	sort.Ints(mains)
	sort.Ints(others)
	return append(append(out, mains...), others...)
}

// attachArgs is the attach configuration.
type attachArgs struct {
	PID         int    `json:"pid"`
	PIDs        []int  `json:"pids"`
	Gdb         string `json:"gdb"`
	NonStop     bool   `json:"nonStop"`
	StopOnError *bool  `json:"stopOnError"`
}

// onAttachRequest attaches to a running job: the ranks below a
// launcher's PID that have the shim loaded, or the PIDs given.
func (s *Server) onAttachRequest(req *dap.AttachRequest) {
	if s.session() != nil {
		s.fail(req, errTwice, "a job is already being debugged")
		return
	}
	var a attachArgs
	if err := unmarshalArgs(req.Arguments, &a); err != nil {
		s.fail(req, errAttachArgs, "attach: %s", argError(req.Arguments, err))
		return
	}
	var procs []rankProc
	var err error
	switch {
	case a.PID != 0 && len(a.PIDs) > 0:
		s.fail(req, errAttachArgs, "give \"pid\" (the launcher) or \"pids\" (the ranks), not both")
		return
	case a.PID != 0:
		procs, err = ranksBelow(a.PID)
	case len(a.PIDs) > 0:
		procs, err = ranksOf(a.PIDs)
	default:
		s.fail(req, errAttachArgs, "missing \"pid\" (mpiexec's or mpidbg run's process) or \"pids\" (the ranks' processes)")
		return
	}
	if err != nil {
		s.fail(req, errAttachArgs, "%v", err)
		return
	}
	ss, err := s.startGdb(a.Gdb, a.NonStop)
	if err != nil {
		s.fail(req, errAttachFailed, "cannot start gdb: %v", err)
		return
	}
	s.mu.Lock()
	s.sess = ss
	s.mu.Unlock()
	s.send(&dap.InitializedEvent{Event: event("initialized")})
	if a.StopOnError != nil && !*a.StopOnError {
		ss.noFindings = true
	}
	for _, p := range procs {
		if err := ss.attachRank(p.rank, p.pid); err != nil {
			s.fail(req, errAttachFailed, "%v", err)
			s.endSession(nil)
			return
		}
	}
	ss.mu.Lock()
	ss.attached = true
	ss.mu.Unlock()
	s.send(&dap.AttachResponse{Response: response(req)})
	ss.maybeRelease()
}

// rankProc is a process to attach as a rank.
type rankProc struct{ rank, pid int }

// ranksBelow finds the descendants of pid that have the shim mapped.
func ranksBelow(pid int) ([]rankProc, error) {
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
		return nil, fmt.Errorf("no process %d", pid)
	}
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var below []int
	todo := []int{pid}
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		for _, c := range children[p] {
			below = append(below, c)
			todo = append(todo, c)
		}
	}
	var out []rankProc
	for _, p := range below {
		if hasShim(p) {
			out = append(out, rankProc{rank: rankFromEnviron(p), pid: p})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no process below %d has mpidbg's shim loaded (start the job with mpidbg run, or LD_PRELOAD=libmpidbg.so)", pid)
	}
	sortProcs(out)
	return out, nil
}

// ranksOf checks the PIDs given.
func ranksOf(pids []int) ([]rankProc, error) {
	var out []rankProc
	for _, p := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p)); err != nil {
			return nil, fmt.Errorf("no process %d", p)
		}
		out = append(out, rankProc{rank: rankFromEnviron(p), pid: p})
	}
	sortProcs(out)
	return out, nil
}

// sortProcs orders by rank; processes without a known rank are numbered
// after the others.
func sortProcs(ps []rankProc) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].rank >= 0 && (ps[j].rank < 0 || ps[i].rank < ps[j].rank) })
	seen := map[int]bool{}
	next := 0
	for _, p := range ps {
		if p.rank >= 0 {
			seen[p.rank] = true
		}
	}
	for i := range ps {
		if ps[i].rank < 0 || (i > 0 && ps[i].rank == ps[i-1].rank) {
			for seen[next] {
				next++
			}
			ps[i].rank = next
			seen[next] = true
		}
	}
}

func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	return atoi(f[1])
}

func hasShim(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	return err == nil && strings.Contains(string(b), "/libmpidbg")
}

// rankFromEnviron reads the rank the launcher gave a process, -1 if
// none (as shim/debugger.c does).
func rankFromEnviron(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return -1
	}
	vars := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	for _, k := range []string{envvar.PMIRank, envvar.PMIxRank, envvar.OMPIWorldRank} {
		if n, err := strconv.Atoi(vars[k]); err == nil && n >= 0 {
			return n
		}
	}
	return -1
}

// killRanks kills the ranks under gdb.
func (ss *session) killRanks() {
	for _, rk := range ss.liveRanks() {
		ss.ending(rk, "killed")
		ss.mi("-interpreter-exec console %s", quote(fmt.Sprintf("kill inferiors %s", strings.TrimPrefix(rk.group, "i"))))
	}
}

// detachRanks lets the ranks go on without the debugger.
func (ss *session) detachRanks() {
	ss.mi("-break-delete")
	for _, rk := range ss.liveRanks() {
		ss.ending(rk, "detached")
		ss.mi("-target-detach --thread-group %s", rk.group)
	}
}

// ending records, before gdb does it, why a rank is about to leave: gdb
// reports a killed or detached inferior as exited, with no exit code.
func (ss *session) ending(rk *rank, why string) {
	ss.mu.Lock()
	rk.ending = why
	ss.mu.Unlock()
}
