package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mpidbg/mpidbg/checks"
)

// Version is the protocol version a Hello carries. Version 2 added
// Confirm and Confirmed: a rank of an earlier version is not asked.
const Version = 2

// ConfirmVersion is the first version whose ranks answer Confirm.
const ConfirmVersion = 2

// Kind says what a Message carries.
type Kind string

const (
	KindHello   Kind = "hello"
	KindFinding Kind = "finding"
	KindBye     Kind = "bye"
	KindNote    Kind = "note"
)

// Message is one line of the protocol; exactly one of the pointers is set,
// as Kind says.
type Message struct {
	Kind      Kind            `json:"kind"`
	Hello     *Hello          `json:"hello,omitempty"`
	Finding   *checks.Finding `json:"finding,omitempty"`
	Bye       *Bye            `json:"bye,omitempty"`
	Blocked   *Blocked        `json:"blocked,omitempty"`
	Unblocked *Unblocked      `json:"unblocked,omitempty"`
	Confirm   *Confirm        `json:"confirm,omitempty"`
	Confirmed *Confirmed      `json:"confirmed,omitempty"`
	Stop      *Stop           `json:"stop,omitempty"`
	Crash     *Crash          `json:"crash,omitempty"` // outcome.go
	Abort     *Abort          `json:"abort,omitempty"`
	Exit      *Exit           `json:"exit,omitempty"`
	Fatal     *Fatal          `json:"fatal,omitempty"`
	Refused   *Refused        `json:"refused,omitempty"` // token.go
	Note      *Note           `json:"note,omitempty"`
}

// Hello introduces a rank.
type Hello struct {
	Version int    `json:"version"`
	Rank    int    `json:"rank"` // in MPI_COMM_WORLD
	Size    int    `json:"size"`
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	Exe     string `json:"exe"` // absolute path of the program
	MPI     string `json:"mpi"` // "mpich" or "openmpi"
}

// Note is something a rank says about how it is checked rather than
// about the program: a check it cannot make on this machine, say.
type Note struct {
	Text string `json:"text"`
}

// Bye says the rank reached MPI_Finalize; Findings counts what it sent.
type Bye struct {
	Rank     int `json:"rank"`
	Findings int `json:"findings"`
}

// Writer encodes messages, one per line.
type Writer struct{ w io.Writer }

func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write sends one message as a single write, so that messages from
// several threads of a rank never interleave.
func (w *Writer) Write(m Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("wire: encode %s: %w", m.Kind, err)
	}
	_, err = w.w.Write(append(b, '\n'))
	return err
}

// Reader decodes messages.
type Reader struct{ s *bufio.Scanner }

// MaxLine bounds one message; a longer line is a protocol error.
const MaxLine = 1 << 20

func NewReader(r io.Reader) *Reader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), MaxLine)
	return &Reader{s: s}
}

// ErrMalformed is wrapped by Read's errors for lines that are not messages.
var ErrMalformed = errors.New("malformed message")

// Read returns the next message, or io.EOF at the end of the stream.
func (r *Reader) Read() (Message, error) {
	for {
		if !r.s.Scan() {
			if err := r.s.Err(); err != nil {
				return Message{}, fmt.Errorf("wire: %w", err)
			}
			return Message{}, io.EOF
		}
		// An empty line is no message: a writer that cannot know whether
		// the stream is at a line's start (a signal handler) begins with
		// a newline.
		if len(r.s.Bytes()) > 0 {
			break
		}
	}
	var m Message
	if err := json.Unmarshal(r.s.Bytes(), &m); err != nil {
		return Message{}, fmt.Errorf("wire: %w: %v", ErrMalformed, err)
	}
	ok := (m.Kind == KindHello && m.Hello != nil) || (m.Kind == KindFinding && m.Finding != nil) || (m.Kind == KindBye && m.Bye != nil) ||
		(m.Kind == KindBlocked && m.Blocked != nil) || (m.Kind == KindUnblocked && m.Unblocked != nil) || (m.Kind == KindStop && m.Stop != nil) ||
		(m.Kind == KindConfirm && m.Confirm != nil) || (m.Kind == KindConfirmed && m.Confirmed != nil) ||
		(m.Kind == KindCrash && m.Crash != nil) || (m.Kind == KindAbort && m.Abort != nil) ||
		(m.Kind == KindExit && m.Exit != nil) || (m.Kind == KindFatal && m.Fatal != nil) || (m.Kind == KindRefused && m.Refused != nil) ||
		(m.Kind == KindNote && m.Note != nil)
	if !ok {
		return Message{}, fmt.Errorf("wire: %w: kind %q without its body", ErrMalformed, m.Kind)
	}
	if m.Blocked != nil {
		if err := m.Blocked.check(); err != nil {
			return Message{}, fmt.Errorf("wire: %w: %v", ErrMalformed, err)
		}
	}
	return m, nil
}
