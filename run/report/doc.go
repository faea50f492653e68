// Package report is the data of an `mpidbg run` report: what the ranks of
// a job sent (Collector), and the report built from it (Build): findings
// merged across ranks, source locations resolved, ordered by severity,
// category and location, and the fate of every rank. It decides what the
// report says; package pretty only draws it.
//
// Merging: the reports of all ranks are folded into one finding per bug.
// Two reports are the same bug when they have the same id, the same
// places (the finding's source location and its related locations, as a
// set, so that both ends of a message or both sides of a collective are
// one set), the same type-tree path and the same message once every rank
// reference ("rank 3", "ranks 0-2", "process 5") is taken out of the
// message and its related texts: the text left is the datatypes' shapes
// and signatures, the references are where the bug happened. The folded
// finding's Ranks lists every rank, sorted; Count sums the reports. A
// message that names only the reporting rank says "each rank"; one that
// names a peer keeps one example pair, and Pattern says the rest ("each
// rank r sends to r+1 (mod 64); ranks 0-63", "ranks 1-7 send to rank 0").
// The reports of a collective mismatch, one per rank at its own call,
// are first made one, with the other calls as related places. See
// fold.go and docs/run.md, "How findings are merged".
package report
