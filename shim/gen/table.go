package main

import (
	"fmt"
	"regexp"
	"strings"
)

// TablePath is the table, relative to the repository root.
const TablePath = "shim/calls.tbl"

// Call is one line of the table: an MPI function, its class and its
// parameters with their roles.
type Call struct {
	Line    int
	Class   string
	Pre     bool // calls the hand-written hook mpidbg_pre_<Name> before PMPI
	Post    bool // and mpidbg_post_<Name> after it succeeds
	MPI4    bool // added by MPI-4.0: compiled only when mpi.h has MPI_VERSION >= 4
	Removed bool // removed by MPI-3.0: compiled only when mpi.h does not make its name a macro
	Name    string
	Ret     string
	Params  []Param
}

// Param is one parameter: its C declaration, its name and its role.
type Param struct {
	Decl string // e.g. "const int recvcounts[]"
	Name string
	Role string            // "" when it has none
	Attr map[string]string // key=value attributes and flags (value "")
}

// IsPtr reports whether the parameter is a pointer (or an array).
func (p Param) IsPtr() bool { return strings.Contains(p.Decl, "*") || strings.Contains(p.Decl, "[") }

// BaseType is the declaration without the name: "const int []".
func (p Param) BaseType() string {
	return strings.TrimSpace(strings.Replace(p.Decl, p.Name, "", 1))
}

var (
	reLine  = regexp.MustCompile(`^(\S+)\s+(\w[\w ]*?)\s+(\w+)\s*\((.*)\)\s*$`)
	reIdent = regexp.MustCompile(`(\w+)\s*(\[[^\]]*\]\s*)*$`)
)

