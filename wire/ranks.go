package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mpidbg/mpidbg/internal/ranklist"
)

// Ranks is a set of MPI_COMM_WORLD ranks, sorted and distinct. On the
// wire it is a string of comma-separated items, each a rank ("7"), a run
// ("0-99") or a run with a step ("0-98:2"): a wildcard receive or a
// collective on MPI_COMM_WORLD of 100,000 ranks is "0-99999", not half a
// megabyte of numbers in every message. A JSON array of ranks is read too.
type Ranks []int

// MaxRanks bounds the ranks one set may hold when read, so that a bad
// "0-2000000000" cannot take the launcher's memory.
const MaxRanks = 1 << 22

// MakeRanks returns rs sorted and without duplicates (a new slice).
func MakeRanks(rs []int) Ranks {
	out := slices.Clone(rs)
	slices.Sort(out)
	return slices.Compact(out)
}

// String is the wire form: "0-3,7,10-20:2".
func (r Ranks) String() string { return ranklist.Format(r, ranklist.Wire) }

func (r Ranks) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

func (r *Ranks) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		var list []int
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		if len(list) > MaxRanks {
			return fmt.Errorf("ranks: %d ranks, more than %d", len(list), MaxRanks)
		}
		*r = MakeRanks(list)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	got, err := ParseRanks(s)
	if err != nil {
		return err
	}
	*r = got
	return nil
}

var errRanks = errors.New("ranks")

// ParseRanks reads the wire form of a set of ranks.
func ParseRanks(s string) (Ranks, error) {
	if s == "" {
		return nil, nil
	}
	runs, err := ranklist.Parse(s, ranklist.Wire)
	n := 0
	for _, r := range runs { // the runs before a bad item, if any, first
		if r.Len() > MaxRanks-n {
			return nil, fmt.Errorf("%w: more than %d ranks", errRanks, MaxRanks)
		}
		n += r.Len()
	}
	var bad *ranklist.ItemError
	if errors.As(err, &bad) {
		return nil, fmt.Errorf("%w: %q is not a rank, a run a-b or a run with a step a-b:s", errRanks, bad.Item)
	}
	out := make([]int, 0, n)
	for _, r := range runs {
		for x := r.First; x <= r.Last; x += r.Step {
			out = append(out, x)
		}
	}
	return MakeRanks(out), nil
}
