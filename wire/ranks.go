package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
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
func (r Ranks) String() string {
	var b strings.Builder
	for i := 0; i < len(r); {
		j := i + 1
		step := 0
		if j < len(r) {
			step = r[j] - r[i]
			for j+1 < len(r) && r[j+1]-r[j] == step {
				j++
			}
			j++ // r[i:j] is a run with that step
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		switch n := j - i; {
		case n >= 3 && step == 1:
			fmt.Fprintf(&b, "%d-%d", r[i], r[j-1])
		case n >= 3 && step > 1:
			fmt.Fprintf(&b, "%d-%d:%d", r[i], r[j-1], step)
		default:
			b.WriteString(strconv.Itoa(r[i]))
			j = i + 1 // two ranks: write one, the next starts a run
		}
		i = j
	}
	return b.String()
}

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
	var out []int
	if s == "" {
		return nil, nil
	}
	for _, item := range strings.Split(s, ",") {
		lo, hi, step := item, item, "1"
		if a, b, ok := strings.Cut(item, "-"); ok {
			lo, hi = a, b
			if h, st, ok := strings.Cut(b, ":"); ok {
				hi, step = h, st
			}
		}
		a, err1 := strconv.Atoi(lo)
		z, err2 := strconv.Atoi(hi)
		d, err3 := strconv.Atoi(step)
		if err1 != nil || err2 != nil || err3 != nil || a < 0 || z < a || d < 1 {
			return nil, fmt.Errorf("%w: %q is not a rank, a run a-b or a run with a step a-b:s", errRanks, item)
		}
		if (z-a)/d+1 > MaxRanks-len(out) {
			return nil, fmt.Errorf("%w: more than %d ranks", errRanks, MaxRanks)
		}
		for x := a; x <= z; x += d {
			out = append(out, x)
		}
	}
	return MakeRanks(out), nil
}
