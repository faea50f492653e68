package dap

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/mpidbg/mpidbg/wire"
)

// Ranks on other hosts (docs/dap.md, "Ranks on other hosts"). gdb cannot
// attach to a process of another machine, so such a rank comes to the
// adapter instead: it connects to the address the launch configuration
// names ("listen"), sends the job's debugger token and "RANK PID HOST",
// and starts gdbserver attached to itself on that connection
// (shim/debugger.c). The adapter gives each such connection to gdb as
// the remote target of the rank's inferior, through a Unix socket in the
// job's private directory: gdb (multi-target, since gdb 10) debugs the
// local ranks natively and the others through their gdbservers, all in
// one session.

// helloTimeout bounds how long a connection may take to say who it is.
const helloTimeout = 10 * time.Second

// maxHello bounds the "RANK PID HOST" line.
const maxHello = 300

// remoteRank is a rank on another host that has connected.
type remoteRank struct {
	rank, pid int
	host      string
	conn      net.Conn // gdbserver's end
}

// remoteRanks is the listener ranks on other hosts connect to.
type remoteRanks struct {
	ln     net.Listener
	addr   string        // what the ranks dial
	token  string        // what a rank sends first
	answer string        // what the adapter answers an admitted rank with
	dir    string        // the job's private directory: the Unix sockets gdb connects to
	slots  chan struct{} // one per connection not admitted yet (maxPending)
	ranks  chan remoteRank
	logf   func(format string, args ...any)
	mu     sync.Mutex
	wait   time.Duration // helloTimeout; shorter in tests
	want   int           // ranks that may still come
	conns  map[net.Conn]bool
	closed bool
	// refused counts the connections turned away: no token or a wrong
	// one, a malformed hello, or one more than the job's ranks.
	refused int
}

// maxPending bounds the connections that have not said who they are:
// beyond it, new ones wait in the kernel's queue (a stranger cannot
// hold every descriptor of the adapter).
const maxPending = 64

// listenRemote listens on a port the system chooses of the host of
// listen (HOST or HOST:PORT: the port is the collector's) for up to want
// ranks.
func listenRemote(listen, dir string, want int, logf func(string, ...any)) (*remoteRanks, error) {
	host := strings.Trim(listen, "[]")
	if h, _, err := net.SplitHostPort(listen); err == nil {
		host = h
	}
	token, err := wire.NewToken()
	if err != nil {
		return nil, err
	}
	answer, err := wire.NewToken()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	if host, err = launch.DialHost(host); err != nil {
		ln.Close()
		return nil, err
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	rr := &remoteRanks{ln: ln, addr: net.JoinHostPort(host, port), token: token, answer: answer, dir: dir,
		ranks: make(chan remoteRank, want), logf: logf, want: want, wait: helloTimeout,
		conns: map[net.Conn]bool{}, slots: make(chan struct{}, maxPending)}
	go rr.serve()
	return rr, nil
}

// Addr is the address the ranks are given (MPIDBG_DEBUGGER_ADDR).
func (rr *remoteRanks) Addr() string { return rr.addr }

// Secret is what the ranks are given in MPIDBG_DEBUGGER_TOKEN: the token
// they send, and the answer that proves to them the adapter is the
// session's before they start a gdbserver for it.
func (rr *remoteRanks) Secret() string { return rr.token + ":" + rr.answer }

// Refused is how many connections were turned away.
func (rr *remoteRanks) Refused() int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.refused
}

