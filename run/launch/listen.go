package launch

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

// Listener accepts the ranks' report connections and reads each into a
// Collector.
type Listener struct {
	ln   net.Listener
	addr string // the value of MPIDBG_REPORT
	dir  string // the private directory of a Unix socket, removed by Close

	mu     sync.Mutex
	conns  map[net.Conn]bool
	ranks  map[int]*rankConn // by the rank its Hello named
	hellos int               // connections that said Hello
	// onError, when set, is called at each error finding, before the
	// Collector has it; set and read under mu (set while serving).
	onError func()
	wg      sync.WaitGroup // one per reader
	accept  sync.WaitGroup // the accept loop
}

// rankConn is a rank's connection, for the commands the launcher sends
// (package wire: Stop); writes are one at a time.
type rankConn struct {
	mu sync.Mutex
	c  net.Conn
}

// sendTimeout bounds one command: a rank that does not read (stopped,
// or its socket buffer full) must not hold the launcher.
const sendTimeout = 2 * time.Second

// maxSocketPath is the longest path a Unix socket address holds on Linux
// (sun_path is 108 bytes with the terminating NUL).
const maxSocketPath = 107

// ListenUnix listens on a Unix socket in a new private directory (mode
// 0700) under the system's temporary directory, or under /tmp when that
// path would be too long for a socket.
func ListenUnix() (*Listener, error) {
	dir, err := os.MkdirTemp("", "mpidbg-")
	if err == nil && len(filepath.Join(dir, "report.sock")) > maxSocketPath {
		os.Remove(dir)
		dir, err = os.MkdirTemp("/tmp", "mpidbg-")
	}
	if err != nil {
		return nil, fmt.Errorf("make a private directory for the report socket: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.Remove(dir)
		return nil, err
	}
	path := filepath.Join(dir, "report.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	return &Listener{ln: ln, addr: "unix:" + path, dir: dir, conns: map[net.Conn]bool{}, ranks: map[int]*rankConn{}}, nil
}

// ListenTCP listens on hostport ("node0:7000", ":0" for any port). The
// ranks are told to connect to the host as given, or to this machine's
// host name when the host is empty or a wildcard address.
func ListenTCP(hostport string) (*Listener, error) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: want HOST:PORT", hostport)
	}
	ln, err := net.Listen("tcp", hostport)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", hostport, err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if host, err = os.Hostname(); err != nil {
			ln.Close()
			return nil, fmt.Errorf("--listen %q: no host given and no host name: %w", hostport, err)
		}
	}
	return &Listener{ln: ln, addr: "tcp:" + net.JoinHostPort(host, port), conns: map[net.Conn]bool{}, ranks: map[int]*rankConn{}}, nil
}

// Report is the address for MPIDBG_REPORT: "unix:/path" or
// "tcp:host:port".
func (l *Listener) Report() string { return l.addr }

// Serve accepts connections in the background, until Drain, and reads
// each one's messages into col.
func (l *Listener) Serve(col *report.Collector) {
	l.accept.Add(1)
	go func() {
		defer l.accept.Done()
		for {
			c, err := l.ln.Accept()
			if err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, net.ErrClosed) {
					return
				}
				col.Notef("accept a report connection: %v", err)
				return
			}
			l.mu.Lock()
			l.conns[c] = true
			l.mu.Unlock()
			l.wg.Add(1)
			go l.read(c, col.Conn())
		}
	}()
}

func (l *Listener) read(c net.Conn, cn *report.Conn) {
	defer l.wg.Done()
	rc := &rankConn{c: c}
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		for n, x := range l.ranks {
			if x == rc {
				delete(l.ranks, n)
			}
		}
		l.mu.Unlock()
		c.Close()
	}()
	r := wire.NewReader(c)
	for {
		m, err := r.Read()
		if errors.Is(err, wire.ErrMalformed) {
			cn.Malformed(err) // a bad line is not the end of the rank
			continue
		}
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				err = errors.New("still open when the job ended")
			} else if errors.Is(err, io.EOF) {
				err = nil
			}
			cn.End(err)
			return
		}
		if m.Kind == wire.KindHello {
			l.mu.Lock()
			l.ranks[m.Hello.Rank] = rc
			l.hellos++
			l.mu.Unlock()
		}
		if m.Kind == wire.KindFinding && m.Finding.Severity == checks.SevError {
			l.mu.Lock()
			onError := l.onError
			l.mu.Unlock()
			if onError != nil {
				onError()
			}
		}
		cn.Handle(m)
	}
}

// Connected counts the connections that said Hello so far.
func (l *Listener) Connected() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hellos
}

// Send writes m to the connection of rank, within sendTimeout.
func (l *Listener) Send(rank int, m wire.Message) error {
	l.mu.Lock()
	rc := l.ranks[rank]
	l.mu.Unlock()
	if rc == nil {
		return fmt.Errorf("rank %d is not connected", rank)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err := rc.c.SetWriteDeadline(time.Now().Add(sendTimeout)); err != nil {
		return fmt.Errorf("rank %d: %w", rank, err)
	}
	if err := wire.NewWriter(rc.c).Write(m); err != nil {
		return fmt.Errorf("rank %d: %w", rank, err)
	}
	return nil
}

// Drain stops accepting once the connections already queued have been
// taken (it waits grace for them), then waits up to timeout for the open
// connections to end, and closes those still open.
func (l *Listener) Drain(grace, timeout time.Duration) {
	type deadliner interface{ SetDeadline(time.Time) error }
	if d, ok := l.ln.(deadliner); ok {
		d.SetDeadline(time.Now().Add(grace))
	} else {
		l.ln.Close()
	}
	l.accept.Wait()
	l.ln.Close()
	done := make(chan struct{})
	go func() { l.wg.Wait(); close(done) }()
	select {
	case <-done:
		return
	case <-time.After(timeout):
	}
	l.mu.Lock()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	<-done
}

// Close stops listening and removes the socket's directory.
func (l *Listener) Close() error {
	err := l.ln.Close()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	if l.dir != "" {
		if e := os.RemoveAll(l.dir); err == nil {
			err = e
		}
	}
	return err
}
