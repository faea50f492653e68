package main

import "strings"

// The cross-rank part of a wrapper (shim/xr*.c, docs/cross-rank.md): what a call
// tells the other ranks and the deadlock detector. Point-to-point calls
// fill a struct mpidbg_xp (the message's shadow, the blocked-call record,
// the receive's status); collectives fill a struct mpidbg_xc (what every
// rank of the communicator must agree on). The generator only gathers the
// arguments: the hand-written xr_p2p.c and xr_coll.c decide.

// syncForm is the synchronous-mode function a standard-mode send becomes
// under --buffering=zero (MPI-4.1 §3.4: an MPI library may provide no
// buffering at all, and then a standard send is synchronous).
var syncForm = map[string]string{
	"MPI_Send": "MPI_Ssend", "MPI_Isend": "MPI_Issend", "MPI_Send_init": "MPI_Ssend_init",
	"MPI_Send_c": "MPI_Ssend_c", "MPI_Isend_c": "MPI_Issend_c", "MPI_Send_init_c": "MPI_Ssend_init_c",
}

// xrP2P reports whether c is a point-to-point call the cross-rank checks
// see (partitioned communication is not).
func xrP2P(c *Call) bool {
	switch c.Class {
	case "p2p", "p2p-nb", "p2p-init", "probe":
		return !strings.HasPrefix(c.Name, "MPI_Psend") && !strings.HasPrefix(c.Name, "MPI_Precv")
	}
	return false
}

func xrColl(c *Call) bool {
	switch c.Class {
	case "coll", "coll-nb", "coll-init":
		return !strings.HasPrefix(c.Name, "MPI_Reduce_local")
	}
	return collectiveOver(c)
}

// collectiveOver reports whether c is a constructor every process of its
// communicator calls ({comm collective}: MPI_Comm_dup, MPI_Comm_split,
// MPI_Cart_create, ...). Such a call is counted and agreed on as a
// blocking collective: a rank in MPI_Comm_dup while another is in
// MPI_Barrier is a collective mismatch, and the deadlock detector sees
// where each waits.
func collectiveOver(c *Call) bool {
	for _, p := range c.Params {
		if p.Role == "comm" {
			_, ok := p.Attr["collective"]
			return ok
		}
	}
	return false
}

// collBase is the blocking form of a collective: MPI_Ibcast_c and
// MPI_Bcast_init are both MPI_Bcast, and MPI_Comm_idup and
// MPI_Comm_dup_with_info are MPI_Comm_dup, so that ranks that call
// different forms of one collective are told apart by mode, not by kind.
func collBase(c *Call) string {
	n := strings.TrimPrefix(c.Name, "MPI_")
	n = strings.TrimSuffix(n, "_c")
	switch c.Class {
	case "coll-nb":
		n = strings.TrimPrefix(n, "I")
		n = strings.ToUpper(n[:1]) + n[1:]
	case "coll-init":
		n = strings.TrimSuffix(n, "_init")
	}
	if collectiveOver(c) {
		// the same duplication with hints or started nonblocking:
		// told apart by mode, as the collectives are
		n = strings.TrimSuffix(n, "_with_info")
		if n == "Comm_idup" {
			n = "Comm_dup"
		}
	}
	return "MPI_" + n
}

func statusParam(c *Call) string {
	for _, p := range c.Params {
		if p.BaseType() == "MPI_Status *" {
			return p.Name
		}
	}
	return ""
}

func paramByRole(c *Call, role string) string {
	for _, p := range c.Params {
		if p.Role == role {
			return p.Name
		}
	}
	return ""
}

