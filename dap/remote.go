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
	token  string
	dir    string // the job's private directory: the Unix sockets gdb connects to
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

// listenRemote listens on addr (HOST or HOST:PORT; port 0 when none) for
// up to want ranks.
func listenRemote(addr, dir string, want int, logf func(string, ...any)) (*remoteRanks, error) {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(strings.Trim(addr, "[]"), "0")
	}
	token, err := wire.NewToken()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen %q: %v", addr, err)
	}
	rr := &remoteRanks{ln: ln, token: token, dir: dir, ranks: make(chan remoteRank, want), logf: logf, want: want, wait: helloTimeout,
		conns: map[net.Conn]bool{}}
	go rr.serve()
	return rr, nil
}

// Addr is the address the ranks are given (MPIDBG_DEBUGGER_ADDR).
func (rr *remoteRanks) Addr() string { return rr.ln.Addr().String() }

// Refused is how many connections were turned away.
func (rr *remoteRanks) Refused() int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.refused
}

func (rr *remoteRanks) serve() {
	for {
		c, err := rr.ln.Accept()
		if err != nil {
			return
		}
		if !rr.track(c) {
			c.Close()
			return
		}
		go rr.admit(c)
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
		c.Close()
		return
	}
	rr.want--
	rr.mu.Unlock()
	c.SetDeadline(time.Time{})
	rr.ranks <- r
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
		return remoteRank{}, errors.New("not the job's token")
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
	// private directory's name has no blanks (os.MkdirTemp under TMPDIR)
	if strings.ContainsAny(path, " \t\n\"") {
		return fmt.Errorf("rank %d on %s: gdb cannot name the socket %q (TMPDIR with blanks)", r.rank, r.host, path)
	}
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
