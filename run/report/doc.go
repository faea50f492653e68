// Package report is the data of an `mpidbg run` report: what the ranks of
// a job sent (Collector), and the report built from it (Build): findings
// merged across ranks, source locations resolved, ordered by severity,
// category and location, and the fate of every rank. It decides what the
// report says; package pretty only draws it.
//
// Merging: two findings are one when they have the same id, call, source
// location, type-tree path and message once the reporting rank's own
// number is taken out of the message ("rank 3 sends ..." and "rank 5
// sends ..." from ranks 3 and 5 are the same finding). The merged
// finding's Ranks lists every rank, sorted; its message says "each rank"
// where the single-rank messages named the rank; Count says how often it
// was reported in all.
package report
