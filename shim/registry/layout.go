package registry

// Byte offsets and sizes of the structures in shim/reg.h version 1,
// for LP64 (x86_64, aarch64). The shim's tests compare them with the C
// compiler's offsetof, so the two cannot drift apart silently.

const (
	magic         = "MPIDBGR\x00"
	Version       = 1
	numChunks     = 32
	nameMax       = 64
	headerSizeV1  = 1976 // the header before the pysites table was appended
	headerSize    = headerSizeV1 + tableSize
	tableSize     = 16 + 8*numChunks
	predefSize    = 16
	typeRecSizeV1 = 184 // the type record before fhandle was appended
	typeRecSize   = 192
	reqRecSize    = 96
	commRecSize   = 112
	groupRecSize  = 40
	opRecSize     = 40
	winRecSize    = 56
	findingSize   = 944
	pysiteSize    = 40
	maxRecords    = 1 << 24 // more records than any real program makes
	maxArray      = 1 << 22 // longest constructor argument array or rank list
	maxFirstChunk = 1 << 20
	maxRecSize    = 1 << 16
	maxFindings   = 1 << 16
)

// Offsets lists every field's offset as "struct.field" (and every
// structure's size as "struct"), for the layout test against the C side.
var Offsets = map[string]int64{
	"mpidbg_registry": headerSize, "mpidbg_registry.magic": 0, "mpidbg_registry.version": 8,
	"mpidbg_registry.header_size": 12, "mpidbg_registry.generation": 16, "mpidbg_registry.mpi": 24,
	"mpidbg_registry.handle_size": 28, "mpidbg_registry.world_rank": 32, "mpidbg_registry.world_size": 36,
	"mpidbg_registry.pid": 40, "mpidbg_registry.flags": 44, "mpidbg_registry.findings_total": 48,
	"mpidbg_registry.findings_cap": 56, "mpidbg_registry.findings": 64, "mpidbg_registry.predefined": 72,
	"mpidbg_registry.types": 72 + tableSize, "mpidbg_registry.requests": 72 + 2*tableSize,
	"mpidbg_registry.comms": 72 + 3*tableSize, "mpidbg_registry.groups": 72 + 4*tableSize,
	"mpidbg_registry.ops": 72 + 5*tableSize, "mpidbg_registry.wins": 72 + 6*tableSize,
	"mpidbg_registry.pysites": headerSizeV1,

	"mpidbg_table": tableSize, "mpidbg_table.rec_size": 0, "mpidbg_table.count": 4,
	"mpidbg_table.first_chunk": 8, "mpidbg_table.chunks": 16,

	"mpidbg_predef": predefSize, "mpidbg_predef.handle": 0, "mpidbg_predef.basic": 8, "mpidbg_predef.fhandle": 12,

	"mpidbg_type": typeRecSize, "mpidbg_type.handle": 0, "mpidbg_type.site": 8, "mpidbg_type.free_site": 16,
	"mpidbg_type.ints": 24, "mpidbg_type.addrs": 32, "mpidbg_type.types": 40, "mpidbg_type.nints": 48,
	"mpidbg_type.naddrs": 52, "mpidbg_type.ntypes": 56, "mpidbg_type.combiner": 60, "mpidbg_type.state": 64,
	"mpidbg_type.serial": 68, "mpidbg_type.size": 72, "mpidbg_type.lb": 80, "mpidbg_type.extent": 88,
	"mpidbg_type.true_lb": 96, "mpidbg_type.true_extent": 104, "mpidbg_type.overlap_count": 112,
	"mpidbg_type.name": 120, "mpidbg_type.fhandle": 184,

	"mpidbg_request": reqRecSize, "mpidbg_request.handle": 0, "mpidbg_request.site": 8, "mpidbg_request.buf": 16,
	"mpidbg_request.datatype": 24, "mpidbg_request.comm": 32, "mpidbg_request.count": 40, "mpidbg_request.peer": 48,
	"mpidbg_request.tag": 52, "mpidbg_request.call": 56, "mpidbg_request.state": 60, "mpidbg_request.serial": 64,
	"mpidbg_request.kind": 68, "mpidbg_request.buf2": 72, "mpidbg_request.datatype2": 80, "mpidbg_request.count2": 88,

	"mpidbg_comm": commRecSize, "mpidbg_comm.handle": 0, "mpidbg_comm.site": 8, "mpidbg_comm.world_ranks": 16,
	"mpidbg_comm.size": 24, "mpidbg_comm.rank": 28, "mpidbg_comm.remote_size": 32, "mpidbg_comm.state": 36,
	"mpidbg_comm.serial": 40, "mpidbg_comm.name": 48,

	"mpidbg_group": groupRecSize, "mpidbg_group.handle": 0, "mpidbg_group.site": 8, "mpidbg_group.world_ranks": 16,
	"mpidbg_group.size": 24, "mpidbg_group.rank": 28, "mpidbg_group.state": 32, "mpidbg_group.serial": 36,

	"mpidbg_op": opRecSize, "mpidbg_op.handle": 0, "mpidbg_op.site": 8, "mpidbg_op.fn": 16,
	"mpidbg_op.commute": 24, "mpidbg_op.state": 28, "mpidbg_op.serial": 32,

	"mpidbg_win": winRecSize, "mpidbg_win.handle": 0, "mpidbg_win.site": 8, "mpidbg_win.base": 16,
	"mpidbg_win.size": 24, "mpidbg_win.comm": 32, "mpidbg_win.disp_unit": 40, "mpidbg_win.state": 44,
	"mpidbg_win.serial": 48,

	"mpidbg_pysite": pysiteSize, "mpidbg_pysite.file": 0, "mpidbg_pysite.function": 8, "mpidbg_pysite.native": 16,
	"mpidbg_pysite.code": 24, "mpidbg_pysite.line": 32, "mpidbg_pysite.offset": 36,

	"mpidbg_finding": findingSize, "mpidbg_finding.seq": 0, "mpidbg_finding.site": 8,
	"mpidbg_finding.related_site": 16, "mpidbg_finding.rank": 24, "mpidbg_finding.severity": 28,
	"mpidbg_finding.id": 32, "mpidbg_finding.category": 80, "mpidbg_finding.call": 104,
	"mpidbg_finding.path": 144, "mpidbg_finding.message": 344,
}
