package helper

import (
	"fmt"
	"strings"

	"github.com/mpidbg/mpidbg/shim/calls"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// onHandle is one line about a communicator, request, window, operation
// or group handle, for gdb's pretty printer of that handle type.
func (s *Server) onHandle(a args) (*result, error) {
	h, err := a.handle()
	if err != nil {
		return nil, err
	}
	switch a.Kind {
	case "comm", "request", "win", "op", "group":
	case "":
		return nil, fmt.Errorf("missing argument kind (comm, request, win, op or group)")
	default:
		return nil, fmt.Errorf("unknown kind %q (want comm, request, win, op or group)", a.Kind)
	}
	snap, _, err := s.snapshot(a)
	if err != nil {
		return nil, err
	}
	if name := nullName(snap.MPI, a.Kind, h); name != "" {
		return &result{text: name, value: map[string]any{"handle": hex(h), "name": name, "null": true}}, nil
	}
	text, value, ok := s.describe(snap, a.Kind, h)
	if !ok {
		return nil, fmt.Errorf("freed or unknown %s handle %#x", kindWord(a.Kind), h)
	}
	// "live" is the usual case: only the other states are worth a word
	var notes []string
	st, _ := value["state"].([]string)
	for _, n := range st {
		if n != "live" {
			notes = append(notes, n)
		}
	}
	if len(notes) > 0 {
		text += "  (" + strings.Join(notes, ", ") + ")"
	}
	return &result{text: text, value: value}, nil
}

// kindWord is a handle kind as a sentence names it.
func kindWord(kind string) string {
	switch kind {
	case "comm":
		return "communicator"
	case "win":
		return "window"
	case "op":
		return "operation"
	}
	return kind
}

// describe finds the record of kind with handle h.
func (s *Server) describe(snap *registry.Snapshot, kind string, h uint64) (string, map[string]any, bool) {
	switch kind {
	case "comm":
		c, ok := pick(snap.Comms, h, func(c registry.Comm) (uint64, registry.State, uint32) { return c.Handle, c.State, c.Serial })
		if !ok {
			return "", nil, false
		}
		s.nameSites(c.Site)
		name := c.Name
		if name == "" {
			name = "communicator " + hex(c.Handle)
		}
		text := fmt.Sprintf("%s size %d rank %d", name, c.Size, c.Rank)
		if c.RemoteSize > 0 {
			text += fmt.Sprintf(" remote size %d", c.RemoteSize)
		}
		if c.WorldRanks != nil {
			text += " world ranks " + ranks(c.WorldRanks)
		}
		return text, map[string]any{"handle": hex(c.Handle), "name": c.Name, "size": c.Size, "rank": c.Rank,
			"remote_size": c.RemoteSize, "world_ranks": c.WorldRanks, "state": states(c.State), "site": s.siteValue(c.Site)}, true
	case "request":
		q, ok := pick(snap.Requests, h, func(q registry.Request) (uint64, registry.State, uint32) { return q.Handle, q.State, q.Serial })
		if !ok {
			return "", nil, false
		}
		s.nameSites(q.Site)
		b := snap.Builder()
		what := calls.Name(int(q.Call)) // it says the kind too
		if what == "" {
			what = q.Kind.String() + " request"
		}
		text := fmt.Sprintf("%s %d x %s", what, q.Count, typeLabel(b, q.Datatype))
		switch q.Kind {
		case registry.ReqSend:
			text += fmt.Sprintf(" to %s tag %s", peerText(snap.MPI, q), tagText(q))
		case registry.ReqRecv:
			text += fmt.Sprintf(" from %s tag %s", peerText(snap.MPI, q), tagText(q))
		}
		text += fmt.Sprintf(" on %s buf %s", commText(snap, q), hex(q.Buf))
		return text, s.requestValue(snap, b, q), true
	case "win":
		w, ok := pick(snap.Wins, h, func(w registry.Win) (uint64, registry.State, uint32) { return w.Handle, w.State, w.Serial })
		if !ok {
			return "", nil, false
		}
		s.nameSites(w.Site)
		text := fmt.Sprintf("window %s base %s size %d disp_unit %d on %s", hex(w.Handle), hex(w.Base), w.Size, w.DispUnit, commLabel(snap, w.Comm))
		return text, map[string]any{"handle": hex(w.Handle), "base": hex(w.Base), "size": w.Size, "disp_unit": w.DispUnit,
			"comm": hex(w.Comm), "comm_name": commLabel(snap, w.Comm), "state": states(w.State), "site": s.siteValue(w.Site)}, true
	case "op":
		o, ok := pick(snap.Ops, h, func(o registry.Op) (uint64, registry.State, uint32) { return o.Handle, o.State, o.Serial })
		if !ok {
			if name := predefinedOp(snap.MPI, h); name != "" {
				return name, map[string]any{"handle": hex(h), "name": name, "predefined": true}, true
			}
			return "", nil, false
		}
		s.nameSites(o.Site)
		text := fmt.Sprintf("user op %s function %s", hex(o.Handle), hex(o.Fn))
		if o.Commute {
			text += " commutative"
		} else {
			text += " non-commutative"
		}
		return text, map[string]any{"handle": hex(o.Handle), "fn": hex(o.Fn), "commute": o.Commute,
			"state": states(o.State), "site": s.siteValue(o.Site)}, true
	case "group":
		g, ok := pick(snap.Groups, h, func(g registry.Group) (uint64, registry.State, uint32) { return g.Handle, g.State, g.Serial })
		if !ok {
			return "", nil, false
		}
		s.nameSites(g.Site)
		text := fmt.Sprintf("group %s size %d rank %d", hex(g.Handle), g.Size, g.Rank)
		if g.WorldRanks != nil {
			text += " world ranks " + ranks(g.WorldRanks)
		}
		return text, map[string]any{"handle": hex(g.Handle), "size": g.Size, "rank": g.Rank, "world_ranks": g.WorldRanks,
			"state": states(g.State), "site": s.siteValue(g.Site)}, true
	}
	return "", nil, false
}

// ranks prints a rank list, eliding the middle of a long one: a pretty
// printer's line must stay short.
func ranks(r []int32) string {
	const most = 16
	var parts []string
	for i, v := range r {
		if len(r) > most && i == most/2 {
			parts = append(parts, fmt.Sprintf("… %d more", len(r)-most))
		}
		if len(r) <= most || i < most/2 || i >= len(r)-most/2 {
			parts = append(parts, fmt.Sprint(v))
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// mpichOps are MPICH's predefined reduction operations: their handles are
// constants of its mpi.h (0x58000001 MPI_MAX ... 0x5800000e MPI_NO_OP),
// which the shim does not record. Open MPI's are pointers to libmpi's
// globals, which the gdb extension names from gdb's symbol table
// (printers.py, predefined_name).
var mpichOps = []string{"MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR",
	"MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"}

// predefinedOp names a predefined operation handle, "" when h is none.
func predefinedOp(mpi registry.MPI, h uint64) string {
	if mpi == registry.MPICH && h >= 0x58000001 && h < 0x58000001+uint64(len(mpichOps)) {
		return mpichOps[h-0x58000001]
	}
	return ""
}
