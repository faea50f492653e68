// Package envvar names every environment variable mpidbg reads or sets:
// the MPIDBG_* variables, and the variables of the dynamic loader, the MPI
// libraries, their launchers and the terminal that mpidbg reads or sets
// on the ranks' behalf or its own.
//
// The names are here rather than in wire because the rank protocol is
// only one of the paths they travel: mpidbg run and mpidbg dap set them
// for the ranks (read by the shim's C and Go), mpidbg gdb and mpidbg dap
// set them for gdb's extension and its helper, make sets them for the
// tests, and some only the tests read. One list keeps the readers in
// step: the package's test fails when shim/*.c passes getenv or setenv a
// variable, the gdb extension's Python reads one, or a non-test Go string
// names an MPIDBG_ variable, that is not declared here. Only the VS Code
// extension's tests read variables of their own (MPIDBG_REQUIRE_DAP,
// MPIDBG_DAP_STDERR).
package envvar

// The launcher (mpidbg run, mpidbg dap) sets these for every rank; the
// shim reads them in MPI_Init or before main.
const (
	// Report is where a rank connects to report: "unix:/path" or "tcp:host:port".
	Report = "MPIDBG_REPORT"
	// Token is the job's secret a rank sends first on its report connection; in the environment only, never on a command line.
	Token = "MPIDBG_TOKEN"
	// OnError is what a rank does after a finding: continue (the default), abort or stop.
	OnError = "MPIDBG_ON_ERROR"
	// Checks lists categories to turn off, comma-separated with a leading '-', e.g. "-leak".
	Checks = "MPIDBG_CHECKS"
	// Buffering is "zero" (standard-mode sends made synchronous, as an MPI with no buffer space may) or "eager", the default.
	Buffering = "MPIDBG_BUFFERING"
	// Preload is the dynamic loader's list of libraries to load first: the shim, then the user's.
	Preload = "LD_PRELOAD"
	// Path is where programs are looked for: a remote rank finds gdbserver on it before it forks.
	Path = "PATH"
)

// The forcing mode (mpidbg run --nasty, shim/nasty.c), read at MPI_Init.
// On/off values are "on" or "off" (the shim also takes 1/0 and
// true/false); durations are a number and a unit (ns, us, ms, s), e.g.
// "50us".
const (
	// Nasty is on to hold one-sided operations until a synchronisation call requires them.
	Nasty = "MPIDBG_NASTY"
	// NastySeed is the decimal seed of the random order, the same on every rank.
	NastySeed = "MPIDBG_NASTY_SEED"
	// NastyOrder is the order of issue: random, reverse, puts-first, gets-first or program.
	NastyOrder = "MPIDBG_NASTY_ORDER"
	// NastySplit is on to issue multi-element operations element by element.
	NastySplit = "MPIDBG_NASTY_SPLIT"
	// NastyFlush is on to call MPI_Win_flush after each issued operation in passive-target epochs.
	NastyFlush = "MPIDBG_NASTY_FLUSH"
	// NastyDelay is the sleep after each issued operation.
	NastyDelay = "MPIDBG_NASTY_DELAY"
	// NastyHoldTimeout is how long an operation is held before rma-unsynchronised is reported (0: never).
	NastyHoldTimeout = "MPIDBG_NASTY_HOLD_TIMEOUT"
	// NastyTrace is a file the order of issue is appended to, one line per operation.
	NastyTrace = "MPIDBG_NASTY_TRACE"
)

// The access tracker's knobs (docs/races.md), read at MPI_Init.
const (
	// Race turns the buffer-race tracker on or off.
	Race = "MPIDBG_RACE"
	// RaceSample is the longest sampling period per call site (a number from 1), or "all".
	RaceSample = "MPIDBG_RACE_SAMPLE"
	// RaceStats, when set, makes each rank print the tracker's counters at MPI_Finalize.
	RaceStats = "MPIDBG_RACE_STATS"
)

// The cross-rank checks' transport (docs/cross-rank.md), read at MPI_Init.
const (
	// NoNodeSegment, when set, makes the ranks of a host use shadow messages instead of shared memory (to compare the two).
	NoNodeSegment = "MPIDBG_NO_NODE_SEGMENT"
)