func (rr *remoteRanks) serve() {
	for {
		rr.slots <- struct{}{}
		c, err := rr.ln.Accept()
		if err != nil {
			<-rr.slots
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// out of descriptors, say: the ranks still to come must get in
			rr.logf("debugger listener: %v", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if !rr.track(c) {
			c.Close()
			return
		}
		go func() {
			defer func() { <-rr.slots }()
			rr.admit(c)
		}()
	}
}

// track remembers c, to close it with the listener; false once closed.
func (rr *remoteRanks) track(c net.Conn) bool {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	if rr.closed {
		return false
	}
	rr.conns[c] = true
	return true
}

// admit reads c's token and hello and hands the rank on, or closes c.
func (rr *remoteRanks) admit(c net.Conn) {
	r, err := rr.hello(c)
	rr.mu.Lock()
	if err == nil && rr.want == 0 {
		err = errors.New("every rank has come already")
	}
	if err != nil {
		rr.refused++
		delete(rr.conns, c)
		rr.mu.Unlock()
		rr.logf("debugger connection from %v refused: %v", c.RemoteAddr(), err)
		refuse(c, err)
		return
	}
	rr.want--
	rr.mu.Unlock()
	if _, err := io.WriteString(c, rr.answer+"\n"); err != nil {
		rr.logf("debugger connection from %v (rank %d on %s) lost: %v", c.RemoteAddr(), r.rank, r.host, err)
		c.Close()
		return
	}
	c.SetDeadline(time.Time{})
	rr.ranks <- r
}

// refuse tells c why it is refused (a rank says so, and runs without the
// debugger) and closes it. What it sent and nobody read is taken first,
// a little of it for a little while: closed with unread bytes, the
// connection would be reset before the reason reaches the rank.
func refuse(c net.Conn, why error) {
	c.SetDeadline(time.Now().Add(200 * time.Millisecond))
	io.WriteString(c, "refused: "+why.Error()+"\n")
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	io.CopyN(io.Discard, c, maxHello+wire.TokenLen+2)
	c.Close()
}

// hello reads the token line and "RANK PID HOST", byte by byte: what
// follows is gdbserver's.
func (rr *remoteRanks) hello(c net.Conn) (remoteRank, error) {
	rr.mu.Lock()
	wait := rr.wait
	rr.mu.Unlock()
	c.SetDeadline(time.Now().Add(wait))
	line, err := wire.ReadTokenLine(c)
	if err != nil {
		return remoteRank{}, fmt.Errorf("no token: %v", err)
	}
	if line[wire.TokenLen] != '\n' || subtle.ConstantTimeCompare(line[:wire.TokenLen], []byte(rr.token)) != 1 {
		return remoteRank{}, errors.New("not the session's token")
	}
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := io.ReadFull(c, one); err != nil {
			return remoteRank{}, fmt.Errorf("no hello: %v", err)
		}
		if one[0] == '\n' {
			break
		}
		if b = append(b, one[0]); len(b) > maxHello {
			return remoteRank{}, errors.New("hello too long")
		}
	}
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return remoteRank{}, fmt.Errorf("malformed hello %q", b)
	}
	rank, err1 := strconv.Atoi(f[0])
	pid, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || pid <= 0 || rank < -1 {
		return remoteRank{}, fmt.Errorf("malformed hello %q", b)
	}
	return remoteRank{rank: rank, pid: pid, host: f[2], conn: c}, nil
}

// socket gives r's connection a Unix socket in the private directory
// for gdb to connect to ("target remote PATH"), and relays between the
// two until either end closes.
func (rr *remoteRanks) socket(r remoteRank) (string, error) {
	path := filepath.Join(rr.dir, fmt.Sprintf("gdbserver.%d.%d", r.rank, r.pid))
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return "", err
	}
	go func() {
		defer os.Remove(path)
		if ul, ok := ln.(*net.UnixListener); ok {
			ul.SetDeadline(time.Now().Add(miTimeout))
		}
		g, err := ln.Accept()
		ln.Close()
		if err != nil {
			r.conn.Close()
			return
		}
		relay(g, r.conn)
	}()
	return path, nil
}

// relay copies both ways between a and b and closes both when either
// direction ends: gdb gone, or gdbserver (the rank ended).
func relay(a, b net.Conn) {
	var once sync.Once
	end := func() { once.Do(func() { a.Close(); b.Close() }) }
	go func() {
		io.Copy(a, b)
		end()
	}()
	io.Copy(b, a)
	end()
}

