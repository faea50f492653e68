package dap

import (
	"fmt"
	"strings"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// Breakpoints are gdb's, and apply to every rank: one gdb breakpoint has
// a location in each inferior whose code has the line. Set before the
// ranks are attached, they are pending until then.

func (s *Server) onSetBreakpointsRequest(req *dap.SetBreakpointsRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "launch or attach first")
		return
	}
	path := req.Arguments.Source.Path
	if path == "" {
		path = req.Arguments.Source.Name
	}
	var specs []bpSpec
	for _, b := range req.Arguments.Breakpoints {
		specs = append(specs, bpSpec{location: fmt.Sprintf("%s:%d", path, b.Line), line: b.Line, path: path,
			cond: b.Condition, hit: b.HitCondition})
	}
	resp := &dap.SetBreakpointsResponse{Response: response(req)}
	resp.Body.Breakpoints = ss.replaceBreakpoints(path, specs)
	s.send(resp)
}

func (s *Server) onSetFunctionBreakpointsRequest(req *dap.SetFunctionBreakpointsRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "launch or attach first")
		return
	}
	var specs []bpSpec
	for _, b := range req.Arguments.Breakpoints {
		specs = append(specs, bpSpec{location: b.Name, cond: b.Condition, hit: b.HitCondition})
	}
	resp := &dap.SetFunctionBreakpointsResponse{Response: response(req)}
	resp.Body.Breakpoints = ss.replaceBreakpoints(functionBreakpoints, specs)
	s.send(resp)
}

// functionBreakpoints is the key of the function breakpoints in
// session.bps (a source path never starts with NUL).
const functionBreakpoints = "\x00functions"

// bpSpec is one breakpoint the client asked for.
type bpSpec struct {
	location  string // as -break-insert takes it: file:line or a function
	line      int
	path      string
	cond, hit string
}

// replaceBreakpoints sets the breakpoints of one source (or the function
// breakpoints), as DAP's requests replace them all each time.
func (ss *session) replaceBreakpoints(key string, specs []bpSpec) []dap.Breakpoint {
	ss.mu.Lock()
	old := ss.bps[key]
	ss.mu.Unlock()
	if len(old) > 0 {
		ss.mi("-break-delete %s", strings.Join(old, " "))
	}
	var nums []string
	out := make([]dap.Breakpoint, 0, len(specs))
	for _, b := range specs {
		rec, err := ss.mi("-break-insert -f %s%s", breakOptions(b.cond, b.hit), quote(b.location))
		out = append(out, ss.breakpoint(rec, err, b.line, b.path, &nums))
	}
	ss.mu.Lock()
	ss.bps[key] = nums
	ss.mu.Unlock()
	return out
}

// breakOptions turns a condition and a hit count into -break-insert's
// options. A hit condition is a number: stop from that hit on.
func breakOptions(cond, hit string) string {
	var b strings.Builder
	if cond != "" {
		fmt.Fprintf(&b, "-c %s ", quote(cond))
	}
	if n := atoi(strings.TrimLeft(hit, ">= ")); n > 1 {
		fmt.Fprintf(&b, "-i %d ", n-1)
	}
	return b.String()
}

// breakpoint is gdb's answer to -break-insert as the client sees it.
func (ss *session) breakpoint(rec gdbmi.Record, err error, line int, path string, nums *[]string) dap.Breakpoint {
	if err != nil {
		return dap.Breakpoint{Verified: false, Line: line, Message: err.Error()}
	}
	bk := rec.Results.Tuple("bkpt")
	num := bk.String("number")
	*nums = append(*nums, num)
	b := dap.Breakpoint{Id: atoi(num), Line: line}
	if l := atoi(bk.String("line")); l > 0 {
		b.Line = l
	}
	if locs := bk.List("locations").Values; len(locs) > 0 {
		if t, ok := locs[0].(gdbmi.Tuple); ok && atoi(t.String("line")) > 0 {
			b.Line = atoi(t.String("line"))
		}
	}
	if bk.String("pending") != "" || bk.String("addr") == "<PENDING>" {
		b.Verified = false
		b.Message = "pending: the ranks are not loaded yet"
		ss.mu.Lock()
		attached := ss.attached // the ranks' code is there (live implies it)
		ss.mu.Unlock()
		if attached {
			b.Message = "no code at this line in the program"
		}
	} else {
		b.Verified = true
	}
	if path != "" {
		b.Source = &dap.Source{Path: path}
	}
	return b
}

// onSetExceptionBreakpointsRequest chooses which findings stop a rank.
func (s *Server) onSetExceptionBreakpointsRequest(req *dap.SetExceptionBreakpointsRequest) {
	var f filterSet
	for _, name := range req.Arguments.Filters {
		switch name {
		case "errors":
			f.errors = true
		case "warnings":
			f.warnings = true
		}
	}
	s.mu.Lock()
	s.filters = f
	ss := s.sess
	s.mu.Unlock()
	if ss != nil {
		ss.mu.Lock()
		live := ss.live
		ss.mu.Unlock()
		if live {
			ss.updateFindingBreakpoint()
		}
	}
	resp := &dap.SetExceptionBreakpointsResponse{Response: response(req)}
	s.send(resp)
}

// updateFindingBreakpoint has a breakpoint on the shim's mpidbg_break
// while some filter is on (the filter's severity is checked at the
// stop), and none otherwise: a job without one runs at full speed. A
// launched job in all-stop mode keeps it in any case, since its ranks'
// exits stop there too (exit.go); while no finding is wanted it has the
// condition that the rank be exiting, so that gdb lets findings pass
// without a stop the adapter would have to resume.
func (ss *session) updateFindingBreakpoint() {
	stops := ss.wantsFindings()
	want := stops || ss.exitsOnFindingBreakpoint()
	ss.mu.Lock()
	have := ss.findingBp
	ss.mu.Unlock()
	switch {
	case want && have == "":
		rec, err := ss.mi("-break-insert -f mpidbg_break")
		if err != nil {
			ss.srv.output("console", fmt.Sprintf("mpidbg: cannot stop on findings: %v\n", err))
			return
		}
		have = rec.Results.Tuple("bkpt").String("number")
		ss.mu.Lock()
		ss.findingBp = have
		ss.mu.Unlock()
	case !want && have != "":
		ss.mi("-break-delete %s", have)
		ss.mu.Lock()
		ss.findingBp = ""
		ss.mu.Unlock()
		return
	case !want:
		return
	}
	cond := "" // none: every call stops
	if !stops {
		cond = " mpidbg_exit_status >= 0"
	}
	if _, err := ss.mi("-break-condition %s%s", have, cond); err != nil {
		ss.srv.logf("breakpoint %s, condition %q: %v", have, cond, err)
	}
}

// wantsFindings says whether findings stop the rank: some filter is on,
// and the launch did not say stopOnError false.
func (ss *session) wantsFindings() bool {
	ss.srv.mu.Lock()
	defer ss.srv.mu.Unlock()
	return ss.srv.filters.any() && !ss.noFindings
}
