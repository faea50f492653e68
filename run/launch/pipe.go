package launch

import (
	"io"
	"sync"
)

// lossyWriter passes the program's output to w until w fails (a reader
// such as head that closed its end: EPIPE), then drops the rest. mpiexec
// keeps writing into mpidbg's pipe meanwhile, so the job runs to its end
// as it would have, and no SIGPIPE reaches mpiexec or the ranks; the
// report, on standard error, is not lost with standard output.
type lossyWriter struct {
	mu   sync.Mutex
	w    io.Writer
	lost error // the first failure
}

func (l *lossyWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		if _, err := l.w.Write(p); err != nil {
			l.lost = err
		}
	}
	return len(p), nil
}

// Lost is the error that made the writer drop output, or nil.
func (l *lossyWriter) Lost() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}
