package launch

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
)

// bannerFilter passes one of mpiexec's streams through to w unchanged,
// except that once mpidbg has begun to end the job (a deadlock, ranks
// stuck at their errors, an error finding under --on-error=abort) it
// drops the launcher's account of the ranks it lost: the report says
// why the job ended, in one line, and the launcher's banner ("BAD
// TERMINATION OF ONE OF YOUR APPLICATION PROCESSES ... This typically
// refers to a problem with your application") would blame the program
// for mpidbg's SIGTERM.
//
// Hydra prints on standard output, after an optional blank line:
//
//	===================================================================================
//	=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
//	=   PID 7030 RUNNING AT vm
//	...
//	===================================================================================
//	YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)
//	This typically refers to a problem with your application.
//	Please see the FAQ page for debugging suggestions
//
// Open MPI frames its messages with lines of dashes, on standard error:
// "mpiexec noticed that process rank 0 with PID 0 on node vm exited on
// signal 9 (Killed).", "prterun noticed that ...", "mpiexec has exited
// due to process rank 1 ...", and, after the rank that --on-error=abort
// made call MPI_Abort, "MPI_ABORT was invoked on rank 0 ..." with its
// "[vm:123] 1 more process has sent help message help-mpi-api.txt /
// mpi-abort" and "Set MCA parameter ..." lines, and the daemon's
// ORTE_ERROR_LOG line when it could not pass that banner on. Only a
// whole framed message that is one of these is dropped, and those lines;
// any other line, and everything before mpidbg began to end the job,
// passes byte for byte. Once ending, a line is held until
// its newline comes (to be judged whole), a blank line or a frame until
// the next lines say whether they are the banner; Flush lets out what is
// still held when mpiexec has exited.
type bannerFilter struct {
	w io.Writer

	mu        sync.Mutex
	ending    bool
	midLine   bool     // the last byte let through was not a newline
	partial   []byte   // an unfinished line, once ending
	held      [][]byte // lines held for judgement, with their newlines
	state     bannerState
	afterBad  bool // the lines that follow Hydra's banner go too
	afterMore bool // Open MPI's advice after its count of left-out copies goes too
	heldBytes int
}

type bannerState int

const (
	bannerNone  bannerState = iota
	bannerHydra             // inside a frame of '='
	bannerOMPI              // inside a frame of '-'
)

// maxHeld bounds what is held for one frame: a frame that does not close
// within it is not a banner and goes through.
const maxHeld = 16 << 10

var (
	hydraFrame = regexp.MustCompile(`^={20,}$`)
	hydraBad   = regexp.MustCompile(`^=\s+BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES`)
	hydraAfter = regexp.MustCompile(`^(YOUR APPLICATION TERMINATED WITH THE EXIT STRING:|This typically refers to a problem with your application\.|Please see the FAQ page for debugging suggestions)`)
	ompiLost   = regexp.MustCompile(`^(\S+ noticed that process rank \d+ with PID|\S+ has exited due to process rank \d+|MPI_ABORT was invoked on rank \d+)`)
	// Open MPI's count of the copies of a help message it left out, and
	// the advice after it.
	ompiMore   = regexp.MustCompile(`^\[[^\]]+\] \d+ more process(es)? ha(s|ve) sent help message help-mpi-api\.txt / mpi-abort`)
	ompiAdvice = regexp.MustCompile(`^\[[^\]]+\] Set MCA parameter "orte_base_help_aggregate" to 0 to see all help / error messages`)
	// Open MPI's daemon logs that it could not pass on a help message
	// (the MPI_Abort banner) when the job is already going down:
	// "[vm:27929] [[487,0],0] ORTE_ERROR_LOG: Out of resource in file
	// ../../../orte/util/show_help.c at line 501".
	ompiHelpLost = regexp.MustCompile(`^\[[^\]]+\] \[\[\d+,\d+\],\d+\] ORTE_ERROR_LOG: .* in file \S*orte/util/show_help\.c at line \d+$`)
)

