package wire

// The forcing mode (`mpidbg run --nasty`, shim/nasty.c): the launcher
// sets these for every rank; the shim reads them at MPI_Init. On/off
// values are "on" or "off" (the shim also takes 1/0 and true/false);
// durations are a number and a unit (ns, us, ms, s), e.g. "50us".
const (
	EnvNasty            = "MPIDBG_NASTY"              // on: hold one-sided operations until a synchronisation call requires them
	EnvNastySeed        = "MPIDBG_NASTY_SEED"         // decimal seed of the random order, the same on every rank
	EnvNastyOrder       = "MPIDBG_NASTY_ORDER"        // random, reverse, puts-first, gets-first or program
	EnvNastySplit       = "MPIDBG_NASTY_SPLIT"        // on: issue multi-element operations element by element
	EnvNastyFlush       = "MPIDBG_NASTY_FLUSH"        // on: MPI_Win_flush after each issued operation in passive-target epochs
	EnvNastyDelay       = "MPIDBG_NASTY_DELAY"        // sleep after each issued operation
	EnvNastyHoldTimeout = "MPIDBG_NASTY_HOLD_TIMEOUT" // report rma-unsynchronised after an operation is held this long (0: never)
	EnvNastyTrace       = "MPIDBG_NASTY_TRACE"        // append the order of issue to this file (one line per operation)
)

// The access tracker's knobs (docs/races.md).
const (
	EnvRace       = "MPIDBG_RACE"        // on or off
	EnvRaceSample = "MPIDBG_RACE_SAMPLE" // the longest sampling period per call site (a number from 1), or "all"
)
