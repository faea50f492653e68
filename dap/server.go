// Package dap is mpidbg's Debug Adapter Protocol server: it runs an MPI
// job with every rank (or the chosen ones) under one gdb, driven through
// gdb/MI (package gdbmi), one inferior per rank, and stops in the faulty
// rank at the faulty call when the shim makes a finding.
//
// The protocol is the Debug Adapter Protocol
// (https://microsoft.github.io/debug-adapter-protocol/specification);
// the messages are go-dap's. A Server serves one client on one
// connection: requests are handled one at a time, in order, on the
// reading goroutine (onXxxRequest, one file per family of requests);
// what gdb reports while the job runs (stops, exits, program output)
// becomes events on a goroutine of its own (events.go).
package dap

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"

	"github.com/google/go-dap"
)

// errNotRequest: a well-formed message that is not a request.
var errNotRequest = errors.New("not a request")

// Config is what the server needs from its command line.
type Config struct {
	Gdb    string // the gdb to run ("" : gdb on PATH)
	Script string // the gdb extension's script (extensions/gdb/mpidbg-gdb.py)
	Mpidbg string // this mpidbg executable, for the extension's helper
	// Tools resolves a launch configuration's program, "mpi", "shim" and
	// "mpiexec" (each may be "") into what the job runs with.
	Tools func(program, mpi, shim, mpiexec string) (Tools, error)
	// Log, when set, gets every message in and out and every MI line.
	Log *log.Logger

	// beforeDispatch, when set, sees every request before its handler
	// (the tests make a handler panic with it).
	beforeDispatch func(dap.Message)
	// stderr is where a recovered panic is told besides the log (nil:
	// os.Stderr).
	stderr io.Writer
}

// Tools is what a launched job runs with: the shim built for its MPI
// library (mpich or openmpi) and its mpiexec.
type Tools struct{ Shim, MPIExec string }

// Server serves one DAP client.
type Server struct {
	cfg    Config
	rw     io.ReadWriter
	stderr io.Writer // cfg.stderr, else os.Stderr

	wmu sync.Mutex // serialises writes and seq
	w   *bufio.Writer
	seq int

	mu         sync.Mutex // guards the fields below
	sess       *session   // nil before launch or attach
	filters    filterSet  // exception filters (setExceptionBreakpoints)
	ended      bool       // terminated sent
	configured bool       // configurationDone came
	shutdown   chan struct{}
}

// NewServer returns a server for one client on rw.
func NewServer(cfg Config, rw io.ReadWriter) *Server {
	stderr := cfg.stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	return &Server{cfg: cfg, rw: rw, stderr: stderr, w: bufio.NewWriter(rw), filters: defaultFilters(), shutdown: make(chan struct{})}
}

// Serve reads requests until the client disconnects or the connection
// ends, and then ends the debug session (the job is terminated when it
// was launched, left running when it was attached to).
func (s *Server) Serve() error {
	r := newFrameReader(s.rw)
	defer s.endSession(nil)
	for {
		body, err := r.next()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
				return nil
			}
			// a broken header: the stream cannot be followed any more
			return fmt.Errorf("dap: reading a message: %w", err)
		}
		msg, err := dap.DecodeProtocolMessage(body)
		if _, isRequest := msg.(dap.RequestMessage); err == nil && !isRequest {
			err = errNotRequest // an event or a response: this server sends no requests
		}
		if err != nil {
			// Well framed but not a request we can decode (bad JSON, an
			// unknown command, a field of the wrong type): say so and go
			// on. The raw input goes to the log as it came.
			s.logf("<- %s", logged(body))
			s.logf("   undecodable: %v", err)
			s.refuse(body, err)
			continue
		}
		s.logf("<- %s", logged(body)) // as it came, for bug reports
		if stop := s.handle(msg); stop {
			return nil
		}
	}
}

// send writes one message with the next sequence number.
func (s *Server) send(m dap.Message) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	setSeq(m, s.seq)
	s.logf("-> %s", describe(m))
	if err := dap.WriteProtocolMessage(s.w, m); err == nil {
		s.w.Flush()
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Log != nil {
		s.cfg.Log.Printf(format, args...)
	}
}

// describe is a message as the log shows it.
func describe(m dap.Message) string {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf("%T", m)
	}
	if len(b) > 2000 {
		b = append(b[:2000], "…"...)
	}
	return string(b)
}

// logged is a message's raw bytes as the log shows them.
func logged(body []byte) string {
	if len(body) > 2000 {
		return string(body[:2000]) + "…"
	}
	return string(body)
}

// setSeq sets a message's sequence number, whatever its type.
func setSeq(m dap.Message, seq int) {
	switch v := m.(type) {
	case dap.ResponseMessage:
		v.GetResponse().Seq = seq
	case dap.EventMessage:
		v.GetEvent().Seq = seq
	case dap.RequestMessage:
		v.GetRequest().Seq = seq
	}
}

// response returns the response header to req.
func response(req dap.RequestMessage) dap.Response {
	r := req.GetRequest()
	return dap.Response{ProtocolMessage: dap.ProtocolMessage{Type: "response"}, RequestSeq: r.Seq, Command: r.Command, Success: true}
}

// event returns an event header.
func event(name string) dap.Event {
	return dap.Event{ProtocolMessage: dap.ProtocolMessage{Type: "event"}, Event: name}
}
