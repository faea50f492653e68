package main

import (
	"testing"
	"time"
)

func TestParseCounts(t *testing.T) {
	got, err := parseCounts("2, 4,256")
	if err != nil || len(got) != 3 || got[0] != 2 || got[1] != 4 || got[2] != 256 {
		t.Errorf("parseCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "x", "2,,4"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) accepted", bad)
		}
	}
}

func TestLastExit(t *testing.T) {
	out := "EXIT 1000000000\nmpidbg: 1 warning\nEXIT 3000000000\nEXIT 2000000000\n"
	if got := lastExit(out); !got.Equal(time.Unix(3, 0)) {
		t.Errorf("lastExit = %v, want 3 s after the epoch", got)
	}
	if got := lastExit("nothing\n"); !got.IsZero() {
		t.Errorf("lastExit without EXIT lines = %v", got)
	}
}

func TestFolded(t *testing.T) {
	one := "warning · leak-type · leak · MPI_Type_contiguous · ranks 0-255\n  1 datatype made here never freed\n"
	if err := folded(one, 256); err != nil {
		t.Error(err)
	}
	if err := folded("warning · leak-type · leak · MPI_Type_contiguous · ranks 0,1\n", 2); err != nil {
		t.Error(err)
	}
	if folded("warning · leak-type · leak · MPI_Type_contiguous · ranks 0-254\n", 256) == nil {
		t.Error("a finding missing a rank passed")
	}
	two := "warning · leak-type · leak · X · ranks 0-3\nwarning · leak-type · leak · X · ranks 0-3\n"
	if folded(two, 4) == nil {
		t.Error("two findings passed")
	}
}
