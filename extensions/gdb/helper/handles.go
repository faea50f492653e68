package helper

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mpidbg/mpidbg/shim/calls"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// onRequests lists the live requests, in the order they were made.
func (s *Server) onRequests(a args) (*result, error) {
	snap, _, err := s.snapshot(a)
	if err != nil {
		return nil, err
	}
	b := snap.Builder()
	var reqs []registry.Request
	for _, q := range snap.Requests {
		if q.State.Has(registry.Live) {
			reqs = append(reqs, q)
		}
	}
	// oldest first: Open MPI's handles are heap addresses, whose order
	// says nothing to the user and changes with the heap's layout
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].Serial < reqs[j].Serial })
	var sites []uint64
	for _, q := range reqs {
		sites = append(sites, q.Site)
	}
	s.nameSites(sites...)
	rows := [][]string{}
	vals := []any{}
	for _, q := range reqs {
		rows = append(rows, []string{hex(q.Handle), q.Kind.String(), callName(q.Call), hex(q.Buf), fmt.Sprint(q.Count),
			typeLabel(b, q.Datatype), peerText(snap.MPI, q), tagText(q), commText(snap, q), stateText(q.State), s.siteText(q.Site)})
		vals = append(vals, s.requestValue(snap, b, q))
	}
	text := "no pending requests"
	if len(rows) > 0 {
		text = table([]string{"handle", "kind", "call", "buffer", "count", "datatype", "peer", "tag", "communicator", "state", "created at"}, rows)
	}
	if snap.Torn {
		text += "\n" + tornNote
	}
	return &result{text: text, value: map[string]any{"requests": vals, "torn": snap.Torn}}, nil
}

func (s *Server) requestValue(snap *registry.Snapshot, b *registry.Builder, q registry.Request) map[string]any {
	v := map[string]any{"handle": hex(q.Handle), "kind": q.Kind.String(), "call": callName(q.Call),
		"buf": hex(q.Buf), "count": q.Count, "datatype": hex(q.Datatype), "datatype_name": typeLabel(b, q.Datatype),
		"peer": q.Peer, "tag": q.Tag, "comm": hex(q.Comm), "comm_name": commText(snap, q),
		"state": states(q.State), "site": s.siteValue(q.Site), "buf2": nil, "count2": nil, "datatype2": nil}
	if q.Kind == registry.ReqColl {
		v["buf2"], v["count2"], v["datatype2"] = hex(q.Buf2), q.Count2, hex(q.Datatype2)
	}
	return v
}

func callName(id int32) string {
	if n := calls.Name(int(id)); n != "" {
		return n
	}
	return fmt.Sprintf("call %d", id)
}

// peerText names the wildcard and null ranks, whose values differ
// between MPI libraries; a collective or RMA request has no peer.
func peerText(mpi registry.MPI, q registry.Request) string {
	if q.Kind != registry.ReqSend && q.Kind != registry.ReqRecv {
		return "-"
	}
	anySource, procNull := int32(-2), int32(-1) // MPICH's mpi.h
	if mpi == registry.OpenMPI {
		anySource, procNull = -1, -2
	}
	switch q.Peer {
	case anySource:
		return "MPI_ANY_SOURCE"
	case procNull:
		return "MPI_PROC_NULL"
	}
	return fmt.Sprint(q.Peer)
}

func tagText(q registry.Request) string {
	switch {
	case q.Kind != registry.ReqSend && q.Kind != registry.ReqRecv:
		return "-"
	case q.Tag == -1 && q.Kind == registry.ReqRecv: // MPI_ANY_TAG in both libraries
		return "MPI_ANY_TAG"
	}
	return fmt.Sprint(q.Tag)
}

// commText names a request's communicator; an RMA request holds its
// window there instead.
func commText(snap *registry.Snapshot, q registry.Request) string {
	if q.Kind == registry.ReqRMA {
		return "win " + hex(q.Comm)
	}
	return commLabel(snap, q.Comm)
}

// onErrors lists the findings the ring still holds, oldest first.
func (s *Server) onErrors(a args) (*result, error) {
	snap, _, err := s.snapshot(a)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	if n := uint64(len(snap.Findings)); snap.FindingsTotal > n {
		lost := snap.FindingsTotal - n
		was := "findings were"
		if lost == 1 {
			was = "finding was"
		}
		fmt.Fprintf(&b, "%d older %s overwritten (the ring keeps the newest %d)\n", lost, was, snap.FindingsCap)
	}
	var sites []uint64
	for _, f := range snap.Findings {
		sites = append(sites, f.Site, f.RelatedSite)
	}
	s.nameSites(sites...)
	vals := []any{}
	for _, f := range snap.Findings {
		fmt.Fprintf(&b, "#%d %s %s", f.Seq, severity(f.Severity), f.ID)
		if f.Call != "" {
			fmt.Fprintf(&b, " in %s", f.Call)
		}
		fmt.Fprintf(&b, " at %s\n", s.siteText(f.Site))
		if f.Message != "" {
			b.WriteString("    " + strings.ReplaceAll(f.Message, "\n", "\n    ") + "\n")
		}
		if f.Path != "" {
			b.WriteString("    path: " + f.Path + "\n")
		}
		if f.RelatedSite != 0 {
			b.WriteString("    related: " + s.siteText(f.RelatedSite) + "\n")
		}
		vals = append(vals, map[string]any{"seq": f.Seq, "id": f.ID, "severity": severity(f.Severity),
			"category": f.Category, "call": f.Call, "rank": f.Rank, "message": f.Message, "path": f.Path,
			"site": s.siteValue(f.Site), "related_site": s.siteValue(f.RelatedSite)})
	}
	if len(snap.Findings) == 0 {
		b.WriteString("no findings recorded")
	}
	text := strings.TrimSuffix(b.String(), "\n")
	if snap.Torn {
		text += "\n" + tornNote
	}
	return &result{text: text, value: map[string]any{"findings": vals, "total": snap.FindingsTotal,
		"capacity": snap.FindingsCap, "torn": snap.Torn}}, nil
}

func severity(s uint32) string {
	switch s {
	case 0:
		return "error"
	case 1:
		return "warning"
	case 2:
		return "info"
	}
	return fmt.Sprintf("severity-%d", s)
}
