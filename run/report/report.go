package report

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
)

// Finding is a finding merged across ranks. Ranks (in the embedded
// checks.Finding) lists every rank that reported it, sorted; Count is how
// many reports were merged into it (at least len(Ranks)).
type Finding struct {
	checks.Finding
	Count int `json:"count"`
	// Pattern says which ranks did what when one bug was made by many
	// ranks with different peers ("each rank r sends to r+1; ranks
	// 0-63"); empty when the ranks list says it all.
	Pattern string `json:"pattern,omitempty"`
}

// Death is a group of ranks that ended without saying goodbye (no
// MPI_Finalize), or that the launcher says ended abnormally, with the
// same status.
type Death struct {
	Ranks  []int
	Status string // "signal 11", "exit code 3"; "" when the launcher did not say
	After  bool   // the ranks had reached MPI_Finalize
}

// Job is what the launcher knows about the run as a whole.
type Job struct {
	Size        int    // ranks the job was started with
	Exit        string // how mpiexec ended when not with status 0: "exit status 3", "signal 9"; "" on success
	Interrupted string // the signal mpidbg forwarded to the job ("SIGINT"), or ""
	// LaunchError is the launcher's own message when it failed before
	// ranks started (mpiexec's "execvp error on file ring"), or "".
	LaunchError string
	// Refused counts the report connections the launcher turned away.
	Refused Refused
}

// Refused counts the report connections the launcher closed unread
// (run/launch's Listener): without the job's token, which only its
// ranks have, or with it once every rank had connected. Anything a
// refused connection sent is not in the report.
type Refused struct {
	NoToken int `json:"no_token,omitempty"`
	Surplus int `json:"surplus,omitempty"`
}

// Phrases says what was refused, one phrase per reason: "2 connections
// refused: no valid job token"; none when nothing was.
func (r Refused) Phrases() []string {
	var out []string
	conns := func(n int) string {
		if n == 1 {
			return "1 connection"
		}
		return fmt.Sprintf("%d connections", n)
	}
	if r.NoToken > 0 {
		out = append(out, conns(r.NoToken)+" refused: no valid job token")
	}
	if r.Surplus > 0 {
		out = append(out, conns(r.Surplus)+" refused: every rank of the job had connected")
	}
	return out
}

// Report is everything `mpidbg run` says about one job.
type Report struct {
	Job
	Reported []int     // ranks that connected, sorted
	Findings []Finding // merged, in report order
	Died     []Death   // ordered by first rank
	Silent   []int     // ranks of the job that never connected, sorted
	Notes    []string  // about the run itself: protocol trouble, missing debug information
	// Suppressed are the findings suppression rules took out of Findings
	// (suppress.go).
	Suppressed []Suppressed
	Outcome    Outcome // how each rank ended (outcome.go)
}

// Resolver turns a site into a source location (package symbolize).
type Resolver interface {
	Resolve(checks.Site) (checks.Location, error)
}

// ModuleError is an error about a whole module (it cannot be read, it has
// no debug information), reported once per module rather than per
// address. Resolvers wrap their errors in it when it applies.
type ModuleError interface {
	error
	ModulePath() string
}

// Build makes the report of what c collected: sites resolved with res
// (nil: keep locations as the ranks sent them), the ranks' reports
// folded into one finding per bug (fold.go), everything ordered.
func Build(c *Collector, job Job, res Resolver) *Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := &Report{Job: job, Notes: append(slices.Clone(c.notes), c.saidNotes()...)}

	bad := map[string]bool{} // notes about modules already given
	resolve := func(loc checks.Location, site checks.Site) checks.Location {
		if loc == (checks.Location{}) && site.Script != (checks.Location{}) {
			return site.Script // a Python script's call, resolved by the rank
		}
		if res == nil || loc != (checks.Location{}) || site.Module == "" {
			return loc
		}
		got, err := res.Resolve(site)
		if err != nil {
			var me ModuleError
			if errors.As(err, &me) && !bad[me.ModulePath()] {
				bad[me.ModulePath()] = true
				r.Notes = append(r.Notes, fmt.Sprintf("no source locations for %s: %v", me.ModulePath(), err))
			}
		}
		return got
	}

	// Resolve, then fold: different sites can be the same line, and the
	// reports of many ranks one bug (fold.go).
	var in []instance
	for _, e := range c.order {
		f := e.f
		f.Location = resolve(f.Location, f.Site)
		f.Related = slices.Clone(f.Related)
		for i := range f.Related {
			f.Related[i].Location = resolve(f.Related[i].Location, f.Related[i].Site)
		}
		if f.Category == "" {
			if ce, ok := checks.Lookup(f.ID); ok {
				f.Category = ce.Category
			}
		}
		x := instance{f: f, own: e.own, count: e.count}
		for rank := range e.ranks {
			x.ranks = append(x.ranks, rank)
		}
		slices.Sort(x.ranks)
		in = append(in, x)
	}
	size := job.Size
	if size == 0 {
		size = c.size
	}
	list := fold(in, size)
	noFile := false
	for _, m := range list {
		if m.Ranks == nil {
			m.Ranks = []int{}
		}
		if e, ok := checks.Lookup(m.ID); ok {
			if m.Rule == "" {
				m.Rule = e.Rule
			}
			if m.Category == "" {
				m.Category = e.Category
			}
			if m.Severity == "" {
				m.Severity = e.Severity
			}
		}
		if m.Location.File == "" && m.Location.Function != "" {
			noFile = true
		}
		r.Findings = append(r.Findings, *m)
	}
	sort.SliceStable(r.Findings, func(i, j int) bool { return less(&r.Findings[i], &r.Findings[j]) })
	if noFile {
		r.Notes = append(r.Notes, "some locations have no file and line: build the program with -g")
	}

	r.ranks(c)
	r.buildOutcome(c, siteResolver(res))
	return r
}

