package registry

import "github.com/mpidbg/mpidbg/datatype"

// State is a record's state bits (enum mpidbg_state).
type State uint32

const (
	Live       State = 1 << 0
	Committed  State = 1 << 1
	Freed      State = 1 << 2
	Active     State = 1 << 3
	Persistent State = 1 << 4
	Predef     State = 1 << 5
)

func (s State) Has(b State) bool { return s&b != 0 }

// Type is a derived datatype record: the constructor and its arguments as
// MPI_Type_get_contents returns them, and what MPI said of the type.
type Type struct {
	Addr             uint64 // address of the record
	Handle           uint64
	Site, FreeSite   uint64
	Combiner         datatype.Combiner
	Ints             []int32
	Addrs            []int64
	Types            []uint64
	State            State
	Serial           uint32
	Size, LB, Extent int64
	TrueLB, TrueExt  int64
	OverlapCount     int64 // 0 never, -1 not known
	Name             string
	Fortran          int32 // its Fortran INTEGER handle (MPI_Type_c2f) while live, 0 not known
}

// ReadType decodes the type record at addr and its argument arrays.
func ReadType(r Reader, addr uint64) (Type, error) {
	x, err := read(r, addr, typeRecSize, "mpidbg_type")
	if err != nil {
		return Type{}, err
	}
	t := Type{
		Addr: addr, Handle: x.u64(0), Site: x.u64(8), FreeSite: x.u64(16),
		State: State(x.u32(64)), Serial: x.u32(68),
		Size: x.i64(72), LB: x.i64(80), Extent: x.i64(88), TrueLB: x.i64(96), TrueExt: x.i64(104),
		OverlapCount: x.i64(112), Name: x.str(120, nameMax),
	}
	c := x.i32(60)
	if c < 0 || c > int32(datatype.CombinerResized) {
		return Type{}, x.fail(60, "combiner", "%d is not a known combiner", c)
	}
	t.Combiner = datatype.Combiner(c)
	ni, err := x.count(48, "nints", maxArray)
	if err != nil {
		return Type{}, err
	}
	na, err := x.count(52, "naddrs", maxArray)
	if err != nil {
		return Type{}, err
	}
	nt, err := x.count(56, "ntypes", maxArray)
	if err != nil {
		return Type{}, err
	}
	if t.Ints, err = int32s(r, x.u64(24), ni, "mpidbg_type.ints"); err != nil {
		return Type{}, err
	}
	if t.Addrs, err = int64s(r, x.u64(32), na, "mpidbg_type.addrs"); err != nil {
		return Type{}, err
	}
	if t.Types, err = uint64s(r, x.u64(40), nt, "mpidbg_type.types"); err != nil {
		return Type{}, err
	}
	return t, nil
}

// ReqKind says how a request uses its buffers (enum mpidbg_req_kind).
type ReqKind uint32

const (
	ReqSend  ReqKind = 1
	ReqRecv  ReqKind = 2
	ReqColl  ReqKind = 3
	ReqRMA   ReqKind = 4
	ReqOther ReqKind = 5
)

func (k ReqKind) String() string {
	switch k {
	case ReqSend:
		return "send"
	case ReqRecv:
		return "recv"
	case ReqColl:
		return "collective"
	case ReqRMA:
		return "rma"
	}
	return "other"
}

// Request is a nonblocking or persistent operation.
type Request struct {
	Addr, Handle, Site, Buf, Datatype, Comm uint64
	Count                                   int64
	Peer, Tag, Call                         int32
	State                                   State
	Serial                                  uint32
	Kind                                    ReqKind
	Buf2, Datatype2                         uint64
	Count2                                  int64
}

func readRequest(r Reader, addr uint64) (Request, error) {
	x, err := read(r, addr, reqRecSize, "mpidbg_request")
	if err != nil {
		return Request{}, err
	}
	return Request{Addr: addr, Handle: x.u64(0), Site: x.u64(8), Buf: x.u64(16), Datatype: x.u64(24), Comm: x.u64(32),
		Count: x.i64(40), Peer: x.i32(48), Tag: x.i32(52), Call: x.i32(56), State: State(x.u32(60)),
		Serial: x.u32(64), Kind: ReqKind(x.u32(68)), Buf2: x.u64(72), Datatype2: x.u64(80), Count2: x.i64(88)}, nil
}

