// Package helper is the Go side of the gdb extension's helper protocol
// (docs/gdb-helper.md): JSON objects, one per line, in which gdb asks for
// a datatype, a buffer, the pending requests or the findings, and the
// helper asks gdb for the memory it needs to answer. The helper never
// touches the debugged process, so the same code serves a live rank and
// a core file.
package helper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Server answers one gdb session's requests. Make one with New.
type Server struct {
	version string
	in      *bufio.Reader
	out     *bufio.Writer
	log     io.Writer

	eof      bool  // the input ended, possibly in the middle of a request
	writeErr error // the first failed write: the session is over

	sites map[uint64]string // the current request's call sites as gdb names them (where.go)
	pyReg pyRegistry        // the current request's registry, which names Python call sites (where.go)
}

// New returns a server reading requests (and read answers) from in and
// writing replies (and reads) to out. version is what hello reports; log
// takes diagnostics, never protocol lines.
func New(in io.Reader, out io.Writer, log io.Writer, version string) *Server {
	if log == nil {
		log = io.Discard
	}
	return &Server{version: version, in: bufio.NewReaderSize(in, 1<<16), out: bufio.NewWriterSize(out, 1<<16), log: log}
}

// request is one line gdb sends.
type request struct {
	ID   int64           `json:"id"`
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

// result is what a handler returns for a request that succeeded.
type result struct {
	text  string
	value any
}

type okReply struct {
	ID    int64  `json:"id"`
	OK    bool   `json:"ok"`
	Text  string `json:"text"`
	Value any    `json:"value"`
}

type errReply struct {
	ID    int64  `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// Serve answers requests until the input ends (nil) or the output fails.
// No request's failure ends it: each gets an error reply.
func (s *Server) Serve() error {
	for !s.eof && s.writeErr == nil {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s.handle(line)
	}
	return s.writeErr
}

// readLine returns the next line without its newline. A last line
// without a newline still counts; io.EOF means there is none.
func (s *Server) readLine() ([]byte, error) {
	line, err := s.in.ReadBytes('\n')
	if err == io.EOF && len(line) > 0 {
		s.eof = true
		err = nil
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			s.eof = true
		}
		return nil, err
	}
	return bytes.TrimRight(line, "\r\n"), nil
}

func (s *Server) handle(line []byte) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		// the id may still be readable when another field is malformed
		var idOnly struct {
			ID int64 `json:"id"`
		}
		_ = json.Unmarshal(line, &idOnly)
		s.reply(errReply{ID: idOnly.ID, Error: "malformed request: " + jsonError(err)})
		return
	}
	res, err := s.dispatch(&req)
	if err != nil {
		s.reply(errReply{ID: req.ID, Error: err.Error()})
		return
	}
	s.reply(okReply{ID: req.ID, OK: true, Text: res.text, Value: res.value})
}

// dispatch runs the handler of req's op. A panic in a handler (a bug, or
// a corrupted registry the decoder did not expect) becomes an error
// reply: the gdb session must not lose its helper.
func (s *Server) dispatch(req *request) (res *result, err error) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(s.log, "mpidbg gdb-helper: internal error in %q: %v\n%s", req.Op, p, debug.Stack())
			res, err = nil, fmt.Errorf("internal error: %v (a bug in mpidbg; please report it)", p)
		}
	}()
	s.sites = nil
	a, err := decodeArgs(req.Args)
	if err != nil {
		return nil, err
	}
	switch req.Op {
	case "hello":
		return s.onHello(a)
	case "type":
		return s.onType(a)
	case "types":
		return s.onTypes(a)
	case "buffer":
		return s.onBuffer(a)
	case "path":
		return s.onPath(a)
	case "requests":
		return s.onRequests(a)
	case "errors":
		return s.onErrors(a)
	case "handle":
		return s.onHandle(a)
	case "caller":
		return s.onCaller(a)
	case "":
		return nil, errors.New("malformed request: no op")
	}
	return nil, fmt.Errorf("unknown op %q (want hello, type, types, buffer, path, requests, errors, handle or caller)", req.Op)
}

func (s *Server) onHello(args) (*result, error) {
	return &result{text: "mpidbg " + s.version, value: map[string]any{"version": s.version}}, nil
}

// reply writes one line and flushes it: gdb waits for it.
func (s *Server) reply(v any) {
	b, err := json.Marshal(v)
	if err != nil { // only a value a handler built wrongly
		b, _ = json.Marshal(errReply{Error: "internal error: " + err.Error()})
	}
	s.writeLine(b)
}

func (s *Server) writeLine(b []byte) {
	if s.writeErr != nil {
		return
	}
	s.out.Write(b)
	s.out.WriteByte('\n')
	s.writeErr = s.out.Flush()
}

// jsonError words a decoding error without Go type names where it can.
func jsonError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("not JSON at byte %d: %v", se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q: want %s, got a JSON %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case k == "string":
		return "a string"
	}
	return k
}
