package dap

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// pageSize is how many buffer elements one variables response holds:
// go-dap and clients choke on huge messages, and nobody reads 10^6 rows.
const pageSize = 100

// mpiHandleTypes are decoded by the extension's printers.
var mpiHandleTypes = map[string]bool{"MPI_Datatype": true, "MPI_Comm": true, "MPI_Request": true,
	"MPI_Win": true, "MPI_Op": true, "MPI_Group": true}

func (s *Server) onVariablesRequest(req *dap.VariablesRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	ref, ok := ss.refs.get(req.Arguments.VariablesReference)
	if !ok {
		s.fail(req, errUnknownID, "variables reference %d is not known (the job ran since)", req.Arguments.VariablesReference)
		return
	}
	var vars []dap.Variable
	var err error
	switch r := ref.(type) {
	case localsRef:
		vars, err = ss.locals(r.frameRef)
	case varobjRef:
		vars, err = ss.children(r)
	case callRef:
		vars, err = ss.mpiCall(r.frameRef)
	case bufferRef:
		vars, err = ss.bufferPage(r)
	case datatypeRef:
		vars = ss.datatypeChildren(r)
	default:
		err = fmt.Errorf("reference %d is not a variables reference", req.Arguments.VariablesReference)
	}
	if err != nil {
		s.fail(req, errVariables, "%v", err)
		return
	}
	if vars == nil {
		vars = []dap.Variable{}
	}
	resp := &dap.VariablesResponse{Response: response(req)}
	resp.Body.Variables = vars
	s.send(resp)
}

// sel is the MI options that select a frame.
func (f frameRef) sel() string { return fmt.Sprintf("--thread %d --frame %d", f.thread, f.level) }

// locals lists a frame's arguments and locals. Scalars come with their
// value; aggregates and MPI handles become varobjs, whose values and
// children the extension's printers give; an MPI_Datatype shows its
// constructor tree (datatype.go).
func (ss *session) locals(f frameRef) ([]dap.Variable, error) {
	rec, err := ss.mi("-stack-list-variables %s --simple-values", f.sel())
	if err != nil {
		return nil, err
	}
	var out []dap.Variable
	for _, v := range rec.Results.List("variables").Values {
		t, _ := v.(gdbmi.Tuple)
		name, typ := t.String("name"), t.String("type")
		value, hasValue := t.Get("value").(gdbmi.Const)
		if !hasValue || mpiHandleTypes[typ] {
			dv, _ := ss.expression(f, name, typ) // an error is shown as the value
			out = append(out, dv)
			continue
		}
		dv := dap.Variable{Name: name, Type: typ, Value: string(value), EvaluateName: name}
		if isPointer(typ, dv.Value) {
			dv.MemoryReference = memRef(f.thread, dv.Value)
		}
		out = append(out, dv)
	}
	return out, nil
}

var hexAddr = regexp.MustCompile(`^(0x[0-9a-fA-F]+)`)

func isPointer(typ, value string) bool {
	return strings.HasSuffix(strings.TrimSpace(typ), "*") && hexAddr.MatchString(value)
}

// memRef is a memory reference: the address and the thread whose
// process it is in (each rank is a process of its own).
func memRef(thread int, value string) string {
	m := hexAddr.FindString(value)
	if m == "" {
		return ""
	}
	return fmt.Sprintf("%s@%d", m, thread)
}

// expression is one expression as a variable. It is evaluated once, by
// the varobj that gives its children (a second evaluation would repeat
// what an expression such as i++ or f() does); the varobj's value is
// what gdb prints, printers included. When it cannot be evaluated, the
// error is returned and also shown as the value.
func (ss *session) expression(f frameRef, expr, typ string) (dap.Variable, error) {
	if typ == "MPI_Datatype" {
		return ss.datatypeVariable(f, expr, expr), nil
	}
	dv := dap.Variable{Name: expr, Type: typ, EvaluateName: expr}
	vo, err := ss.mi("-var-create %s - * %s", f.sel(), quote(expr))
	if err != nil {
		dv.Value = "<" + errText(err) + ">"
		return dv, err
	}
	name := vo.Results.String("name")
	ss.mu.Lock()
	ss.varobjs = append(ss.varobjs, name)
	ss.mu.Unlock()
	if dv.Type = vo.Results.String("type"); dv.Type == "MPI_Datatype" {
		return ss.datatypeVariable(f, expr, expr), nil
	}
	dv.Value = vo.Results.String("value")
	if hasChildren(vo.Results) {
		dv.VariablesReference = ss.refs.add(varobjRef{name: name, frame: f})
	}
	if isPointer(dv.Type, dv.Value) {
		dv.MemoryReference = memRef(f.thread, dv.Value)
	}
	return dv, nil
}

