package launch

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

// Listener accepts the ranks' report connections and reads each into a
// Collector.
//
// A connection is read only once its first line is the job's token
// (package wire, token.go), and only as many as the job has ranks:
// anyone who can reach a TCP port can connect to it, and must neither
// put findings into the report nor take a rank's place. A connection
// without the token is closed after at most tokenTimeout, unread; so
// is one with the token once every rank has connected (a rank connects
// once, at MPI_Init, and never again). Both are counted (Refused).
type Listener struct {
	ln    net.Listener
	addr  string // the value of MPIDBG_REPORT
	dir   string // the private directory of a Unix socket, removed by Close
	token string // the job's (wire.NewToken)

	mu    sync.Mutex
	conns map[net.Conn]bool
	// pending are the connections whose token has not been read yet;
	// each holds one of slots.
	pending map[net.Conn]bool
	slots   chan struct{}
	// drainBy, once Drain has begun, is when a token must have come.
	drainBy time.Time
	// want is the number of ranks (0: no limit), admitted the
	// connections whose token was right so far.
	want, admitted int
	refused        report.Refused
	tokenWait      time.Duration     // tokenTimeout; shorter in tests
	ranks          map[int]*rankConn // by the rank its Hello named
	hellos         int               // connections that said Hello
	// onError, when set, is called at each error finding, before the
	// Collector has it; set and read under mu (set while serving).
	onError func(checks.Finding)
	wg      sync.WaitGroup // one per reader
	accept  sync.WaitGroup // the accept loop
}

// tokenTimeout bounds the wait for a connection's token: a rank sends it
// as soon as it has connected, a stranger that says nothing must not
// hold a connection for longer.
const tokenTimeout = 5 * time.Second

// maxPending bounds the connections waiting to show their token: beyond
// it, a flood of strangers would take the file descriptors the ranks
// need. Connections beyond it wait in the kernel's queue, not accepted
// yet (a rank's connect and its writes have succeeded all the same),
// until one is done: a rank is never refused for a stranger's sake,
// only delayed, by tokenTimeout at most.
const maxPending = 256

// refuseTimeout bounds the write of Refused to a connection turned away.
const refuseTimeout = 200 * time.Millisecond

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
	l, err := newListener(ln, "unix:"+path)
	if err != nil {
		ln.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	l.dir = dir
	return l, nil
}

func newListener(ln net.Listener, addr string) (*Listener, error) {
	token, err := wire.NewToken()
	if err != nil {
		return nil, err
	}
	return &Listener{ln: ln, addr: addr, token: token, conns: map[net.Conn]bool{}, pending: map[net.Conn]bool{}, slots: make(chan struct{}, maxPending),
		ranks: map[int]*rankConn{}, tokenWait: tokenTimeout}, nil
}

// CheckPort accepts a TCP port as a decimal number from 0 (any free
// port) to 65535, without a sign or leading zeros. A service name is
// refused: net.Listen would look it up, and a typo would read as a
// resolver error.
func CheckPort(port string) error {
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || port != strconv.FormatUint(n, 10) {
		return errors.New("the port must be a number from 0 to 65535 (0: any free port)")
	}
	return nil
}

// ListenTCP listens on hostport ("node0:7000", ":0" for any port). The
// ranks are told to connect to the host as given, or to this machine's
// host name when the host is empty or a wildcard address.
func ListenTCP(hostport string) (*Listener, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: want HOST:PORT", hostport)
	}
	if err := CheckPort(port); err != nil {
		return nil, fmt.Errorf("--listen %q: %w", hostport, err)
	}
	ln, err := net.Listen("tcp", hostport)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", hostport, err)
	}
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	if host, err = DialHost(host); err != nil {
		ln.Close()
		return nil, fmt.Errorf("--listen %q: %w", hostport, err)
	}
	l, err := newListener(ln, "tcp:"+net.JoinHostPort(host, port))
	if err != nil {
		ln.Close()
		return nil, err
	}
	return l, nil
}

// DialHost is the host ranks on other machines are told to connect to
// for a listener on host: host itself, or this machine's host name when
// host is empty or a wildcard address (which, dialled, reaches the
// dialler's own machine).
func DialHost(host string) (string, error) {
	if ip := net.ParseIP(host); host != "" && (ip == nil || !ip.IsUnspecified()) {
		return host, nil
	}
	name, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("no host given and no host name: %w", err)
	}
	return name, nil
}

