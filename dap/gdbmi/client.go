package gdbmi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client drives one gdb through its machine interface: commands go out
// with a token, and the result record with that token answers them;
// every other record (stops, thread and library events, console text)
// goes to the handler given to Start, in the order gdb wrote them, on the
// reading goroutine.
type Client struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	mu    sync.Mutex // guards next, waits, closed, err; serialises writes
	next  uint64
	waits map[string]chan Record
	done  chan struct{} // closed when gdb's output ended
	err   error         // why it ended

	closeOnce sync.Once
	closeErr  error

	stderrDone chan struct{} // closed when gdb's standard error ended
	why        string        // the line of it that says why gdb died, when it did
	fatal      bool          // why is gdb's internal error or its Python's fatal error, not just the last line
	tail       []string      // its last lines
}

// maxTail is how many of gdb's last lines of standard error StderrTail keeps.
const maxTail = 40

// Done is closed when gdb's output has ended: gdb exited.
func (c *Client) Done() <-chan struct{} { return c.done }

// StderrTail is what gdb last wrote on its standard error, for a log.
func (c *Client) StderrTail() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}

// Start runs gdb (argv[0], or "gdb") with --interpreter=mi3 and the
// other arguments, and delivers out-of-band records to handle.
func Start(argv []string, handle func(Record)) (*Client, error) {
	gdb := "gdb"
	var args []string
	if len(argv) > 0 {
		gdb, args = argv[0], argv[1:]
	}
	cmd := exec.Command(gdb, append([]string{"--interpreter=mi3", "-q"}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gdb/mi: cannot start %s: %w", gdb, err)
	}
	c := &Client{cmd: cmd, in: in, waits: map[string]chan Record{}, done: make(chan struct{}), stderrDone: make(chan struct{})}
	go c.readStderr(errOut)
	go c.read(out, handle)
	return c, nil
}

// readStderr keeps the line of gdb's standard error that says why it is
// about to die (under MI, it says so there): gdb's internal error, or a
// fatal error of its Python, whose dump ends with other lines; else the
// last line.
func (c *Client) readStderr(r io.Reader) {
	defer close(c.stderrDone)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		c.mu.Lock()
		if c.tail = append(c.tail, line); len(c.tail) > maxTail {
			c.tail = c.tail[1:]
		}
		switch {
		case !c.fatal && (strings.Contains(line, "internal-error") || strings.HasPrefix(line, "Fatal Python error")):
			c.why, c.fatal = line, true
		case !c.fatal:
			c.why = line
		}
		c.mu.Unlock()
	}
	io.Copy(io.Discard, r) // a line too long for the scanner: gdb must not block on a full pipe
}

// read parses gdb's output until it ends. A line that is not MI (the
// program's own output on a shared terminal) goes to handle as a target
// stream record.
func (c *Client) read(out io.Reader, handle func(Record)) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		r, err := Parse(sc.Text())
		if err != nil {
			r = Record{Kind: TargetStream, Text: sc.Text() + "\n"}
		}
		if r.Kind == LogStream && strings.Contains(r.Text, "internal-error") {
			// gdb says why it dies on its log stream, its Python after it
			// on standard error
			c.mu.Lock()
			c.why, c.fatal = strings.TrimSpace(strings.SplitN(r.Text, "\n", 2)[0]), true
			c.mu.Unlock()
		}
		if r.Kind == ResultRecord && r.Token != "" {
			c.mu.Lock()
			w := c.waits[r.Token]
			delete(c.waits, r.Token)
			c.mu.Unlock()
			if w != nil {
				w <- r
				continue
			}
		}
		if handle != nil {
			handle(r)
		}
	}
	select {
	case <-c.stderrDone:
	case <-time.After(time.Second): // a process gdb started holds it open
	}
	c.mu.Lock()
	c.err = sc.Err()
	if c.err == nil && c.fatal {
		c.err = fmt.Errorf("gdb/mi: gdb exited: %s", c.why)
	} else if c.err == nil && c.why != "" {
		c.err = fmt.Errorf("gdb/mi: gdb exited; the last it said: %s", c.why)
	} else if c.err == nil {
		c.err = errors.New("gdb/mi: gdb exited")
	}
	for t, w := range c.waits {
		close(w)
		delete(c.waits, t)
	}
	close(c.done) // under mu: Send registers no wait after this
	c.mu.Unlock()
}

// ErrorRecord is gdb's ^error answer to a command.
type ErrorRecord struct {
	Command string
	Msg     string
}

func (e *ErrorRecord) Error() string { return fmt.Sprintf("gdb: %s: %s", e.Command, e.Msg) }

// Send writes one MI command (without a token: Send adds it) and waits
// for its result record. ^error becomes an *ErrorRecord; ^done, ^running,
// ^connected and ^exit are returned as they are.
func (c *Client) Send(ctx context.Context, command string) (Record, error) {
	if strings.ContainsAny(command, "\n\r") {
		return Record{}, fmt.Errorf("gdb/mi: a command is one line: %q", command)
	}
	w := make(chan Record, 1)
	c.mu.Lock()
	select {
	case <-c.done:
		c.mu.Unlock()
		return Record{}, c.err
	default:
	}
	c.next++
	token := strconv.FormatUint(c.next, 10)
	c.waits[token] = w
	_, err := io.WriteString(c.in, token+command+"\n")
	c.mu.Unlock()
	if err != nil {
		c.forget(token)
		return Record{}, fmt.Errorf("gdb/mi: writing %q: %w", command, err)
	}
	select {
	case r, ok := <-w:
		if !ok {
			return Record{}, c.err
		}
		if r.Class == "error" {
			return r, &ErrorRecord{Command: command, Msg: r.Results.String("msg")}
		}
		return r, nil
	case <-ctx.Done():
		c.forget(token)
		return Record{}, ctx.Err()
	}
}

func (c *Client) forget(token string) {
	c.mu.Lock()
	delete(c.waits, token)
	c.mu.Unlock()
}

// Close asks gdb to exit, closes its input and waits for it; a gdb that
// does not exit within ctx is killed. Later calls return the first one's
// result.
func (c *Client) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		_, _ = c.Send(ctx, "-gdb-exit")
		c.in.Close()
		select {
		case <-c.done:
		case <-ctx.Done():
			c.cmd.Process.Kill()
			<-c.done
		}
		c.closeErr = c.cmd.Wait()
	})
	return c.closeErr
}