// hasChildren says whether a varobj (or a child of one) can be
// expanded: gdb counts its children, or a printer says it has more.
func hasChildren(vo gdbmi.Tuple) bool {
	return atoi(vo.String("numchild")) > 0 || vo.String("has_more") == "1"
}

// children lists a varobj's children.
func (ss *session) children(r varobjRef) ([]dap.Variable, error) {
	rec, err := ss.mi("-var-list-children --simple-values %s", quote(r.name))
	if err != nil {
		return nil, err
	}
	var out []dap.Variable
	for _, c := range rec.Results.List("children").Results {
		t, _ := c.Value.(gdbmi.Tuple)
		name, exp, typ := t.String("name"), t.String("exp"), t.String("type")
		dv := dap.Variable{Name: exp, Type: typ, Value: t.String("value")}
		switch {
		case typ == "MPI_Datatype":
			// a datatype inside a struct or array: its constructor tree
			if p, err := ss.mi("-var-info-path-expression %s", quote(name)); err == nil {
				dv = ss.datatypeVariable(r.frame, exp, p.Results.String("path_expr"))
			}
		case isString(typ):
			// a printer's text child (the combiner's name): its text, not
			// its characters
			if v, err := ss.mi("-var-evaluate-expression %s", quote(name)); err == nil {
				dv.Value = unquoteC(v.Results.String("value"))
			}
		case hasChildren(t) || (t.String("dynamic") == "1" && !mpiHandleTypes[typ]):
			// a printer's child counts its children only once listed
			dv.VariablesReference = ss.refs.add(varobjRef{name: name, frame: r.frame})
			if dv.Value == "" {
				dv.Value = "{…}"
			}
		}
		out = append(out, dv)
	}
	return out, nil
}

// mpiCall shows the MPI call a frame is making: its arguments as the
// extension decodes them, and each buffer through its datatype.
func (ss *session) mpiCall(f frameRef) ([]dap.Variable, error) {
	rec, err := ss.mi("-mpi-call %s", frameRef{thread: f.thread, level: f.callLevel}.sel())
	if err != nil {
		return nil, err
	}
	v := rec.Results.Tuple("value")
	var out []dap.Variable
	for _, a := range v.List("args").Values {
		t, _ := a.(gdbmi.Tuple)
		out = append(out, dap.Variable{Name: t.String("name"), Value: t.String("value")})
	}
	for _, b := range v.List("buffers").Values {
		t, _ := b.(gdbmi.Tuple)
		dv := dap.Variable{Name: t.String("name") + " (as its datatype)", Type: t.String("type")}
		if e := t.String("error"); e != "" {
			dv.Value = "<" + e + ">"
			out = append(out, dv)
			continue
		}
		total := atoi(t.String("elements"))
		dv.Value = fmt.Sprintf("%s × %s at %s: %d elements", t.String("count"), t.String("type"), t.String("addr"), total)
		dv.MemoryReference = memRef(f.thread, t.String("addr"))
		if total > 0 {
			dv.VariablesReference = ss.refs.add(bufferRef{frame: f, addr: t.String("addr"), datatype: t.String("datatype"),
				count: atoi(t.String("count")), end: total})
			dv.IndexedVariables = total
		}
		out = append(out, dv)
	}
	return out, nil
}

// bufferPage lists a buffer's elements, named by their type-tree path,
// or, for a buffer longer than a page, its pages of pageSize elements.
func (ss *session) bufferPage(r bufferRef) ([]dap.Variable, error) {
	if !r.page && r.end-r.start > pageSize {
		var out []dap.Variable
		for s := r.start; s < r.end; s += pageSize {
			p := r
			p.start, p.end, p.page = s, min(s+pageSize, r.end), true
			out = append(out, dap.Variable{Name: fmt.Sprintf("[%d..%d]", p.start, p.end-1),
				Value: fmt.Sprintf("%d elements", p.end-p.start), VariablesReference: ss.refs.add(p)})
		}
		return out, nil
	}
	rec, err := ss.mi("-mpi-buffer %s %s %s %d --start %d --limit %d", r.frame.sel(), r.addr, r.datatype, r.count, r.start, r.end-r.start)
	if err != nil {
		return nil, err
	}
	var out []dap.Variable
	for _, e := range rec.Results.Tuple("value").List("elements").Values {
		t, _ := e.(gdbmi.Tuple)
		dv := dap.Variable{Name: t.String("path"), Value: t.String("value"), MemoryReference: memRef(r.frame.thread, t.String("addr"))}
		if msg := t.String("error"); msg != "" {
			dv.Value = "<" + msg + ">"
		}
		out = append(out, dv)
	}
	return out, nil
}

// isString: a char array, as gdb types the strings a printer yields.
func isString(typ string) bool { return strings.HasPrefix(typ, "char [") }

// unquoteC drops the quotes gdb prints a string in.
func unquoteC(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		if u, err := strconv.Unquote(v); err == nil {
			return u
		}
		return v[1 : len(v)-1]
	}
	return v
}

