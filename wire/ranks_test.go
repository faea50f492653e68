package wire

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func TestRanks(t *testing.T) {
	tests := []struct {
		in   []int
		wire string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{0, 1}, "0,1"},
		{[]int{0, 1, 2, 3}, "0-3"},
		{[]int{0, 2, 5}, "0,2,5"},
		{[]int{0, 2, 4, 6, 9}, "0-6:2,9"},
		{[]int{0, 1, 3, 5, 7}, "0,1-7:2"},
		{[]int{7, 3, 3, 5}, "3-7:2"},
		{seq(0, 100000), "0-99999"},
	}
	for _, tt := range tests {
		r := MakeRanks(tt.in)
		if got := r.String(); got != tt.wire {
			t.Errorf("%v: got %q, want %q", short(tt.in), got, tt.wire)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Ranks
		if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back, r) {
			t.Errorf("%v: read back %v, %v", short(tt.in), short(back), err)
		}
	}
	var fromArray Ranks
	if err := json.Unmarshal([]byte(`[5,1,1,0]`), &fromArray); err != nil || !slices.Equal(fromArray, Ranks{0, 1, 5}) {
		t.Errorf("array: got %v, %v", fromArray, err)
	}
}

func TestParseRanksErrors(t *testing.T) {
	for _, in := range []string{"x", "1-", "-1", "5-3", "0-9:0", "0-9:-1", "1,,2", "0-2000000000", "0-4194304"} {
		if _, err := ParseRanks(in); !errors.Is(err, errRanks) {
			t.Errorf("%q: got %v, want an error", in, err)
		}
	}
	if r, err := ParseRanks("0-4194303"); err != nil || len(r) != MaxRanks {
		t.Errorf("MaxRanks ranks: got %d, %v", len(r), err)
	}
	var r Ranks
	if err := json.Unmarshal(make([]byte, 0), &r); err == nil {
		t.Errorf("empty input: no error")
	}
}

func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func short(r []int) []int {
	if len(r) > 8 {
		return r[:8]
	}
	return r
}
