package report

import (
	"slices"

	"github.com/mpidbg/mpidbg/checks"
)

// A job can stop without a deadlock the wait-for graph sees: every rank
// has reached the same collective, so the graph calls it matched, but the
// ranks called it with different roots, counts or signatures and MPI
// never completes it; or a window is freed with a lock still held. The
// rank reported the error before MPI saw the call. What ties the hang to
// the error is the place: a rank blocked in the call that reported it,
// or waiting for an operation started there (MPI_Wait on an MPI_Ibcast).

// errorSite is one call at which a rank reported an error finding.
type errorSite struct {
	call string
	site checks.Site
	id   string
}

// errorSites is what a rank reported errors at, in order. It only grows,
// by append, so that a copy (RankState's) stays valid while the
// Collector adds to it: appended entries lie beyond the copy's length.
type errorSites []errorSite

// maxErrorSites bounds the calls kept per rank: a program with errors in
// hundreds of places is not short of findings to read.
const maxErrorSites = 256

// add returns s with f's call and site, if f is an error at a known site
// not there yet.
func (s errorSites) add(f checks.Finding) errorSites {
	if f.Severity != checks.SevError || f.Site == (checks.Site{}) || f.Call == "" || len(s) >= maxErrorSites {
		return s
	}
	for _, e := range s {
		if e.call == f.Call && e.site == f.Site {
			return s
		}
	}
	return append(s, errorSite{call: f.Call, site: f.Site, id: f.ID})
}

// at returns the id of the error reported at call and site, or "".
func (s errorSites) at(call string, site checks.Site) string {
	if site == (checks.Site{}) {
		return ""
	}
	for _, e := range s {
		if e.call == call && e.site == site {
			return e.id
		}
	}
	return ""
}

// Stuck is a stopped job some of whose ranks wait in calls where they
// reported an error.
type Stuck struct {
	Ranks []int    // those ranks, sorted
	IDs   []string // the errors' ids, sorted, each once
}

// StuckAtErrors finds the blocked ranks whose call, or an operation the
// call waits for, is one at which the rank reported an error finding.
func (st JobState) StuckAtErrors() Stuck {
	var s Stuck
	for n, r := range st.Ranks {
		b := r.Blocked
		if b == nil || len(r.ErrorSites) == 0 {
			continue
		}
		exe := r.Hello.Exe
		id := r.ErrorSites.at(b.Call, programSite(b.Site, exe))
		for i := 0; id == "" && i < len(b.Waits); i++ {
			id = r.ErrorSites.at(b.Waits[i].Call, programSite(b.Waits[i].Site, exe))
		}
		if id != "" {
			s.Ranks = append(s.Ranks, n)
			s.IDs = append(s.IDs, id)
		}
	}
	slices.Sort(s.Ranks)
	slices.Sort(s.IDs)
	s.IDs = slices.Compact(s.IDs)
	return s
}