func errText(err error) string {
	if e, ok := err.(*gdbmi.ErrorRecord); ok {
		return e.Msg
	}
	return err.Error()
}

// onEvaluateRequest evaluates an expression, or runs a gdb command from
// the Debug Console: "mpi ...", "info ...", "help ..." or "-exec
// COMMAND". Hovering never calls a function nor changes memory.
func (s *Server) onEvaluateRequest(req *dap.EvaluateRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	a := req.Arguments
	f, haveFrame := ss.frame(a.FrameId)
	if !haveFrame {
		f = ss.anyStoppedFrame()
	}
	resp := &dap.EvaluateResponse{Response: response(req)}
	expr := strings.TrimSpace(a.Expression)
	if a.Context == "repl" {
		if cmd, ok := cliCommand(expr); ok {
			out, err := ss.console(f.thread, f.level, cmd)
			if err != nil {
				s.fail(req, errEvaluate, "%s", strings.TrimSpace(out+"\n"+errText(err)))
				return
			}
			resp.Body.Result = trimConsole(out)
			s.send(resp)
			return
		}
	}
	if a.Context == "hover" {
		if sideEffect.MatchString(expr) {
			s.fail(req, errEvaluate, "not evaluated on hover: it could change the program's state")
			return
		}
		ss.mi("-gdb-set may-call-functions off")
		defer ss.mi("-gdb-set may-call-functions on")
	}
	if f.thread == 0 {
		s.fail(req, errEvaluate, "no rank is stopped: pause first")
		return
	}
	v, err := ss.expression(f, expr, "")
	if err != nil {
		s.fail(req, errEvaluate, "%s", errText(err))
		return
	}
	resp.Body.Result, resp.Body.Type, resp.Body.VariablesReference, resp.Body.MemoryReference = v.Value, v.Type, v.VariablesReference, v.MemoryReference
	s.send(resp)
}

// sideEffect matches expressions a hover must not evaluate: assignments
// and increments (function calls are refused by may-call-functions).
var sideEffect = regexp.MustCompile(`(^|[^=!<>])=($|[^=])|\+\+|--|[-+*/%&|^]=|<<=|>>=`)

// cliCommand says whether a Debug Console line is a gdb command.
func cliCommand(expr string) (string, bool) {
	if rest, ok := strings.CutPrefix(expr, "-exec "); ok {
		return strings.TrimSpace(rest), true
	}
	word, _, _ := strings.Cut(expr, " ")
	switch word {
	case "mpi", "info", "help":
		return expr, true
	}
	return "", false
}

// anyStoppedFrame is the top frame of some stopped rank, for an
// evaluate without a frame.
func (ss *session) anyStoppedFrame() frameRef {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if t := ss.threads[ss.lastStop]; ss.lastStop != 0 && t != nil {
		if t.hidden && t.rank != nil {
			return frameRef{thread: t.rank.main} // as the stop was reported
		}
		return frameRef{thread: ss.lastStop}
	}
	for tid := range ss.stops {
		return frameRef{thread: tid}
	}
	for _, r := range ss.ranks {
		if r != nil && !r.exited && ss.live {
			return frameRef{thread: r.main}
		}
	}
	return frameRef{}
}

// onReadMemoryRequest reads a rank's memory.
func (s *Server) onReadMemoryRequest(req *dap.ReadMemoryRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	addrText, threadText, _ := strings.Cut(req.Arguments.MemoryReference, "@")
	addr, err := strconv.ParseUint(strings.TrimPrefix(addrText, "0x"), 16, 64)
	if err != nil {
		s.fail(req, errMemory, "memory reference %q: want 0xADDRESS[@THREAD]", req.Arguments.MemoryReference)
		return
	}
	tid := atoi(threadText)
	if tid == 0 {
		tid = ss.anyStoppedFrame().thread
	}
	addr += uint64(int64(req.Arguments.Offset))
	resp := &dap.ReadMemoryResponse{Response: response(req)}
	resp.Body.Address = fmt.Sprintf("0x%x", addr)
	count := min(req.Arguments.Count, 1<<20)
	if count <= 0 {
		s.send(resp)
		return
	}
	rec, err := ss.mi("-data-read-memory-bytes --thread %d 0x%x %d", tid, addr, count)
	if err != nil {
		resp.Body.UnreadableBytes = count
		s.send(resp)
		return
	}
	var data []byte
	for _, m := range rec.Results.List("memory").Values {
		t, _ := m.(gdbmi.Tuple)
		b, err := hex.DecodeString(t.String("contents"))
		if err != nil {
			break
		}
		data = append(data, b...)
	}
	resp.Body.Data = base64.StdEncoding.EncodeToString(data)
	resp.Body.UnreadableBytes = count - len(data)
	s.send(resp)
}
