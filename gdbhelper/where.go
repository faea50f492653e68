package gdbhelper

import (
	"encoding/json"
	"sort"

	"github.com/mpidbg/mpidbg/registry"
)

// Call sites in the registry are return addresses in the inferior. Only
// gdb has its symbols, so the helper asks gdb to name them, all of one
// request's at once (docs/gdb-helper.md, "where"), before rendering. An
// answer gdb cannot give leaves the address as it is: names are a
// convenience, never a reason to fail a request.

type whereLine struct {
	Where struct {
		Addrs []string `json:"addrs"`
	} `json:"where"`
}

type whereAnswer struct {
	Where []string `json:"where"`
	Error *string  `json:"error"`
}

// nameSites asks gdb for the source locations of every call site the
// snapshot holds and keeps them for siteText and siteValue.
func (s *Server) nameSites(snap *registry.Snapshot) {
	s.sites = map[uint64]string{}
	set := map[uint64]bool{}
	add := func(vs ...uint64) {
		for _, v := range vs {
			if v != 0 {
				set[v] = true
			}
		}
	}
	for _, t := range snap.Types {
		add(t.Site, t.FreeSite)
	}
	for _, q := range snap.Requests {
		add(q.Site)
	}
	for _, c := range snap.Comms {
		add(c.Site)
	}
	for _, w := range snap.Wins {
		add(w.Site)
	}
	for _, o := range snap.Ops {
		add(o.Site)
	}
	for _, g := range snap.Groups {
		add(g.Site)
	}
	for _, f := range snap.Findings {
		add(f.Site, f.RelatedSite)
	}
	if len(set) == 0 || s.eof || s.writeErr != nil {
		return
	}
	addrs := make([]uint64, 0, len(set))
	for v := range set {
		addrs = append(addrs, v)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	var wl whereLine
	for _, a := range addrs {
		wl.Where.Addrs = append(wl.Where.Addrs, hex(a))
	}
	b, _ := json.Marshal(wl)
	s.writeLine(b)
	if s.writeErr != nil {
		return
	}
	line, err := s.readLine()
	if err != nil {
		return
	}
	var ans whereAnswer
	if json.Unmarshal(line, &ans) != nil || ans.Error != nil || len(ans.Where) != len(addrs) {
		return
	}
	for i, a := range addrs {
		if ans.Where[i] != "" {
			s.sites[a] = ans.Where[i]
		}
	}
}

// siteText is a call site for the text: gdb's name for it, else its
// address, "-" when none was recorded.
func (s *Server) siteText(site uint64) string {
	if site == 0 {
		return "-"
	}
	if w := s.sites[site]; w != "" {
		return w
	}
	return hex(site)
}

// siteValue is a call site for value: {addr, where}, null when none was
// recorded.
func (s *Server) siteValue(site uint64) any {
	if site == 0 {
		return nil
	}
	v := map[string]any{"addr": hex(site), "where": nil}
	if w := s.sites[site]; w != "" {
		v["where"] = w
	}
	return v
}