// emitXRPre writes what runs before PMPI and returns the PMPI function
// to call (a synchronous form when the shim says so).
func emitXRPre(w *wr, c *Call) (pmpi string) {
	known := knownCalls
	pmpi = "P" + c.Name
	switch {
	case xrP2P(c):
		w.f("struct mpidbg_xp xp;")
		w.f("mpidbg_xp_init(&xp, %s);", orZero(paramByRole(c, "comm"), "MPI_COMM_NULL"))
		for _, p := range c.Params {
			switch p.Role {
			case "S":
				w.f("xp.send = 1;")
				w.f("xp.scount = (int64_t)%s;", blockCount(p))
				w.f("xp.stype = %s;", p.Attr["t"])
			case "R":
				w.f("xp.recv = 1;")
				w.f("xp.rcount = (int64_t)%s;", blockCount(p))
				w.f("xp.rtype = %s;", p.Attr["t"])
			case "X":
				w.f("xp.send = xp.recv = 1;")
				w.f("xp.scount = xp.rcount = (int64_t)%s;", blockCount(p))
				w.f("xp.stype = xp.rtype = %s;", p.Attr["t"])
			case "dest":
				w.f("xp.dest = %s;", p.Name)
			case "source":
				w.f("xp.source = %s;", p.Name)
			case "stag":
				w.f("xp.stag = %s;", p.Name)
			case "rtag":
				w.f("xp.rtag = %s;", p.Name)
			}
		}
		for _, p := range c.Params {
			if p.Name == "message" && strings.Contains(p.Decl, "MPI_Message") {
				w.f("xp.message = %s;", p.Name)
			}
		}
		switch c.Class {
		case "p2p-nb":
			w.f("xp.nonblocking = 1;")
		case "p2p-init":
			w.f("xp.persistent = 1;")
		case "probe":
			w.f("xp.probe = 1;")
			if strings.HasPrefix(c.Name, "MPI_Ip") || strings.HasPrefix(c.Name, "MPI_Imp") {
				w.f("xp.nonblocking = 1;")
			}
			for _, p := range c.Params {
				if p.Name == "flag" {
					w.f("xp.flag = flag;")
				}
			}
		}
		if s := statusParam(c); s != "" {
			w.f("MPI_Status xp_st;")
			w.f("if (%s == MPI_STATUS_IGNORE) {", s)
			w.f("    %s = &xp_st;", s)
			w.f("    xp.status_ignored = 1;")
			w.f("}")
			w.f("xp.status = %s;", s)
		}
		w.f("mpidbg_xp_pre(&cx, &xp);")
		if s, ok := syncForm[c.Name]; ok && known[s] {
			pmpi = "(xp.sync ? P" + s + " : P" + c.Name + ")"
		}
	case xrColl(c):
		w.f("struct mpidbg_xc xc;")
		mode := "MPIDBG_CALLMODE_BLOCKING"
		switch {
		case c.Class == "coll-init":
			mode = "MPIDBG_CALLMODE_PERSISTENT"
		case paramByRole(c, "reqout") != "":
			mode = "MPIDBG_CALLMODE_NONBLOCKING" // coll-nb, MPI_Comm_idup
		}
		base := collBase(c)
		if !known[base] {
			base = c.Name
		}
		w.f("mpidbg_xc_init(&xc, MPIDBG_CALL_%s, %s);", base, mode)
		for _, p := range c.Params {
			switch p.Role {
			case "root":
				w.f("xc.root = %s;", p.Name)
			case "op":
				w.f("xc.op = MPIDBG_H(%s);", p.Name)
			case "S", "R", "X":
				emitXCSide(w, p)
			}
		}
		w.f("mpidbg_xc_pre(&cx, &xc);")
	}
	return pmpi
}

// emitXCSide fills one side of a collective's descriptor.
func emitXCSide(w *wr, p Param) {
	sides := map[string][]string{"S": {"s"}, "R": {"r"}, "X": {"s", "r"}}[p.Role]
	for _, s := range sides {
		w.f("xc.%sbuf = %s;", s, p.Name)
		if n := p.Attr["n"]; n != "" {
			switch {
			case strings.HasPrefix(n, "sum("):
				// the blocks are the receive counts: compared as an array
			case strings.HasSuffix(n, "[rank]"):
				a := strings.TrimSuffix(n, "[rank]")
				w.f("xc.%scounts = %s;", s, a)
				w.f("xc.%scelem = sizeof *%s;", s, a)
			case isNumber(n):
				w.f("xc.%scount = %s;", s, n)
			default:
				w.f("xc.%scount = (int64_t)%s;", s, blockCount(p))
			}
		}
		if v := p.Attr["counts"]; v != "" {
			w.f("xc.%scounts = %s;", s, v)
			w.f("xc.%scelem = sizeof *%s;", s, v)
		}
		if v := p.Attr["types"]; v != "" {
			w.f("xc.%stypes = %s;", s, v)
		}
		if v := p.Attr["t"]; v != "" {
			w.f("xc.%stype = %s;", s, v)
		}
	}
}

// emitXRPost writes what runs after PMPI returned rc.
func emitXRPost(w *wr, c *Call) {
	switch {
	case xrP2P(c):
		w.f("rc = mpidbg_xp_post(&cx, &xp, rc);")
	case xrColl(c):
		req := paramByRole(c, "reqout")
		w.f("rc = mpidbg_xc_post(&cx, &xc, rc, %s);", orZero(req, "NULL"))
	}
}

// blockCount is the count parameter of one block of a side: "sendcount"
// for n=sendcount*size.
func blockCount(p Param) string {
	name, _, _ := strings.Cut(p.Attr["n"], "*")
	return name
}

func orZero(s, zero string) string {
	if s == "" {
		return zero
	}
	return s
}
