package report

import "github.com/mpidbg/mpidbg/internal/ranklist"

// FoldRanks writes sorted, distinct ranks as ranges (ranklist.Set).
func FoldRanks(ranks []int) string { return ranklist.Set(ranks) }

// RanksPhrase is "rank 3" for one rank and "ranks 0-63" for several
// (ranklist.Phrase).
func RanksPhrase(ranks []int) string { return ranklist.Phrase(ranks) }
