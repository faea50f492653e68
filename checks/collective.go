package checks

// Collective agreement: the ranks of a communicator call the same
// collective, in the same order, with the same root, operation and
// matching signatures (shim/xr_coll.c).

var collectiveMismatch = register(Check{
	Entry: Entry{ID: "collective-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the ranks of a communicator call different collectives at the same point",
		Rule:  "MPI-4.1 §6.1: all processes of the group must call the same collective operations on a communicator in the same order; a blocking call never matches a nonblocking one (§6.12)",
		Doc: `Collectives match by order on each communicator: the n-th collective of
one rank meets the n-th collective of every other. If rank 0 calls
MPI_Barrier while rank 1 calls MPI_Bcast, or one rank calls MPI_Allreduce
and another MPI_Iallreduce, the job hangs or computes garbage depending on
the algorithms. The report lists which ranks called what, and where. The
usual cause is a collective inside a branch that only some ranks take.`},
	Message: detectorText,
})

var collectiveRootMismatch = register(Check{
	Entry: Entry{ID: "collective-root-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the ranks of a rooted collective give different roots",
		Rule:  "MPI-4.1 §6.1: the root argument must have the same value on all processes",
		Doc: `MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v) and their nonblocking
and persistent forms need the same root on every rank. With different roots
data goes to the wrong place or the job hangs.`},
	Message: detectorText,
})

var collectiveOpMismatch = register(Check{
	Entry: Entry{ID: "collective-op-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the ranks of a reduction give different operations",
		Rule:  "MPI-4.1 §6.9.1: the op argument must be the same on all processes",
		Doc: `Every rank of a reduction (MPI_Reduce, MPI_Allreduce, MPI_Scan, MPI_Exscan,
MPI_Reduce_scatter...) must pass the same operation; which one MPI applies
where is otherwise undefined.`},
	Message: detectorText,
})

var collectiveTypeMismatch = register(Check{
	Entry: Entry{ID: "collective-type-mismatch", Category: CatCollective, Severity: SevError,
		Title: "the amounts or type signatures of a collective differ between ranks",
		Rule:  "MPI-4.1 §6.1: the amount of data sent must equal the amount received, pairwise between each process and the root; type signatures must match exactly (no partial receive)",
		Doc: `Unlike point-to-point, a collective's receive may not take a prefix: each
block sent must match the block received at the other end, element by
element. For the v and w variants every count and datatype pair is
compared with its partner on the other rank. The report names the ranks and
the counts and datatypes on each side.`},
	Message: detectorText,
})