// classes and what the generated comment says of each family.
var classes = map[string]string{
	"hand":        "Hand-written (see the file named in calls.tbl): the generator gives it a call id only.",
	"p2p":         "Blocking point-to-point. pre: comm valid; count non-negative; datatype valid and committed; dest/source a rank of comm, MPI_PROC_NULL (or MPI_ANY_SOURCE for receives); tag in 0..MPI_TAG_UB (MPI_ANY_TAG for receives); buffer not NULL with data, not MPI_IN_PLACE; a receive type must not overlap itself; the buffers must not conflict with pending operations (or, for sendrecv, with each other). post: nothing.",
	"p2p-nb":      "Nonblocking point-to-point. pre: as the blocking form, and the request variable must not hold an active request. post: the request is recorded, active, its buffer pending until completion.",
	"p2p-init":    "Persistent point-to-point (MPI-4.1 §3.9). pre: as the blocking form. post: the request is recorded, persistent and inactive; MPI_Start makes its buffer pending.",
	"probe":       "Probes. pre: comm valid; source a rank, MPI_PROC_NULL or MPI_ANY_SOURCE; tag in range or MPI_ANY_TAG. post: nothing.",
	"coll":        "Blocking collectives. pre: comm valid; root a rank of comm (MPI_ROOT/MPI_PROC_NULL/remote rank on intercommunicators) and only the arguments significant at this rank checked: counts, datatypes (committed), count and displacement arrays, op; MPI_IN_PLACE only where the collective allows it; send and receive buffers disjoint; no conflict with pending operations. post: nothing.",
	"coll-nb":     "Nonblocking collectives. pre: as the blocking form, and the request variable must not hold an active request. post: the request is recorded, active, its buffers pending until completion.",
	"coll-init":   "Persistent collectives (MPI-4). pre: as the blocking form. post: the request is recorded, persistent and inactive.",
	"type-ctor":   "Datatype constructors. pre: old types valid (not necessarily committed), arrays not NULL, and the arguments checked by the Go model's constructor (invalid-argument, the model's rule text). post: the new type is recorded with MPI_Type_get_envelope/get_contents, its size and bounds; not committed.",
	"type-commit": "MPI_Type_commit. pre: a derived type that is not committed yet (commit-predefined, commit-twice as warnings). post: committed; the model computes once at which count the type overlaps itself.",
	"type-free":   "MPI_Type_free. pre: a live derived type (type-free-predefined, type-double-free). post: freed (its record stays, for uses after free).",
	"type-query":  "Datatype queries and names. pre: the datatype is valid (committed or not). post: hooks keep names and handed-out references.",
	"pack":        "Pack and unpack. pre: counts, datatype committed, buffers: the input and output must not overlap. post: nothing.",
	"comm-ctor":   "Communicator constructors. pre: the communicators and groups given are valid. post: the new communicator is recorded with its size, rank, remote size, world ranks and neighbour counts (MPI_COMM_NULL is not recorded); MPI_Comm_idup's is recorded when its request completes.",
	"comm-free":   "Communicator destruction. pre: a valid communicator. post: freed.",
	"comm-query":  "Communicator queries. pre: the communicators are valid. post: hooks keep names.",
	"group-ctor":  "Group constructors. pre: groups and communicators valid. post: the new group is recorded (a group MPI hands out again counts one more handle to free).",
	"group-free":  "MPI_Group_free. pre: a valid group. post: one handle less; freed at the last.",
	"group-query": "Group queries. pre: valid groups.",
	"op":          "Reduction operations. pre: a valid operation. post: user operations are recorded, freed operations marked.",
	"win-ctor":    "Window constructors. pre: comm valid. post: the window is recorded with its base, size, displacement unit and group size.",
	"win-free":    "MPI_Win_free. pre: a valid window; mpidbg_rma_sync_pre ends its epochs (a collective, like a fence). post: freed.",
	"win-info":    "MPI_Win_set_info. pre: a valid window. post: the hook reads the info keys the one-sided conflict checks honour (rma_info.c).",
	"rma":         "One-sided communication. pre: window valid; target rank in its group or MPI_PROC_NULL; counts, origin and target datatypes (committed); origin buffers not NULL with data, disjoint from the result buffer, not in conflict with pending operations. Then the operation goes to mpidbg_rma_issue (rma_issue.c), which issues it or lets the forcing mode hold it, and to the race checks (rma.c).",
	"rma-req":     "Request-based one-sided communication. pre: as the plain form, and the request variable must not hold an active request. post: the request is recorded (kind rma), its origin buffers pending.",
	"rma-sync":    "One-sided synchronisation and window queries. pre: window valid; ranks in its group; then mpidbg_rma_sync_pre (rma.c: the forcing mode issues what the call requires, tracked buffers it completes are released). post: mpidbg_rma_sync_post with the return code (epochs, conflicts).",
	"request":     "Request queries, cancellation and generalized requests. pre: the request is one the program holds. post: new generalized requests are recorded.",
	"file":        "Blocking file access (ROMIO). pre: count, datatype committed, buffer not NULL with data and not in conflict with pending operations. post: nothing.",
	"file-nb":     "Nonblocking file access (ROMIO). pre: count, datatype committed, buffer. post: the request is recorded so that its completion is not reported as unknown; the buffer is pending.",
	"topo":        "Process topologies. pre: comm valid. post: new communicators are recorded with their neighbour counts.",
}

// sideRoles are the roles that describe a buffer.
var sideRoles = map[string]bool{"S": true, "R": true, "X": true, "T": true}

var knownRoles = map[string]bool{
	"S": true, "R": true, "X": true, "T": true,
	"count": true, "counts": true, "displs": true, "type": true, "types": true, "array": true,
	"comm": true, "win": true, "group": true, "op": true,
	"dest": true, "source": true, "stag": true, "rtag": true, "root": true, "trank": true,
	"reqout": true, "reqin": true,
	"newtype": true, "newcomm": true, "newgroup": true,
	"freetype": true, "freecomm": true, "freegroup": true, "freeop": true, "freewin": true,
	"committype": true,
}

// Parse reads the table.
func Parse(src []byte) ([]*Call, error) {
	var calls []*Call
	seen := map[string]int{}
	for i, raw := range strings.Split(string(src), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		c, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", TablePath, i+1, err)
		}
		c.Line = i + 1
		if prev, dup := seen[c.Name]; dup {
			return nil, fmt.Errorf("%s:%d: %s already on line %d", TablePath, i+1, c.Name, prev)
		}
		seen[c.Name] = i + 1
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", TablePath, i+1, c.Name, err)
		}
		calls = append(calls, c)
	}
	return calls, nil
}

