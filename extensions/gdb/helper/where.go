package helper

import (
	"encoding/json"
	"slices"
	"sort"

	"github.com/mpidbg/mpidbg/shim/registry"
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

// nameSites asks gdb, in one round trip, for the source locations of the
// call sites a handler is about to print (0 and those named already are
// left out), and keeps them for siteText and siteValue.
func (s *Server) nameSites(sites ...uint64) {
	if s.sites == nil {
		s.sites = map[uint64]string{}
	}
	var addrs []uint64
	for _, v := range sites {
		if _, done := s.sites[v]; v != 0 && !done {
			s.sites[v] = "" // asked once, named or not
			if registry.IsPySite(v) {
				s.sites[v] = s.pyReg.where(v) // the registry names it, not gdb
				continue
			}
			addrs = append(addrs, v)
		}
	}
	if len(addrs) == 0 || s.eof || s.writeErr != nil {
		return
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	addrs = slices.Compact(addrs)
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
		s.sites[a] = ans.Where[i]
	}
}

// pyRegistry names Python call sites (registry.PySite) from the registry
// a request read.
type pyRegistry struct {
	mem    registry.Reader
	header *registry.Header
}

// where is a Python site as "file:line in function", as the report
// names it, or "" when the registry cannot say.
func (p pyRegistry) where(site uint64) string {
	if p.header == nil {
		return ""
	}
	ps, err := p.header.PySite(p.mem, site)
	if err != nil {
		return ""
	}
	return ps.Location().String()
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
