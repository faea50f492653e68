package report

import (
	"slices"
	"strconv"
	"strings"
)

// FoldRanks writes sorted, distinct ranks as ranges: runs of three or
// more consecutive ranks become "first-last", the rest are listed, all
// joined by commas: [0 2 5 6 7] is "0,2,5-7", [0 1] is "0,1". ranks need
// not be sorted or distinct.
func FoldRanks(ranks []int) string {
	rs := slices.Clone(ranks)
	slices.Sort(rs)
	rs = slices.Compact(rs)
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1] == rs[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch {
		case j-i >= 2:
			b.WriteString(strconv.Itoa(rs[i]) + "-" + strconv.Itoa(rs[j]))
		case j-i == 1:
			b.WriteString(strconv.Itoa(rs[i]) + "," + strconv.Itoa(rs[j]))
		default:
			b.WriteString(strconv.Itoa(rs[i]))
		}
		i = j + 1
	}
	return b.String()
}

// RanksPhrase is "rank 3" for one rank and "ranks 0-63" for several.
func RanksPhrase(ranks []int) string {
	f := FoldRanks(ranks)
	if len(ranks) == 1 || !strings.ContainsAny(f, ",-") {
		return "rank " + f
	}
	return "ranks " + f
}