// Close stops listening and drops every connection: the ranks'
// gdbservers see their connections end and exit.
func (rr *remoteRanks) Close() {
	rr.mu.Lock()
	rr.closed = true
	conns := rr.conns
	rr.conns = map[net.Conn]bool{}
	rr.mu.Unlock()
	rr.ln.Close()
	for c := range conns {
		c.Close()
	}
}

// maxSocketPath is the longest path a Unix socket can have (sun_path).
const maxSocketPath = 107

// listenRemote readies the session for ranks on other hosts (the launch
// attribute "listen"): gdb in non-stop mode underneath, the listener,
// and what the ranks must be told.
func (ss *session) listenRemote(a *launchArgs, dir string, want int) (*remoteRanks, []launch.Var, error) {
	if len(dir)+len("/gdbserver.-1.4194304") > maxSocketPath {
		return nil, nil, fmt.Errorf("listen: the session's directory %s is too long a path for gdb's sockets (set TMPDIR to a shorter one)", dir)
	}
	if strings.ContainsAny(dir, " \t\n\"") {
		return nil, nil, fmt.Errorf("listen: gdb cannot name a socket in %q (TMPDIR with blanks)", dir)
	}
	// gdb resumes and stops several targets at once (all-stop over local
	// ranks and gdbservers) only with each in non-stop mode underneath;
	// set before any target is connected
	if _, err := ss.mi("-interpreter-exec console %s", quote("maint set target-non-stop on")); err != nil {
		return nil, nil, fmt.Errorf("gdb cannot debug ranks on other hosts (gdb 10 or later is needed): %v", err)
	}
	rr, err := listenRemote(a.Listen, dir, want, ss.srv.logf)
	if err != nil {
		return nil, nil, fmt.Errorf("listen %q: %v", a.Listen, err)
	}
	env := []launch.Var{{Name: envvar.DebuggerAddr, Value: rr.Addr()},
		{Name: envvar.DebuggerToken, Value: rr.Secret(), Secret: true}}
	if a.Gdbserver != "" {
		env = append(env, launch.Var{Name: envvar.Gdbserver, Value: a.Gdbserver})
	}
	return rr, env, nil
}

// attachRemote makes r rank r.rank's inferior, with its gdbserver as the
// inferior's remote target.
func (ss *session) attachRemote(rr *remoteRanks, r remoteRank) error {
	path, err := rr.socket(r)
	if err != nil {
		r.conn.Close()
		return fmt.Errorf("rank %d on %s: %v", r.rank, r.host, err)
	}
	group, err := ss.inferiorFor(r.rank)
	if err != nil {
		r.conn.Close()
		return err
	}
	rk := ss.addRank(r.rank, r.pid, group)
	ss.mu.Lock()
	rk.host = r.host // set once, before gdb reports anything of the rank
	ss.mu.Unlock()
	if _, err := ss.mi("-interpreter-exec console %s", quote("inferior "+strings.TrimPrefix(group, "i"))); err != nil {
		return fmt.Errorf("gdb cannot select rank %d's inferior: %v", r.rank, err)
	}
	// gdb takes the rest of the line as the device, quotes and all: the
	// directory has no blanks (listenRemote)
	if _, err := ss.mi("-target-select extended-remote %s", path); err != nil {
		return fmt.Errorf("gdb cannot reach rank %d's gdbserver on %s: %v", r.rank, r.host, err)
	}
	if _, err := ss.mi("-target-attach --thread-group %s %d", group, r.pid); err != nil {
		return fmt.Errorf("gdb cannot attach to rank %d (pid %d on %s) through its gdbserver: %v", r.rank, r.pid, r.host, err)
	}
	ss.classifyThreads()
	ss.srv.output("console", fmt.Sprintf("mpidbg: rank %d (pid %d) is on %s: debugged through its gdbserver\n", r.rank, r.pid, r.host))
	return nil
}
