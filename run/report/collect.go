package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/wire"
)

// Collector gathers what the ranks of one job send, from any number of
// connections at once. Repeats of one rank's report are merged as they
// arrive, so a finding reported in every iteration of a loop costs one
// entry, not one per report; Build folds the ranks' entries into one
// finding per bug.
type Collector struct {
	// Clock is the time messages arrive at (nil: time.Now); tests set it.
	Clock func() time.Time

	mu       sync.Mutex
	conns    int
	ranks    map[int]*rankState
	findings map[findingKey]*entry
	order    []*entry // arrival order, for stable output
	notes    []string
	said     []rankNote // the ranks' notes (wire.Note), one per text
	statuses []procStatus
	changed  time.Time // when the last message came or a connection ended
	ended    string    // why the launcher ended the job, "" if it did not
	endedAt  time.Time
	sets     map[uint64][]wire.Ranks // interned sets of ranks, by hash (blocked.go)
	count    [3]int                  // ranks by class (blocked.go)
	size     int                     // the job's size, as the first Hello says
	outs     outcomes                // the ranks' last words (outcome.go)
}

type rankState struct {
	hello    wire.Hello
	bye      bool
	closed   bool   // the connection ended
	lost     string // why the connection ended without Bye, if not EOF
	closedAt time.Time
	findings int
	blocked  *wire.Blocked // the call the rank is blocked in, nil when running
	since    time.Time     // when it began, on the launcher's clock
	errSites errorSites    // where the rank reported errors (stuck.go)
	// confirmed: the rank's last answer to the deadlock detector's
	// question (wire.Confirm), nil before the first
	confirmed *wire.Confirmed
}

// entry is one finding as one rank reported it, however often: the
// finding as first reported, the rank it is about, the ranks that
// reported it and how often. Entries are folded into the report's
// findings by Build (fold.go); here only repeats of the very same report
// merge, so that a finding reported in every iteration of a loop costs
// one entry, and one per rank, not one per report.
type entry struct {
	f     checks.Finding
	own   int // the rank whose finding it is (fold.go's "own"), -1 for the job's
	ranks map[int]bool
	count int
}

// findingKey identifies a report before its site is resolved: the same
// finding from the same rank at the same place with the same text.
type findingKey struct {
	id, call, message, path string
	site                    checks.Site
	loc                     checks.Location
	own                     int
}

type procStatus struct {
	pid    int // 0: by rank
	rank   int // -1: by pid
	host   string
	status string
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{ranks: map[int]*rankState{}, findings: map[findingKey]*entry{}}
}

// Conn is one rank's connection: feed it every message read, then End.
type Conn struct {
	c    *Collector
	rank int // -1 until Hello
	n    int // findings received
	bad  int // lines that were not messages
}

// Conn registers a new connection.
func (c *Collector) Conn() *Conn {
	c.mu.Lock()
	c.conns++
	c.mu.Unlock()
	return &Conn{c: c, rank: -1}
}

// Handle records one message.
func (cn *Conn) Handle(m wire.Message) {
	c := cn.c
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if m.Kind != wire.KindBlocked && m.Kind != wire.KindConfirmed {
		c.changed = now // an answer to the detector changes no rank's state
	}
	switch m.Kind {
	case wire.KindHello:
		h := *m.Hello
		if h.Version != wire.Version {
			c.notef("rank %d speaks protocol version %d, this mpidbg version %d", h.Rank, h.Version, wire.Version)
		}
		if old, dup := c.ranks[h.Rank]; dup && !old.closed {
			c.notef("rank %d connected twice (pids %d and %d)", h.Rank, old.hello.PID, h.PID)
		}
		cn.rank = h.Rank
		if old := c.ranks[h.Rank]; old != nil {
			c.count[old.class()]--
		}
		c.ranks[h.Rank] = &rankState{hello: h}
		c.count[running]++
		if c.size == 0 {
			c.size = h.Size
		}
	case wire.KindFinding:
		cn.n++
		f := *m.Finding
		if r := c.ranks[cn.rank]; r != nil && cn.rank >= 0 {
			f.Site = programSite(f.Site, r.hello.Exe)
			f.Related = append([]checks.Related(nil), f.Related...)
			for i := range f.Related {
				f.Related[i].Site = programSite(f.Related[i].Site, r.hello.Exe)
			}
		}
		c.add(f, cn.rank)
		if r := c.ranks[cn.rank]; r != nil {
			r.findings++
			r.errSites = r.errSites.add(f)
		}
	case wire.KindBye:
		if r := c.ranks[cn.rank]; r != nil {
			defer c.reclass(r)()
			r.bye = true
			if m.Bye.Findings != r.findings {
				c.notef("rank %d says it sent %d findings, %d arrived", cn.rank, m.Bye.Findings, r.findings)
			}
			r.blocked = nil
		}
	case wire.KindBlocked, wire.KindUnblocked:
		cn.blockedState(m, now)
	case wire.KindConfirmed:
		cn.confirmed(*m.Confirmed)
	case wire.KindCrash, wire.KindAbort, wire.KindExit, wire.KindFatal:
		cn.outcome(m)
	case wire.KindNote:
		c.rankNote(m.Note.Text, cn.rank)
	}
}

// rankNote is a text some ranks sent as a wire.Note, and which.
type rankNote struct {
	text  string
	ranks []int
}

// maxRankNotes bounds the distinct texts kept: a rank that repeats
// itself with varying text must not grow the report without end.
const maxRankNotes = 16

