// Package deadlock finds the ranks of an MPI job that can never continue,
// from what each rank is blocked in.
//
// The wait-for graph is over MPI_COMM_WORLD ranks in the AND/OR model: a
// blocked call lists its waits, and combines them with AND (MPI_Wait,
// MPI_Waitall, every blocking call: all must be satisfied) or OR
// (MPI_Waitany, MPI_Waitsome: one is enough). A receive from
// MPI_ANY_SOURCE is satisfied by any rank of its group (OR inside the
// wait); a collective by every member reaching it (AND inside the wait).
//
// A rank can continue when it is running, or when its waits are satisfied
// by ranks that can continue, or at once by a rank blocked in the matching
// operation: a send meets a posted receive and the other way round, and a
// member blocked in the same collective (same communicator, same number,
// same call) has arrived. Starting from the running ranks, that is
// propagated to a fixpoint; the blocked ranks left over can never
// continue. Ranks that finished (MPI_Finalize) or died never continue
// either, but they are not deadlocked themselves: they are where a chain
// ends.
//
// A rank that polls (MPI_Test in a loop on the same requests) is blocked
// on those requests like a rank in MPI_Wait. One-sided synchronisation
// takes part too: a fence or MPI_Win_free is a collective on its window;
// MPI_Win_wait, MPI_Win_start and MPI_Win_complete wait for the other
// side of their epoch only while it is stuck in a collective on the
// same window (Sync).
//
// Where the detector knows too little (a wait it cannot name, ranks the
// rank could not translate, a truncated list of waits) it assumes the
// wait can be satisfied: it reports fewer deadlocks rather than false
// ones.
//
// Cost: linear in ranks, waits and distinct groups. A wildcard receive's
// group and a collective are one node each, shared by every rank that
// waits on them, never an edge to every member from every waiter: 100,000
// ranks in MPI_Barrier are 100,000 waits on one node.
package deadlock
