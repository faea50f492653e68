package launch

import (
	"bytes"
	"regexp"
	"strconv"
	"sync"
)

// statusScanner reads what mpiexec writes, as it passes through to the
// user unchanged, for Hydra's account of processes that ended badly (on
// standard output, for MPICH 4.0.2):
//
//	=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
//	=   PID 31032 RUNNING AT vm
//	=   EXIT CODE: 11
//	...
//	YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)
//
// Hydra prints EXIT CODE with the signal number for a signal, so the exit
// string (or an older Hydra's "KILLED BY SIGNAL: N") decides which it is.
// Hydra says nothing about a rank that exits with a non-zero code.
//
// Open MPI says, on standard error, of a rank killed by a signal (the
// shim reports the signals a program can catch itself; this is how a
// SIGKILL from outside is named):
//
//	mpiexec noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).
//
// Open MPI 4.1 writes PID 0 there, so such a line is reported by rank
// (reportRank) unless it gives a PID.
type statusScanner struct {
	mu         sync.Mutex
	partial    []byte // an unfinished line
	pending    []proc // PID blocks seen, waiting for the exit string
	report     func(pid int, host, status string)
	reportRank func(rank int, host, status string)
}

type proc struct {
	pid       int
	host      string
	code, sig int // -1 when not said
}

var (
	pidLine    = regexp.MustCompile(`^=\s+PID (\d+) RUNNING AT (\S+)`)
	codeLine   = regexp.MustCompile(`^=\s+EXIT CODE: (-?\d+)`)
	killedLine = regexp.MustCompile(`^=\s+KILLED BY SIGNAL: (\d+)`)
	exitString = regexp.MustCompile(`EXIT STRING: .*\(signal (\d+)\)`)
	exitSignal = regexp.MustCompile(`^YOUR APPLICATION TERMINATED WITH THE EXIT STRING:`)
	ompiSignal = regexp.MustCompile(`^\S+ noticed that process rank (\d+) with PID (\d+) on node (\S+) exited on signal (\d+)`)
)

// maxLine bounds the scanner's memory on output without newlines.
const maxLine = 4096

// Write scans p; it never fails, so that it can sit in an io.MultiWriter
// beside the real standard error.
func (s *statusScanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data := p
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if len(s.partial)+len(data) <= maxLine {
				s.partial = append(s.partial, data...)
			}
			break
		}
		line := data[:i]
		if len(s.partial) > 0 {
			line = append(s.partial, line...)
			s.partial = s.partial[:0]
		}
		s.line(string(bytes.TrimRight(line, "\r")))
		data = data[i+1:]
	}
	return len(p), nil
}

func (s *statusScanner) line(l string) {
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	last := func() *proc {
		if len(s.pending) == 0 {
			return nil
		}
		return &s.pending[len(s.pending)-1]
	}
	switch {
	case ompiSignal.MatchString(l):
		m := ompiSignal.FindStringSubmatch(l)
		status := "signal " + m[4]
		switch pid := atoi(m[2]); {
		case pid > 0:
			s.report(pid, m[3], status)
		case s.reportRank != nil:
			s.reportRank(atoi(m[1]), m[3], status)
		}
	case pidLine.MatchString(l):
		m := pidLine.FindStringSubmatch(l)
		s.pending = append(s.pending, proc{pid: atoi(m[1]), host: m[2], code: -1, sig: -1})
	case codeLine.MatchString(l):
		if p := last(); p != nil {
			p.code = atoi(codeLine.FindStringSubmatch(l)[1])
		}
	case killedLine.MatchString(l):
		if p := last(); p != nil {
			p.sig = atoi(killedLine.FindStringSubmatch(l)[1])
		}
	case exitSignal.MatchString(l):
		sig := -1
		if m := exitString.FindStringSubmatch(l); m != nil {
			sig = atoi(m[1])
		}
		for _, p := range s.pending {
			if p.sig < 0 && sig >= 0 && p.code == sig {
				p.sig = sig
			}
			s.emit(p)
		}
		s.pending = nil
	}
}

func (s *statusScanner) emit(p proc) {
	switch {
	case p.sig >= 0:
		s.report(p.pid, p.host, "signal "+strconv.Itoa(p.sig))
	case p.code >= 0:
		s.report(p.pid, p.host, "exit code "+strconv.Itoa(p.code))
	}
}

// flush reports blocks that no exit string closed (mpiexec was cut off).
func (s *statusScanner) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pending {
		s.emit(p)
	}
	s.pending = nil
}