// The debugger handshake (shim/debugger.c, docs/dap.md): mpidbg dap sets
// these for every rank; the shim reads them before main.
const (
	// Debugger is the private directory where a rank announces itself and waits for gdb.
	Debugger = "MPIDBG_DEBUGGER"
	// DebuggerTimeout is how many seconds a rank waits for the debugger before it runs on.
	DebuggerTimeout = "MPIDBG_DEBUGGER_TIMEOUT"
	// DebuggerRanks lists the ranks that wait, comma-separated; unset, every rank waits.
	DebuggerRanks = "MPIDBG_DEBUGGER_RANKS"
	// DebuggerHost is the debugger's host name: a rank on another host announces itself at DebuggerAddr instead of in Debugger.
	DebuggerHost = "MPIDBG_DEBUGGER_HOST"
	// DebuggerAddr is HOST:PORT where a rank on another host than the debugger's connects and hands it a gdbserver.
	DebuggerAddr = "MPIDBG_DEBUGGER_ADDR"
	// DebuggerToken is the secret a rank sends first on its DebuggerAddr connection; in the environment only.
	DebuggerToken = "MPIDBG_DEBUGGER_TOKEN"
	// Gdbserver is the gdbserver a rank on another host starts attached to itself (default: gdbserver from PATH).
	Gdbserver = "MPIDBG_GDBSERVER"
)

// The shim sets these, unless they are set already, for the MPI library
// it runs under while the tracker is on: kernel-assisted copies fail on
// protected pages (ARCHITECTURE.md, decision 8).
const (
	// UCXTLS is UCX's list of transports; the shim excludes CMA ("^cma,tcp") when it is unset.
	UCXTLS = "UCX_TLS"
	// OMPIOsc is Open MPI's one-sided component list; the shim sets "^rdma".
	OMPIOsc = "OMPI_MCA_osc"
	// OMPISingleCopy is Open MPI's shared-memory single-copy mechanism; the shim sets "none".
	OMPISingleCopy = "OMPI_MCA_btl_vader_single_copy_mechanism"
	// UCXErrorSignals is UCX's list of signals it handles itself; the shim leaves out the program's own when it chose OMPIOsc.
	UCXErrorSignals = "UCX_ERROR_SIGNALS"
)

// The rank a launcher gives a process in its environment, read before
// MPI is initialised (by the shim's handshake, and by mpidbg dap from
// /proc/PID/environ), in this order.
const (
	// PMIRank is the rank under MPICH's Hydra (PMI).
	PMIRank = "PMI_RANK"
	// PMIxRank is the rank under a PMIx launcher.
	PMIxRank = "PMIX_RANK"
	// OMPIWorldRank is the rank under Open MPI's mpiexec.
	OMPIWorldRank = "OMPI_COMM_WORLD_RANK"
)

// What a launcher sets in the environment of a process it started for
// MPI_Comm_spawn, not as one of the job's ranks (the shim's handshake
// does not wait for the debugger there).
const (
	// PMISpawned is Hydra's (PMI): 1 in a spawned process.
	PMISpawned = "PMI_SPAWNED"
	// OMPIParentPort is Open MPI's: the parent's port, in a spawned process only.
	OMPIParentPort = "OMPI_PARENT_PORT"
)

// Open MPI's mpiexec refuses to run as root, and a singleton of Open MPI
// refuses it too, unless both of these are 1; it refuses more ranks than
// cores unless OMPIOversubscribe is 1. The tests set every variable of
// this group (internal/testenv says why); a user of mpidbg sets them for
// themselves.
const (
	// OMPIYieldWhenIdle is 1 for ranks that yield their core while they wait in MPI.
	OMPIYieldWhenIdle = "OMPI_MCA_mpi_yield_when_idle"
	// OMPIMTL lists the message transport layers Open MPI may open ("^a,b": all but a and b).
	OMPIMTL = "OMPI_MCA_mtl"
	// OMPIOversubscribe lets Open MPI's mpiexec start more ranks than there are cores.
	OMPIOversubscribe = "OMPI_MCA_rmaps_base_oversubscribe"
	// OMPIAllowRunAsRoot lets Open MPI run as root, with OMPIAllowRunAsRootConfirm.
	OMPIAllowRunAsRoot = "OMPI_ALLOW_RUN_AS_ROOT"
	// OMPIAllowRunAsRootConfirm confirms OMPIAllowRunAsRoot.
	OMPIAllowRunAsRootConfirm = "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"
)