func parseLine(line string) (*Call, error) {
	m := reLine.FindStringSubmatch(line)
	if m == nil {
		return nil, fmt.Errorf("not CLASS RETTYPE NAME(PARAMS): %q", line)
	}
	c := &Call{Ret: m[2], Name: m[3]}
	cls := strings.Split(m[1], "+")
	c.Class = cls[0]
	for _, f := range cls[1:] {
		switch f {
		case "pre":
			c.Pre = true
		case "post":
			c.Post = true
		case "mpi4":
			c.MPI4 = true
		case "removed":
			c.Removed = true
		default:
			return nil, fmt.Errorf("unknown class flag +%s", f)
		}
	}
	if _, ok := classes[c.Class]; !ok {
		return nil, fmt.Errorf("unknown class %q", c.Class)
	}
	params := strings.TrimSpace(m[4])
	if params == "void" || params == "" {
		return c, nil
	}
	for _, ps := range splitTop(params) {
		p, err := parseParam(strings.TrimSpace(ps))
		if err != nil {
			return nil, err
		}
		c.Params = append(c.Params, p)
	}
	return c, nil
}

// splitTop splits at commas outside braces.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func parseParam(s string) (Param, error) {
	p := Param{Attr: map[string]string{}}
	decl := s
	if i := strings.IndexByte(s, '{'); i >= 0 {
		if !strings.HasSuffix(s, "}") {
			return p, fmt.Errorf("role of %q does not end the parameter", s)
		}
		decl = strings.TrimSpace(s[:i])
		f := strings.Fields(s[i+1 : len(s)-1])
		if len(f) == 0 {
			return p, fmt.Errorf("empty role in %q", s)
		}
		p.Role = f[0]
		if !knownRoles[p.Role] {
			return p, fmt.Errorf("unknown role %q", p.Role)
		}
		for _, a := range f[1:] {
			k, v, _ := strings.Cut(a, "=")
			p.Attr[k] = v
		}
	}
	p.Decl = decl
	m := reIdent.FindStringSubmatch(decl)
	if m == nil {
		return p, fmt.Errorf("no parameter name in %q", decl)
	}
	p.Name = m[1]
	return p, nil
}