// ranks fills Reported, Died and Silent.
func (r *Report) ranks(c *Collector) {
	used := map[procStatus]bool{}
	type key struct {
		status string
		after  bool
	}
	died := map[key][]int{}
	for rank := range c.ranks {
		r.Reported = append(r.Reported, rank)
	}
	slices.Sort(r.Reported)
	for _, rank := range r.Reported {
		st := c.ranks[rank]
		status := ""
		c.statusesOf(rank, st, func(s procStatus) {
			status = s.status
			used[s] = true
		})
		// SIGTERM and SIGKILL after the launcher ended the job are its own.
		if !st.bye && (status == "" || toolSignal(status)) && c.ended != "" && st.closed && !st.closedAt.Before(c.endedAt) {
			status = "ended by mpidbg: " + c.ended
		}
		if !st.bye || status != "" {
			k := key{status, st.bye}
			died[k] = append(died[k], rank)
		}
		if !st.bye && st.lost != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("rank %d: connection lost: %s", rank, st.lost))
		}
	}
	for k, ranks := range died {
		slices.Sort(ranks)
		r.Died = append(r.Died, Death{Ranks: ranks, Status: k.status, After: k.after})
	}
	slices.SortFunc(r.Died, func(a, b Death) int { return cmp.Compare(a.Ranks[0], b.Ranks[0]) })
	for _, s := range c.statuses {
		if !used[s] {
			where := ""
			if s.host != "" {
				where = " on " + s.host
			}
			who := fmt.Sprintf("process %d", s.pid)
			if s.rank >= 0 {
				who = fmt.Sprintf("rank %d", s.rank)
			}
			r.Notes = append(r.Notes, fmt.Sprintf("%s%s ended with %s before it connected", who, where, s.status))
		}
	}
	if r.Size > 0 {
		for rank := 0; rank < r.Size; rank++ {
			if c.ranks[rank] == nil {
				r.Silent = append(r.Silent, rank)
			}
		}
		if len(c.ranks) == 0 {
			r.Notes = append(r.Notes, "no rank connected to mpidbg: the program never called MPI_Init, or the shim was not loaded into it (a statically linked program, or a launcher that does not pass LD_PRELOAD on)")
		}
	}
}

// toolSignal says whether the launcher's status can be the SIGTERM or
// SIGKILL with which mpidbg ends a job. Hydra gives a signal's number as
// the EXIT CODE of a process, and only the exit string after it says that
// it was a signal; when mpidbg ends a job across hosts, a remote proxy's
// connection breaks and mpiexec (MPICH 4.0.2) exits without that string,
// leaving "exit code 15" for a rank the SIGTERM ended.
func toolSignal(status string) bool {
	switch status {
	case "signal 15", "signal 9", "exit code 15", "exit code 9":
		return true
	}
	return false
}

// hostMatch compares host names the launcher and a rank gave, either of
// which may be a short name.
func hostMatch(a, b string) bool {
	short := func(s string) string { s, _, _ = strings.Cut(s, "."); return s }
	return a == b || short(a) == short(b)
}

var sevOrder = map[checks.Severity]int{checks.SevError: 0, checks.SevWarning: 1, checks.SevInfo: 2}

func rankOf[K comparable](m map[K]int, k K) int {
	if i, ok := m[k]; ok {
		return i
	}
	return len(m)
}

var catOrder = func() map[checks.Category]int {
	m := map[checks.Category]int{}
	for i, c := range checks.Categories {
		m[c] = i
	}
	return m
}()

// less orders findings by severity, category (checks.Categories order),
// location (file, line, function), then id, message and first rank.
func less(a, b *Finding) bool {
	if x, y := rankOf(sevOrder, a.Severity), rankOf(sevOrder, b.Severity); x != y {
		return x < y
	}
	if x, y := rankOf(catOrder, a.Category), rankOf(catOrder, b.Category); x != y {
		return x < y
	}
	if c := compareLocation(a.Location, b.Location); c != 0 {
		return c < 0
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	if a.Message != b.Message {
		return a.Message < b.Message
	}
	return slices.Compare(a.Ranks, b.Ranks) < 0
}

// compareLocation puts known files first, in path order, then lines.
func compareLocation(a, b checks.Location) int {
	if (a.File == "") != (b.File == "") {
		if a.File == "" {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Function, b.Function))
}

// Count returns how many (merged) findings have severity sev.
func (r *Report) Count(sev checks.Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// HasErrors reports whether any finding is an error.
func (r *Report) HasErrors() bool { return r.Count(checks.SevError) > 0 }

// RanksWithFindings is the number of distinct ranks that reported a
// finding.
func (r *Report) RanksWithFindings() int {
	seen := map[int]bool{}
	for _, f := range r.Findings {
		for _, rank := range f.Ranks {
			seen[rank] = true
		}
	}
	return len(seen)
}

// NumRanks is the job's size: as given to the launcher, else the number
// of ranks that connected.
func (r *Report) NumRanks() int {
	if r.Size > 0 {
		return r.Size
	}
	return len(r.Reported)
}

// RelPath returns file relative to dir when file lies inside dir, and
// file unchanged otherwise (or when either is not absolute).
func RelPath(dir, file string) string {
	if dir == "" || !filepath.IsAbs(file) || !filepath.IsAbs(dir) {
		return file
	}
	rel, err := filepath.Rel(dir, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return rel
}
