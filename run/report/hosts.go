package report

import (
	"cmp"
	"slices"
)

// Which host each rank ran on, as its Hello said (gethostname on the
// rank's machine), for a job that spans machines (mpidbg run --listen).

// HostRanks is a host and the ranks that ran on it, sorted.
type HostRanks struct {
	Host  string `json:"host"`
	Ranks []int  `json:"ranks"`
}

// buildHosts fills r.Outcome.Hosts when the ranks that connected named
// more than one host; a job on one machine has none (under c.mu).
func (r *Report) buildHosts(c *Collector) {
	by := map[string][]int{}
	for rank, st := range c.ranks {
		if h := st.hello.Host; h != "" {
			by[h] = append(by[h], rank)
		}
	}
	if len(by) < 2 {
		return
	}
	for h, ranks := range by {
		slices.Sort(ranks)
		r.Outcome.Hosts = append(r.Outcome.Hosts, HostRanks{Host: h, Ranks: ranks})
	}
	slices.SortFunc(r.Outcome.Hosts, func(a, b HostRanks) int { return cmp.Compare(a.Ranks[0], b.Ranks[0]) })
}

// HostsOf returns the hosts the ranks ran on, in order of their first
// rank; nil when the job ran on one machine or no rank of ranks named its
// host.
func (o Outcome) HostsOf(ranks []int) []string {
	var out []string
	for _, h := range o.Hosts {
		for _, r := range ranks {
			if _, ok := slices.BinarySearch(h.Ranks, r); ok {
				out = append(out, h.Host)
				break
			}
		}
	}
	return out
}