// Comm is a communicator with its ranks translated to MPI_COMM_WORLD.
type Comm struct {
	Addr, Handle, Site     uint64
	WorldRanks             []int32 // nil when the shim could not translate them
	Size, Rank, RemoteSize int32
	State                  State
	Serial                 uint32
	Name                   string
}

func readComm(r Reader, addr uint64) (Comm, error) {
	x, err := read(r, addr, commRecSize, "mpidbg_comm")
	if err != nil {
		return Comm{}, err
	}
	c := Comm{Addr: addr, Handle: x.u64(0), Site: x.u64(8), Rank: x.i32(28), RemoteSize: x.i32(32),
		State: State(x.u32(36)), Serial: x.u32(40), Name: x.str(48, nameMax)}
	n, err := x.count(24, "size", maxArray)
	if err != nil {
		return Comm{}, err
	}
	c.Size = int32(n)
	if x.u64(16) == 0 {
		return c, nil // the shim could not translate the ranks: not known
	}
	c.WorldRanks, err = int32s(r, x.u64(16), n, "mpidbg_comm.world_ranks")
	return c, err
}

// Group is an MPI group with its ranks translated to MPI_COMM_WORLD.
type Group struct {
	Addr, Handle, Site uint64
	WorldRanks         []int32
	Size, Rank         int32
	State              State
	Serial             uint32
}

func readGroup(r Reader, addr uint64) (Group, error) {
	x, err := read(r, addr, groupRecSize, "mpidbg_group")
	if err != nil {
		return Group{}, err
	}
	g := Group{Addr: addr, Handle: x.u64(0), Site: x.u64(8), Rank: x.i32(28), State: State(x.u32(32)), Serial: x.u32(36)}
	n, err := x.count(24, "size", maxArray)
	if err != nil {
		return Group{}, err
	}
	g.Size = int32(n)
	if x.u64(16) == 0 {
		return g, nil // not known
	}
	g.WorldRanks, err = int32s(r, x.u64(16), n, "mpidbg_group.world_ranks")
	return g, err
}

// Op is a user-defined reduction operation.
type Op struct {
	Addr, Handle, Site, Fn uint64
	Commute                bool
	State                  State
	Serial                 uint32
}

func readOp(r Reader, addr uint64) (Op, error) {
	x, err := read(r, addr, opRecSize, "mpidbg_op")
	if err != nil {
		return Op{}, err
	}
	return Op{Addr: addr, Handle: x.u64(0), Site: x.u64(8), Fn: x.u64(16), Commute: x.i32(24) != 0,
		State: State(x.u32(28)), Serial: x.u32(32)}, nil
}

// Win is an RMA window.
type Win struct {
	Addr, Handle, Site, Base uint64
	Size                     int64
	Comm                     uint64
	DispUnit                 int32
	State                    State
	Serial                   uint32
}

func readWin(r Reader, addr uint64) (Win, error) {
	x, err := read(r, addr, winRecSize, "mpidbg_win")
	if err != nil {
		return Win{}, err
	}
	return Win{Addr: addr, Handle: x.u64(0), Site: x.u64(8), Base: x.u64(16), Size: x.i64(24), Comm: x.u64(32),
		DispUnit: x.i32(40), State: State(x.u32(44)), Serial: x.u32(48)}, nil
}

// Finding is one slot of the findings ring.
type Finding struct {
	Seq, Site, RelatedSite uint64
	Rank                   int32
	Severity               uint32 // 0 error, 1 warning, 2 info
	ID, Category, Call     string
	Path, Message          string
}

func readFinding(r Reader, addr uint64) (Finding, error) {
	x, err := read(r, addr, findingSize, "mpidbg_finding")
	if err != nil {
		return Finding{}, err
	}
	return Finding{Seq: x.u64(0), Site: x.u64(8), RelatedSite: x.u64(16), Rank: x.i32(24), Severity: x.u32(28),
		ID: x.str(32, 48), Category: x.str(80, 24), Call: x.str(104, 40), Path: x.str(144, 200), Message: x.str(344, 600)}, nil
}
