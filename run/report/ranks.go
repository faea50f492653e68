package report

import (
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/internal/ranklist"
)

// FoldRanks writes sorted, distinct ranks as ranges: runs of three or
// more consecutive ranks become "first-last", the rest are listed, all
// joined by commas: [0 2 5 6 7] is "0,2,5-7", [0 1] is "0,1". ranks need
// not be sorted or distinct.
func FoldRanks(ranks []int) string {
	rs := slices.Clone(ranks)
	slices.Sort(rs)
	rs = slices.Compact(rs)
	return ranklist.Format(rs, ranklist.Compact)
}

// RanksPhrase is "rank 3" for one rank and "ranks 0-63" for several.
func RanksPhrase(ranks []int) string {
	f := FoldRanks(ranks)
	if len(ranks) == 1 || !strings.ContainsAny(f, ",-") {
		return "rank " + f
	}
	return "ranks " + f
}