// Slurm's commands and daemons read their configuration from SlurmConf;
// the tests' one-node cluster (internal/testenv) sets it.
const (
	// SlurmConf is the path of slurm.conf.
	SlurmConf = "SLURM_CONF"
	// SrunExportEnv is srun's --export when the command line has none.
	SrunExportEnv = "SRUN_EXPORT_ENV"
	// SlurmExportEnv is the export value sbatch --export leaves in a job's environment, which srun takes after SrunExportEnv.
	SlurmExportEnv = "SLURM_EXPORT_ENV"
)

// Open MPI's mpiexec reads its MCA parameters from OMPI_MCA_ variables.
const (
	// OMPIEnvList is mca_base_env_list: NAME=VALUE pairs, ';' between them, set for the ranks (as -x).
	OMPIEnvList = "OMPI_MCA_mca_base_env_list"
)

// mpidbg collect sets, for a batch script's own mpiexec (Hydra) lines.
const (
	// PreloadForRanks is the LD_PRELOAD value the ranks need: mpiexec -genv LD_PRELOAD "$MPIDBG_PRELOAD".
	PreloadForRanks = "MPIDBG_PRELOAD"
)

// mpidbg's own: where it finds its parts, and how it draws.
const (
	// Shim is the shim library to preload when --shim is not given.
	Shim = "MPIDBG_SHIM"
	// GdbExt is the gdb extension (its directory or its script) mpidbg gdb and mpidbg dap load.
	GdbExt = "MPIDBG_GDB_EXT"
	// Bin is the mpidbg executable the gdb extension starts its helper from; mpidbg sets it for gdb.
	Bin = "MPIDBG_BIN"
	// LibraryPath is the dynamic loader's search path, where mpidbg looks for the program's libmpi.
	LibraryPath = "LD_LIBRARY_PATH"
	// NoColor, set to anything, turns colour off (no-color.org).
	NoColor = "NO_COLOR"
	// Term is the terminal's type; "dumb" turns colour off.
	Term = "TERM"
	// ColorTerm is the terminal's colour support, which the renderer's colour detection reads.
	ColorTerm = "COLORTERM"
	// Columns is the width the report's text is wrapped to on a terminal, before the terminal's own.
	Columns = "COLUMNS"
)

// The tests' knobs: make test sets the first two, a developer the next
// ones; the fakes are the tests' own.
const (
	// RequireMPI, 1, makes a test fail instead of skip when an MPI library, a tool or gdb is missing.
	RequireMPI = "MPIDBG_REQUIRE_MPI"
	// RequireShim, 1, makes a test fail instead of skip when a shim library is missing.
	RequireShim = "MPIDBG_REQUIRE_SHIM"
	// ShimOpenMPI is the Open MPI shim the test harness uses instead of lib/'s (Shim is MPICH's).
	ShimOpenMPI = "MPIDBG_SHIM_OPENMPI"
	// DAPLog is a file the dap package's tests append every DAP message and gdb/MI line to.
	DAPLog = "MPIDBG_DAP_LOG"
	// FakeMPIExec, 1, makes cmd/mpidbg's test binary act as mpiexec.
	FakeMPIExec = "MPIDBG_FAKE_MPIEXEC"
	// FakeRecord is the file the fake mpiexec writes what it was given to.
	FakeRecord = "MPIDBG_FAKE_RECORD"
	// MPIExecTimeout is the seconds after which Hydra's mpiexec ends a job; the tests set it so that a hang ends.
	MPIExecTimeout = "MPIEXEC_TIMEOUT"
	// Record is a file a shim built with the record tag appends every finding's event to, for checks/testdata.
	Record = "MPIDBG_RECORD"
	// CI, true on a CI machine, makes the tests that need root (internal/nshosts) fail instead of skip without it.
	CI = "CI"
)
