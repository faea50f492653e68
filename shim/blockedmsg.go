package main

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/shim/registry"
	"github.com/mpidbg/mpidbg/wire"
)

// record is a Go copy of the blocked-call record (blocked.h), made by
// recordOf in watch.go; blockedOf turns it into the wire message. Kept
// apart from C so that the translation can be tested alone.
type record struct {
	seq    uint64
	call   int32
	site   uint64
	or     bool // MPIDBG_WAIT_OR
	nwait  int  // may exceed len(waits): the C side keeps MPIDBG_WAIT_MAX
	zero   bool
	args   string
	waits  []waitRecord
	frames []uint64 // innermost first
}

type waitKind int

const (
	waitOther waitKind = iota
	waitRecv
	waitSend
	waitColl
	waitSync
)

type waitRecord struct {
	kind               waitKind
	peer, tag, call    int32
	win                bool // comm is a window, peer a rank of its group
	comm, commID, coll uint64
	site               uint64
	taken              bool // a send whose receiver took the message: it waits for nobody
}

// lookup is what blockedOf asks the shim: names of calls, sites of code
// addresses, a communicator's peers in MPI_COMM_WORLD ranks (nil when
// unknown), the members of its collectives (both groups of an
// intercommunicator) and its name, the size of MPI_COMM_WORLD,
// MPI_ANY_TAG.
type lookup struct {
	call      func(int32) string
	site      func(uint64) checks.Site
	group     func(comm uint64) []int
	members   func(comm uint64) []int
	commName  func(comm uint64) string
	winGroup  func(win uint64) []int // as group, for a window
	winName   func(win uint64) string
	worldSize func() int
	anyTag    int
}

// blockedOf is the message for a record: the call, its site and
// arguments, the waits with their peers translated to MPI_COMM_WORLD
// ranks, the stack from the call's site outwards.
func blockedOf(r record, lk lookup, blockedFor time.Duration) *wire.Blocked {
	b := &wire.Blocked{
		Rank:         worldRank(),
		Seq:          r.seq,
		Call:         lk.call(r.call),
		Site:         lk.site(r.site),
		Args:         r.args,
		Mode:         wire.And,
		Truncated:    r.nwait > len(r.waits),
		ZeroBuffered: r.zero,
		ForMS:        blockedFor.Milliseconds(),
	}
	if r.or {
		b.Mode = wire.Or
	}
	names := map[objKey]string{}
	groups := map[objKey][]int{}
	for _, w := range r.waits {
		if !w.taken {
			b.Waits = append(b.Waits, waitOf(w, lk, names, groups))
		}
	}
	b.Stack = stackOf(r.frames, r.site, lk.site)
	return b
}

// objKey is a communicator or window handle; all: the members of its
// collectives rather than its peers.
type objKey struct {
	h        uint64
	win, all bool
}

// waitOf translates one wait. names and groups cache what lk says of
// each communicator or window handle (its peers in its group's rank
// order, which a peer's index needs), for one message.
func waitOf(w waitRecord, lk lookup, names map[objKey]string, groups map[objKey][]int) wire.Wait {
	out := wire.Wait{Tag: int(w.tag), Call: lk.call(w.call), Comm: w.commID, Coll: w.coll}
	if int(w.tag) == lk.anyTag {
		out.Tag = wire.AnyTag
	}
	if w.site != 0 {
		out.Site = lk.site(w.site)
	}
	key := objKey{h: w.comm, win: w.win}
	if w.comm != 0 {
		name, ok := names[key]
		if !ok {
			if w.win {
				name = lk.winName(w.comm)
			} else {
				name = lk.commName(w.comm)
			}
			names[key] = name
		}
		out.CommName = name
	}
	peer := int(w.peer)
	switch w.kind {
	case waitRecv:
		out.Kind, out.Any = wire.WaitRecv, peer < 0
	case waitSend:
		out.Kind = wire.WaitSend
	case waitColl:
		out.Kind, peer = wire.WaitColl, -1
		key.all = !w.win
	case waitSync:
		out.Kind = wire.WaitSync
		if peer < 0 {
			return out
		}
	default:
		out.Kind = wire.WaitOther
		return out
	}
	group, ok := groups[key]
	if !ok {
		switch {
		case w.win:
			group = validGroup(lk.winGroup(w.comm), lk.worldSize())
		case key.all:
			group = validGroup(lk.members(w.comm), lk.worldSize())
		default:
			group = validGroup(lk.group(w.comm), lk.worldSize())
		}
		groups[key] = group
	}
	switch {
	case group == nil:
		// not translated: the detector takes the wait as satisfiable
	case peer < 0:
		out.Ranks = wire.MakeRanks(group) // a set: "0-99999" on the wire
	case peer < len(group):
		out.Ranks = wire.Ranks{group[peer]}
	}
	return out
}

// validGroup is g when every rank in it is a rank of a world of size
// ranks, else nil: a translation with MPI_UNDEFINED in it is not one to
// build a deadlock on.
func validGroup(g []int, size int) []int {
	for _, r := range g {
		if r < 0 || r >= size {
			return nil
		}
	}
	return g
}

// stackOf is the part of a stack (innermost first) the user wrote: from
// the call's site, when the stack holds it (the frames before are inside
// MPI and the shim), up to the first frame in the C library (what called
// main, or started the thread).
func stackOf(frames []uint64, callSite uint64, site func(uint64) checks.Site) []checks.Site {
	if callSite&registry.PySiteTag != 0 {
		// a Python script's call: its native frames are the interpreter's
		return []checks.Site{site(callSite)}
	}
	for i, pc := range frames {
		if pc == callSite {
			frames = frames[i:]
			break
		}
	}
	var out []checks.Site
	for _, pc := range frames {
		s := site(pc)
		if base := filepath.Base(s.Module); strings.HasPrefix(base, "libc.so") || strings.HasPrefix(base, "libc-") {
			break
		}
		out = append(out, s)
	}
	return out
}