func newBannerFilter(w io.Writer) *bannerFilter { return &bannerFilter{w: w} }

// End says mpidbg has begun to end the job.
func (b *bannerFilter) End() {
	b.mu.Lock()
	b.ending = true
	b.mu.Unlock()
}

func (b *bannerFilter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.ending {
		if len(p) > 0 {
			b.midLine = p[len(p)-1] != '\n'
		}
		return b.w.Write(p)
	}
	data := p
	if b.midLine { // the rest of a line begun before: not a banner
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			_, err := b.w.Write(data)
			return len(p), err
		}
		if _, err := b.w.Write(data[:i+1]); err != nil {
			return len(p), err
		}
		b.midLine = false
		data = data[i+1:]
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			b.partial = append(b.partial, data...)
			break
		}
		line := append(b.partial, data[:i+1]...)
		b.partial = nil
		data = data[i+1:]
		if err := b.line(line); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// line judges one whole line (with its newline).
func (b *bannerFilter) line(raw []byte) error {
	text := strings.TrimRight(string(raw), "\r\n")
	trimmed := strings.TrimSpace(text)
	switch b.state {
	case bannerHydra:
		b.hold(raw)
		if hydraFrame.MatchString(trimmed) {
			b.state = bannerNone
			if b.heldMatches(hydraBad) {
				b.drop()
				b.afterBad = true
				return nil
			}
			return b.release()
		}
		if b.heldBytes > maxHeld {
			b.state = bannerNone
			return b.release()
		}
		return nil
	case bannerOMPI:
		b.hold(raw)
		if frameLine.MatchString(trimmed) {
			b.state = bannerNone
			if b.heldMatches(ompiLost) {
				b.drop()
				return nil
			}
			return b.release()
		}
		if b.heldBytes > maxHeld {
			b.state = bannerNone
			return b.release()
		}
		return nil
	}
	if b.afterBad && hydraAfter.MatchString(text) {
		return nil
	}
	b.afterBad = false
	if b.afterMore && ompiAdvice.MatchString(text) {
		b.afterMore = false
		return nil
	}
	b.afterMore = false
	switch {
	case hydraFrame.MatchString(trimmed):
		b.state = bannerHydra
		b.hold(raw)
		return nil
	case frameLine.MatchString(trimmed):
		// the blank line held before is the program's, not the frame's
		if err := b.release(); err != nil {
			return err
		}
		b.state = bannerOMPI
		b.hold(raw)
		return nil
	case ompiLost.MatchString(text):
		return b.release() // unframed: the line alone goes, not what was held
	case ompiMore.MatchString(text):
		b.afterMore = true
		return b.release()
	case ompiHelpLost.MatchString(text):
		return b.release()
	case trimmed == "" && len(b.held) == 0:
		b.hold(raw) // may open Hydra's banner
		return nil
	}
	if err := b.release(); err != nil {
		return err
	}
	_, err := b.w.Write(raw)
	return err
}

func (b *bannerFilter) hold(raw []byte) {
	b.held = append(b.held, raw)
	b.heldBytes += len(raw)
}

func (b *bannerFilter) heldMatches(re *regexp.Regexp) bool {
	for _, l := range b.held {
		if re.MatchString(strings.TrimSpace(string(l))) {
			return true
		}
	}
	return false
}

func (b *bannerFilter) drop() { b.held, b.heldBytes = nil, 0 }

// release writes what is held, unchanged.
func (b *bannerFilter) release() error {
	held := b.held
	b.drop()
	for _, l := range held {
		if _, err := b.w.Write(l); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes what is still held, unchanged: the stream has ended.
func (b *bannerFilter) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state = bannerNone
	err := b.release()
	if len(b.partial) > 0 {
		if _, e := b.w.Write(b.partial); err == nil {
			err = e
		}
		b.partial = nil
	}
	return err
}