func (c *Call) param(name string) (Param, bool) {
	for _, p := range c.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// validate checks that the roles fit together: every parameter a side
// names exists and has the matching role.
func (c *Call) validate() error {
	need := func(name, role string) error {
		p, ok := c.param(name)
		if !ok {
			return fmt.Errorf("no parameter %q", name)
		}
		if p.Role != role {
			return fmt.Errorf("parameter %s has role %q, want %q", name, p.Role, role)
		}
		return nil
	}
	for _, p := range c.Params {
		if _, ok := p.Attr["collective"]; ok && (p.Role != "comm" || (c.Class != "comm-ctor" && c.Class != "topo") || p.Name != paramByRole(c, "comm")) {
			return fmt.Errorf("%s: collective is for the first {comm} of a comm-ctor or topo call (collectives agree already)", p.Name)
		}
		switch {
		case sideRoles[p.Role]:
			if t := p.Attr["t"]; t != "" && !strings.HasPrefix(t, "MPI_") {
				if err := need(t, "type"); err != nil {
					return err
				}
			}
			for _, k := range []string{"counts", "displs"} {
				if v := p.Attr[k]; v != "" {
					if err := need(v, k); err != nil {
						return err
					}
				}
			}
			if v := p.Attr["types"]; v != "" {
				if err := need(v, "types"); err != nil {
					return err
				}
			}
			if n := p.Attr["n"]; n != "" {
				if _, err := c.countExpr(n); err != nil {
					return err
				}
			} else if p.Attr["counts"] == "" {
				return fmt.Errorf("side %s has neither n= nor counts=", p.Name)
			}
			if v := p.Attr["from"]; v != "" {
				if _, ok := c.param(v); !ok || p.Attr["n"] == "" {
					return fmt.Errorf("side %s: from=%s needs a parameter of that name and n=", p.Name, v)
				}
				span := strings.SplitN(p.Attr["span"], ":", 2)
				if len(span) != 2 {
					return fmt.Errorf("side %s: from= needs span=COUNT:TYPE", p.Name)
				}
				for _, q := range span {
					if _, ok := c.param(q); !ok {
						return fmt.Errorf("side %s: span=%s: no parameter %q", p.Name, p.Attr["span"], q)
					}
				}
			}
			if (p.Attr["counts"] != "") != (p.Attr["displs"] != "") {
				return fmt.Errorf("side %s needs both counts= and displs=", p.Name)
			}
			if p.Attr["t"] == "" && p.Attr["types"] == "" {
				return fmt.Errorf("side %s has neither t= nor types=", p.Name)
			}
			if s := p.Attr["sig"]; s != "" && s != "root" && s != "leaf" && s != "both" {
				return fmt.Errorf("side %s: sig=%s", p.Name, s)
			}
			if s, ok := p.Attr["inplace"]; ok && s != "any" && s != "root" {
				return fmt.Errorf("side %s: inplace=%s", p.Name, s)
			}
		case p.Role == "newtype":
			// the constructor's old types go to mpidbg_type_new: one
			// {type} or one {types len=...} parameter, or none
			n := 0
			for _, q := range c.Params {
				if q.Role == "type" || q.Role == "types" {
					n++
				}
			}
			if n > 1 {
				return fmt.Errorf("%s: %d old-type parameters ({type}, {types}), at most 1", p.Name, n)
			}
		case p.Role == "newcomm":
			if r := p.Attr["deferred"]; r != "" {
				if err := need(r, "reqout"); err != nil {
					return err
				}
			}
			if f := p.Attr["copies"]; f != "" {
				if p.Attr["deferred"] != "" {
					return fmt.Errorf("%s: copies= and deferred= together: a deferred communicator gets no shadow", p.Name)
				}
				if err := need(f, "comm"); err != nil {
					return err
				}
			}
		case p.Role == "counts" || p.Role == "array" || p.Role == "types" || p.Role == "displs":
			if l := p.Attr["len"]; l != "" {
				if _, err := c.lenExpr(l); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// lenExpr turns a len= value into C.
func (c *Call) lenExpr(s string) (string, error) {
	switch s {
	case "size":
		return "mpidbg_nproc(&cx)", nil
	case "group":
		return "mpidbg_ngroup(&cx)", nil
	case "in":
		return "mpidbg_nin(&cx)", nil
	case "out":
		return "mpidbg_nout(&cx)", nil
	}
	if isNumber(s) {
		return s, nil
	}
	if _, ok := c.param(s); ok {
		return "(int64_t)" + s, nil
	}
	return "", fmt.Errorf("len=%s is neither size, group, in, out, a number nor a parameter", s)
}

// countExpr turns an n= value into C: P, P*size, P*group, P*in, P*out,
// sum(P), P[rank] or a number.
func (c *Call) countExpr(s string) (string, error) {
	if isNumber(s) {
		return s, nil
	}
	if strings.HasPrefix(s, "sum(") && strings.HasSuffix(s, ")") {
		name := s[4 : len(s)-1]
		p, ok := c.param(name)
		if !ok || p.Role != "counts" {
			return "", fmt.Errorf("sum(%s): not a counts parameter", name)
		}
		l, err := c.lenExpr(p.Attr["len"])
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("mpidbg_sum(%s, sizeof *%s, %s)", name, name, l), nil
	}
	if name, ok := strings.CutSuffix(s, "[rank]"); ok {
		p, ok := c.param(name)
		if !ok || p.Role != "counts" {
			return "", fmt.Errorf("%s: not a counts parameter", s)
		}
		return fmt.Sprintf("(%s ? (int64_t)%s[mpidbg_myrank(&cx)] : 0)", name, name), nil
	}
	name, mul, _ := strings.Cut(s, "*")
	p, ok := c.param(name)
	if !ok || p.Role != "count" {
		return "", fmt.Errorf("n=%s: %s is not a count parameter", s, name)
	}
	switch mul {
	case "":
		return "(int64_t)" + name, nil
	case "size":
		return fmt.Sprintf("(int64_t)%s * mpidbg_nproc(&cx)", name), nil
	case "group":
		return fmt.Sprintf("(int64_t)%s * mpidbg_ngroup(&cx)", name), nil
	case "in":
		return fmt.Sprintf("(int64_t)%s * mpidbg_nin(&cx)", name), nil
	case "out":
		return fmt.Sprintf("(int64_t)%s * mpidbg_nout(&cx)", name), nil
	}
	return "", fmt.Errorf("n=%s: unknown multiplier %s", s, mul)
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
