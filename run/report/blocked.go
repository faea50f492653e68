package report

import (
	"slices"
	"time"

	"github.com/mpidbg/mpidbg/wire"
)

// What the deadlock detector needs from the Collector: which rank is
// blocked in which call since when, which ended, and when anything last
// changed.

// RankState is what the launcher knows of one rank at one moment.
type RankState struct {
	Hello  wire.Hello
	Bye    bool // reached MPI_Finalize
	Closed bool // the connection ended (without Bye: the rank died)
	// Blocked is the call the rank has been blocked in since Since (on the
	// launcher's clock), nil while it runs.
	Blocked *wire.Blocked
	Since   time.Time
	// ErrorSites are the calls at which the rank reported an error
	// finding (stuck.go); shared, never changed.
	ErrorSites errorSites
}

// JobState is what the ranks have said so far.
type JobState struct {
	Ranks   map[int]RankState // by rank, those that said Hello
	Changed time.Time         // when the last message came or a connection ended
}

// PIDs is the process ids the ranks on host gave in their Hello, of
// those still connected.
func (st JobState) PIDs(host string) map[int]bool {
	pids := make(map[int]bool, len(st.Ranks))
	for _, r := range st.Ranks {
		if r.Hello.PID > 0 && !r.Closed && hostMatch(r.Hello.Host, host) {
			pids[r.Hello.PID] = true
		}
	}
	return pids
}

// Summary is what the deadlock detector looks at first, often: cheap to
// make whatever the job's size.
type Summary struct {
	Size    int // the job's size, as the ranks say; 0 before the first Hello
	Ranks   int // ranks that said Hello
	Blocked int // of those, blocked now
	Ended   int // finished or died
	Changed time.Time
}

// Stopped tells whether every rank of a job of size ranks has connected,
// and every one that has not ended is blocked (at least one is). The
// job's size is what the ranks say, else size.
func (s Summary) Stopped(size int) bool {
	if s.Size > 0 {
		size = s.Size
	}
	return s.Ranks >= size && s.Blocked > 0 && s.Blocked+s.Ended == s.Ranks
}

// Summary counts the ranks by what they do.
func (c *Collector) Summary() Summary {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Summary{Size: c.size, Ranks: len(c.ranks), Blocked: c.count[blocked], Ended: c.count[ended], Changed: c.changed}
}

// Ranks are counted by class as they change, so that Summary needs no
// walk over them.
const (
	running = iota
	blocked
	ended
)

func (r *rankState) class() int {
	switch {
	case r.bye || r.closed:
		return ended
	case r.blocked != nil:
		return blocked
	}
	return running
}

// reclass takes r out of its class now and, when the function it returns
// is called, puts it in the class it has then; under c.mu.
func (c *Collector) reclass(r *rankState) func() {
	c.count[r.class()]--
	return func() { c.count[r.class()]++ }
}

// State returns a copy of what the ranks have said so far.
func (c *Collector) State() JobState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := JobState{Ranks: make(map[int]RankState, len(c.ranks)), Changed: c.changed}
	for n, r := range c.ranks {
		st.Ranks[n] = RankState{Hello: r.hello, Bye: r.bye, Closed: r.closed, Blocked: r.blocked, Since: r.since, ErrorSites: r.errSites}
	}
	return st
}

func (c *Collector) now() time.Time {
	if c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

// maxForMS bounds the age a Blocked message claims (an hour), so that a
// bad value cannot overflow a time.Duration.
const maxForMS = 3600 * 1000

// blockedState records Blocked and Unblocked, which arrived at now;
// under c.mu. The rank is the connection's (a message naming another rank
// is noted and ignored); the Blocked record is kept as sent and never
// changed, so State can share it. A rank that blocks changed the job's
// state when its call began, ForMS before the message came: that is the
// time Changed takes, so that the deadlock timeout counts from when the
// job stopped, not from when the ranks noticed.
func (cn *Conn) blockedState(m wire.Message, now time.Time) {
	c := cn.c
	r := c.ranks[cn.rank]
	if r == nil {
		c.notef("a connection sent %s before it said which rank it is", m.Kind)
		return
	}
	defer c.reclass(r)()
	switch {
	case m.Blocked != nil:
		if m.Blocked.Rank != cn.rank {
			c.notef("rank %d sent a blocked message for rank %d, ignored", cn.rank, m.Blocked.Rank)
			return
		}
		b := *m.Blocked
		b.Waits = slices.Clone(b.Waits)
		for i := range b.Waits {
			b.Waits[i].Ranks = c.intern(b.Waits[i].Ranks)
		}
		r.blocked = &b
		r.since = now.Add(-time.Duration(min(max(b.ForMS, 0), maxForMS)) * time.Millisecond)
		if r.since.After(c.changed) {
			c.changed = r.since
		}
	case m.Unblocked != nil:
		// Whatever call returned, the rank moved: it runs until it says
		// otherwise.
		r.blocked = nil
	}
}

// confirmed records a rank's answer to the detector's question; under
// c.mu. An answer naming another rank is noted and ignored.
func (cn *Conn) confirmed(a wire.Confirmed) {
	c := cn.c
	r := c.ranks[cn.rank]
	switch {
	case r == nil:
		c.notef("a connection sent %s before it said which rank it is", wire.KindConfirmed)
	case a.Rank != cn.rank:
		c.notef("rank %d sent a confirmed message for rank %d, ignored", cn.rank, a.Rank)
	case r.confirmed == nil || a.Probe >= r.confirmed.Probe:
		// the answer to an earlier question may come after a later one's
		r.confirmed = &a
	}
}

// Confirmed is rank's last answer to the detector's question
// (wire.Confirm), if it gave one.
func (c *Collector) Confirmed(rank int) (wire.Confirmed, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.ranks[rank]; r != nil && r.confirmed != nil {
		return *r.confirmed, true
	}
	return wire.Confirmed{}, false
}

// intern returns the one copy the Collector keeps of a set of ranks:
// 100,000 ranks blocked in a receive from MPI_ANY_SOURCE on
// MPI_COMM_WORLD hold one list of 100,000 ranks, not one each (and
// package deadlock takes a shared slice for one group). Under c.mu.
func (c *Collector) intern(rs wire.Ranks) wire.Ranks {
	if len(rs) < 2 {
		return rs
	}
	h := uint64(14695981039346656037)
	for _, r := range rs {
		h = (h ^ uint64(r)) * 1099511628211
	}
	if c.sets == nil {
		c.sets = map[uint64][]wire.Ranks{}
	}
	for _, s := range c.sets[h] {
		if slices.Equal(s, rs) {
			return s
		}
	}
	c.sets[h] = append(c.sets[h], rs)
	return rs
}