func (c *Collector) rankNote(text string, rank int) {
	for i := range c.said {
		if c.said[i].text == text {
			if rank >= 0 && !slices.Contains(c.said[i].ranks, rank) {
				c.said[i].ranks = append(c.said[i].ranks, rank)
			}
			return
		}
	}
	if len(c.said) == maxRankNotes {
		return
	}
	n := rankNote{text: text}
	if rank >= 0 {
		n.ranks = []int{rank}
	}
	c.said = append(c.said, n)
}

// saidNotes is the ranks' notes as report lines: "ranks 0-3: text".
func (c *Collector) saidNotes() []string {
	var out []string
	for _, n := range c.said {
		if len(n.ranks) == 0 {
			out = append(out, n.text)
		} else {
			out = append(out, ranklist.Phrase(n.ranks)+": "+n.text)
		}
	}
	return out
}

// End records the end of the connection; err is nil at the end of the
// stream, else what broke it (a malformed message, a read error).
func (cn *Conn) End(err error) {
	c := cn.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changed = c.now()
	r := c.ranks[cn.rank]
	if r != nil {
		r.closedAt = c.changed
	}
	if r == nil {
		if err != nil {
			c.notef("a connection ended before it said which rank it is: %v", err)
		} else if cn.n > 0 {
			c.notef("a connection sent %d findings without saying which rank it is", cn.n)
		}
		return
	}
	defer c.reclass(r)()
	r.closed = true
	if err != nil && !r.bye {
		r.lost = err.Error()
	} else if err != nil {
		c.notef("rank %d: %v", cn.rank, err)
	}
}

// maxMalformedNotes bounds the notes about one connection's bad lines.
const maxMalformedNotes = 3

// Malformed records a line the connection sent that is not a message;
// the connection goes on.
func (cn *Conn) Malformed(err error) {
	c := cn.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if cn.bad++; cn.bad > maxMalformedNotes {
		return
	}
	who := "a connection that has not said which rank it is"
	if cn.rank >= 0 {
		who = "rank " + strconv.Itoa(cn.rank)
	}
	c.notef("%s sent a line that is not a message, ignored: %v", who, err)
}

// ProcessStatus records how the launcher says a process ended: status is
// "signal 11", "exit code 3" and the like. It is matched to a rank by
// pid (and host, when the launcher names one).
func (c *Collector) ProcessStatus(pid int, host, status string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statuses = append(c.statuses, procStatus{pid, -1, host, status})
}

// RankStatus is ProcessStatus for a launcher that names the rank (in
// MPI_COMM_WORLD) rather than the process: matched to that rank, which
// names one process of the job wherever it runs (the launcher's name
// for a node may not be the one the rank's gethostname gives).
func (c *Collector) RankStatus(rank int, host, status string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.statuses = append(c.statuses, procStatus{0, rank, host, status})
}

// statusesOf gives, in order, what the launcher said of rank's process
// (under c.mu).
func (c *Collector) statusesOf(rank int, st *rankState, each func(procStatus)) {
	for _, s := range c.statuses {
		hostOK := s.host == "" || st.hello.Host == "" || hostMatch(s.host, st.hello.Host)
		if s.rank < 0 && hostOK && s.pid == st.hello.PID || s.rank >= 0 && s.rank == rank {
			each(s)
		}
	}
}

// EndedJob records that the launcher ended the job, and why ("deadlock"):
// a rank whose connection ends from now on without Bye, and of which
// mpiexec says nothing or a SIGTERM or SIGKILL, died of that rather than
// of itself. The first call counts.
func (c *Collector) EndedJob(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended == "" {
		c.ended, c.endedAt = why, c.now()
	}
}

// Notef adds a line about the run itself to the report.
func (c *Collector) Notef(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.notef(format, args...)
}

func (c *Collector) notef(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// add merges f, reported by rank (or -1 if the connection has not said).
// The finding is about the one rank it names in Ranks (the sender of a
// lost message, reported by its destination), else about the reporter.
func (c *Collector) add(f checks.Finding, rank int) {
	if rank < 0 && len(f.Ranks) > 0 {
		rank = f.Ranks[0]
	}
	own := rank
	if len(f.Ranks) == 1 {
		own = f.Ranks[0]
	}
	c.merge(f, rank, own)
}

// AddJobFinding adds a finding about the job as a whole, which the
// launcher made (a deadlock): no rank reported it, so its message names
// ranks as they are.
func (c *Collector) AddJobFinding(f checks.Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.merge(f, -1, -1)
}

// merge adds f to the entry of the same report.
func (c *Collector) merge(f checks.Finding, rank, own int) {
	k := findingKey{id: f.ID, call: f.Call, message: f.Message, path: f.Path, loc: f.Location, own: own}
	if f.Location == (checks.Location{}) {
		k.site = f.Site
	}
	e := c.findings[k]
	if e == nil {
		e = &entry{f: f, own: own, ranks: map[int]bool{}}
		c.findings[k] = e
		c.order = append(c.order, e)
	}
	e.count++
	if rank >= 0 {
		e.ranks[rank] = true
	}
	for _, r := range f.Ranks {
		e.ranks[r] = true
	}
}

// programSite names the program by the absolute path its Hello gave when
// a site names it as /proc/self/exe (meaningless outside the rank) or by a
// relative path (argv[0], as dladdr gives it for the main program).
func programSite(s checks.Site, exe string) checks.Site {
	if exe == "" || !filepath.IsAbs(exe) || s.Module == "" {
		return s
	}
	if s.Module == "/proc/self/exe" || !filepath.IsAbs(s.Module) && filepath.Base(s.Module) == filepath.Base(exe) {
		s.Module = exe
	}
	return s
}