// Report is the address for MPIDBG_REPORT: "unix:/path" or
// "tcp:host:port".
func (l *Listener) Report() string { return l.addr }

// Token is the job's token, for MPIDBG_TOKEN: the ranks' environment
// only (Var.Secret).
func (l *Listener) Token() string { return l.token }

// Expect sets how many ranks the job has: connections with the token
// beyond that many are refused. Before Serve; 0 (the default) sets no
// limit.
func (l *Listener) Expect(ranks int) { l.want = ranks }

// Refused counts the connections turned away so far: NoToken those
// without the job's token (none, a wrong one, or not within
// tokenTimeout), Surplus those with it after every rank had connected.
func (l *Listener) Refused() report.Refused {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refused
}

// Serve accepts connections in the background, until Drain, and reads
// each one's messages into col.
func (l *Listener) Serve(col *report.Collector) {
	l.accept.Add(1)
	go func() {
		defer l.accept.Done()
		for {
			l.slots <- struct{}{} // freed by admit
			c, err := l.ln.Accept()
			if err != nil {
				<-l.slots
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, net.ErrClosed) {
					return
				}
				col.Notef("accept a report connection: %v", err)
				return
			}
			l.mu.Lock()
			by := time.Now().Add(l.tokenWait)
			if !l.drainBy.IsZero() && l.drainBy.Before(by) {
				by = l.drainBy
			}
			c.SetReadDeadline(by)
			l.pending[c] = true
			l.conns[c] = true
			l.mu.Unlock()
			l.wg.Add(1)
			go l.read(c, col)
		}
	}()
}

// admit reads c's token and says why c is refused, or "" when it is a
// rank's.
func (l *Listener) admit(c net.Conn) (why string) {
	line, err := wire.ReadTokenLine(c)
	<-l.slots
	valid := err == nil && line[wire.TokenLen] == '\n' &&
		subtle.ConstantTimeCompare(line[:wire.TokenLen], []byte(l.token)) == 1
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, c)
	switch {
	case !valid:
		l.refused.NoToken++
		return "no valid job token"
	case l.want > 0 && l.admitted >= l.want:
		l.refused.Surplus++
		return "all " + strconv.Itoa(l.want) + " ranks of the job are connected"
	}
	l.admitted++
	return ""
}

func (l *Listener) read(c net.Conn, col *report.Collector) {
	defer l.wg.Done()
	rc := &rankConn{c: c}
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		delete(l.pending, c)
		for n, x := range l.ranks {
			if x == rc {
				delete(l.ranks, n)
			}
		}
		l.mu.Unlock()
		c.Close()
	}()
	if why := l.admit(c); why != "" {
		// Said once, unread: a rank turned away then knows it was, and
		// does not take the closed connection for mpidbg's end.
		c.SetWriteDeadline(time.Now().Add(refuseTimeout))
		wire.NewWriter(c).Write(wire.Message{Kind: wire.KindRefused, Refused: &wire.Refused{Why: why}})
		return
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		return
	}
	cn := col.Conn()
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
				onError(*m.Finding)
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
// taken (it waits grace for them, unless every rank has connected and
// none waits for its token), then waits up to timeout for the open
// connections to end, and closes those still open.
func (l *Listener) Drain(grace, timeout time.Duration) {
	// A connection that has not shown its token within grace is a
	// stranger's: the job is over, a rank's token would be there already.
	// (Shortened first, so that an accept loop waiting for a free slot
	// gets one.)
	by := time.Now().Add(grace)
	l.mu.Lock()
	// Every rank is in and no connection waits to show its token: any
	// connection still to come is a stranger's or one too many, refused
	// either way, so the job's end does not wait grace for it (a fixed
	// cost of every job, docs/DESIGN-SCALE.md).
	if l.want > 0 && l.admitted >= l.want && len(l.pending) == 0 {
		by = time.Now()
	}
	l.drainBy = by
	for c := range l.pending {
		c.SetReadDeadline(by)
	}
	l.mu.Unlock()
	type deadliner interface{ SetDeadline(time.Time) error }
	if d, ok := l.ln.(deadliner); ok {
		d.SetDeadline(by)
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
