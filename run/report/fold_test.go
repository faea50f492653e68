package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/wire"
)

// job64 is a synthetic collector of a 64-rank job: each rank says hello,
// sends what report gives it, and says goodbye.
func job64(t *testing.T, report func(rank int) []*checks.Finding) *Report {
	t.Helper()
	const size = 64
	c := NewCollector()
	for rank := 0; rank < size; rank++ {
		cn := c.Conn()
		cn.Handle(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: size, PID: 1000 + rank}})
		fs := report(rank)
		for _, f := range fs {
			if f.Ranks == nil {
				f.Ranks = []int{rank}
			}
			cn.Handle(wire.Message{Kind: wire.KindFinding, Finding: f})
		}
		cn.Handle(bye(rank, len(fs)))
		cn.End(nil)
	}
	return Build(c, Job{Size: size}, fakeResolver{})
}

// at is a site of /bin/app that fakeResolver puts on line.
func at(line int) checks.Site { return checks.Site{Module: "/bin/app", Offset: uint64(2 * line)} }

// mismatch is the type-mismatch a receiving rank reports for a message
// from the sending rank, received at line 30 and sent at line 20.
func mismatch(from, to int) *checks.Finding {
	return &checks.Finding{ID: "type-mismatch", Category: checks.CatTypeMismatch, Severity: checks.SevError, Call: "MPI_Recv",
		Message: fmt.Sprintf("rank %d sends MPI_INT[0] where rank %d receives MPI_DOUBLE[0]: element 0 (packed byte 0) of the message is MPI_INT on the sending side and MPI_DOUBLE on the receiving side (1 x MPI_INT sent, 1 x MPI_DOUBLE received)", from, to),
		Path:    "MPI_DOUBLE[0]", Site: at(30),
		Related: []checks.Related{{Message: fmt.Sprintf("rank %d sent the message with MPI_Send", from), Site: at(20)}}}
}

// only1 returns the report's only finding, or fails.
func only1(t *testing.T, r *Report) Finding {
	t.Helper()
	if len(r.Findings) != 1 {
		var got []string
		for _, f := range r.Findings {
			got = append(got, fmt.Sprintf("%s %v x%d: %s [%s]", f.ID, f.Ranks, f.Count, f.Message, f.Pattern))
		}
		t.Fatalf("got %d findings, want 1:\n%s", len(r.Findings), strings.Join(got, "\n"))
	}
	return r.Findings[0]
}

func TestFold64(t *testing.T) {
	all := make([]int, 64)
	for i := range all {
		all[i] = i
	}
	tests := []struct {
		name    string
		report  func(rank int) []*checks.Finding
		ranks   []int
		count   int
		pattern string
		message string // its start
		related string
	}{
		{
			name:    "ring_right",
			report:  func(r int) []*checks.Finding { return []*checks.Finding{mismatch((r+63)%64, r)} },
			ranks:   all,
			count:   64,
			pattern: "each rank r sends to r+1 (mod 64); ranks 0-63",
			message: "rank 0 sends MPI_INT[0] where rank 1 receives MPI_DOUBLE[0]",
			related: "rank 0 sent the message with MPI_Send",
		},
		{
			name:    "ring_left",
			report:  func(r int) []*checks.Finding { return []*checks.Finding{mismatch((r+1)%64, r)} },
			ranks:   all,
			count:   64,
			pattern: "each rank r sends to r-1 (mod 64); ranks 0-63",
			message: "rank 0 sends MPI_INT[0] where rank 63 receives",
		},
		{
			name: "chain_right", // no wrap: rank 0 receives nothing
			report: func(r int) []*checks.Finding {
				if r == 0 {
					return nil
				}
				return []*checks.Finding{mismatch(r-1, r)}
			},
			ranks:   all[1:],
			count:   63,
			pattern: "each rank r sends to r+1; ranks 0-62",
			message: "rank 0 sends MPI_INT[0] where rank 1 receives",
		},
		{
			name: "all_to_root",
			report: func(r int) []*checks.Finding {
				if r != 0 {
					return nil
				}
				var fs []*checks.Finding
				for from := 1; from < 64; from++ {
					fs = append(fs, mismatch(from, 0))
				}
				return fs
			},
			ranks:   []int{0},
			count:   63,
			pattern: "ranks 1-63 send to rank 0",
			message: "rank 1 sends MPI_INT[0] where rank 0 receives",
			related: "rank 1 sent the message with MPI_Send",
		},
		{
			name: "root_to_all", // the peer is the same everywhere: the message says it all
			report: func(r int) []*checks.Finding {
				if r == 0 {
					return nil
				}
				return []*checks.Finding{mismatch(0, r)}
			},
			ranks:   all[1:],
			count:   63,
			message: "rank 0 sends MPI_INT[0] where each rank receives",
			related: "rank 0 sent the message with MPI_Send",
		},
		{
			name:    "pairs",
			report:  func(r int) []*checks.Finding { return []*checks.Finding{mismatch(r^1, r)} },
			ranks:   all,
			count:   64,
			pattern: "each rank r sends to r xor 1; ranks 0-63",
			message: "rank 0 sends MPI_INT[0] where rank 1 receives",
		},
		{
			name: "scattered",
			report: func(r int) []*checks.Finding {
				if r%4 != 0 {
					return nil
				}
				return []*checks.Finding{mismatch((r*7+3)%64, r)}
			},
			count:   16,
			pattern: "rank 3 sends to 0, 7 to 28, 11 to 56, 15 to 20 and 12 more",
			message: "rank 3 sends MPI_INT[0] where rank 0 receives",
		},
		{
			name: "master_worker", // the master receives 4, 31 and 5 results of the wrong type
			report: func(r int) []*checks.Finding {
				if r != 0 {
					return nil
				}
				var fs []*checks.Finding
				for from, n := range map[int]int{1: 4, 2: 31, 3: 5} {
					for range n {
						fs = append(fs, mismatch(from, 0))
					}
				}
				return fs
			},
			ranks:   []int{0},
			count:   40,
			pattern: "ranks 1-3 send to rank 0",
			message: "rank 1 sends MPI_INT[0] where rank 0 receives",
		},
		{
			name: "collective_both_sides", // rank 63 calls with another op, on another line
			report: func(r int) []*checks.Finding {
				f := &checks.Finding{ID: "collective-op-mismatch", Category: checks.CatCollective, Severity: checks.SevError, Call: "MPI_Allreduce",
					Message: "the ranks of the communicator disagree: ranks 0-62 MPI_Allreduce with op MPI_SUM; rank 63 MPI_Allreduce with op MPI_MAX",
					Site:    at(40)}
				if r == 63 {
					f.Site = at(44)
				}
				return []*checks.Finding{f}
			},
			ranks:   all,
			count:   64,
			message: "the ranks of the communicator disagree: ranks 0-62 MPI_Allreduce with op MPI_SUM; rank 63 MPI_Allreduce with op MPI_MAX",
			related: "rank 63 called MPI_Allreduce here",
		},
		{
			name: "rma_target", // each rank puts to its right neighbour outside an epoch
			report: func(r int) []*checks.Finding {
				return []*checks.Finding{{ID: "rma-outside-epoch", Category: checks.CatEpochLifecycle, Severity: checks.SevError, Call: "MPI_Put",
					Message: fmt.Sprintf("MPI_Put: no access epoch of this process covers target rank %d: no fence epoch is open", (r+1)%64), Site: at(50)}}
			},
			ranks:   all,
			count:   64,
			pattern: "each rank r targets r+1 (mod 64); ranks 0-63",
			message: "MPI_Put: no access epoch of this process covers target rank 1:",
		},
		{
			name: "handles", // Open MPI's handles are pointers: each rank has its own value
			report: func(r int) []*checks.Finding {
				return []*checks.Finding{{ID: "invalid-handle", Call: "MPI_Send", Site: at(12),
					Message: fmt.Sprintf("MPI_Send: comm %#x is a communicator that was freed", 0x55d0a000+16*r)}}
			},
			ranks:   all,
			count:   64,
			message: "MPI_Send: comm 0x55d0a000 (rank 0's; it differs by rank) is a communicator that was freed",
		},
		{
			name: "lost_messages", // the destination reports each sender's lost message
			report: func(r int) []*checks.Finding {
				if r != 0 {
					return nil
				}
				var fs []*checks.Finding
				for from := 1; from < 64; from++ {
					fs = append(fs, &checks.Finding{ID: "lost-message", Call: "MPI_Finalize", Ranks: []int{from}, Site: at(31),
						Message: fmt.Sprintf("rank %d sent a message (2 element(s), tag 2, MPI_COMM_WORLD) that its destination never received", from)})
				}
				return fs
			},
			ranks:   all,
			count:   63,
			message: "each of ranks 1-63 sent a message (2 element(s), tag 2, MPI_COMM_WORLD) that its destination never received",
		},
		{
			name: "own_rank_only",
			report: func(r int) []*checks.Finding {
				return []*checks.Finding{{ID: "invalid-tag", Call: "MPI_Send", Message: fmt.Sprintf("MPI_Send: tag -1 on rank %d is negative", r), Site: at(10)}}
			},
			ranks:   all,
			count:   64,
			message: "MPI_Send: tag -1 on each rank is negative",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := job64(t, tt.report)
			f := only1(t, r)
			if tt.ranks != nil && !slices.Equal(f.Ranks, tt.ranks) {
				t.Errorf("ranks %v, want %v", f.Ranks, tt.ranks)
			}
			if f.Count != tt.count {
				t.Errorf("count %d, want %d", f.Count, tt.count)
			}
			if f.Pattern != tt.pattern {
				t.Errorf("pattern %q, want %q", f.Pattern, tt.pattern)
			}
			if !strings.HasPrefix(f.Message, tt.message) {
				t.Errorf("message %q, want it to start with %q", f.Message, tt.message)
			}
			if tt.related != "" && (len(f.Related) == 0 || f.Related[0].Message != tt.related) {
				t.Errorf("related %+v, want %q first", f.Related, tt.related)
			}
			if r.Count(f.Severity) != 1 {
				t.Errorf("%d %s findings, want 1", r.Count(f.Severity), f.Severity)
			}
		})
	}
}

// TestFoldKey: what makes two reports different bugs.
func TestFoldKey(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		f := mismatch((rank+63)%64, rank)
		switch {
		case rank >= 48: // another receive line
			f.Site = at(32)
		case rank >= 32: // another element of the type
			f.Path = "MPI_DOUBLE[1]"
		case rank >= 16: // another signature
			f.Message = strings.ReplaceAll(f.Message, "MPI_DOUBLE", "MPI_FLOAT")
		}
		return []*checks.Finding{f}
	})
	if len(r.Findings) != 4 {
		t.Fatalf("got %d findings, want 4", len(r.Findings))
	}
	for _, f := range r.Findings {
		if len(f.Ranks) != 16 || f.Count != 16 || !strings.HasPrefix(f.Pattern, "each rank r sends to r+1") {
			t.Errorf("%v x%d %q: want 16 ranks, 16 times, a shift", f.Ranks, f.Count, f.Pattern)
		}
	}
	if got := r.Count(checks.SevError); got != 4 {
		t.Errorf("%d errors, want 4", got)
	}
}

// TestFoldCounts: a mismatch between the same two lines, whose message
// grows in each round of a loop, is one bug however many counts it had.
func TestFoldCounts(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		var fs []*checks.Finding
		for round := 1; round <= 3; round++ {
			f := mismatch((rank+63)%64, rank)
			f.Message = strings.ReplaceAll(f.Message, "(1 x MPI_INT sent, 1 x MPI_DOUBLE received)",
				fmt.Sprintf("(%d x MPI_INT sent, %d x MPI_DOUBLE received)", 2*round, round))
			fs = append(fs, f)
		}
		return fs
	})
	f := only1(t, r)
	if f.Count != 3*64 || !strings.Contains(f.Message, "(2 x MPI_INT sent, 1 x MPI_DOUBLE received)") {
		t.Errorf("x%d %q: want 192 times, the first round's counts as the example", f.Count, f.Message)
	}
	// the digits of a type's name are its signature, not a count
	w := job64(t, func(rank int) []*checks.Finding {
		f := mismatch((rank+63)%64, rank)
		if rank%2 == 1 {
			f.Message = strings.ReplaceAll(f.Message, "MPI_INT", "MPI_INT32_T")
		} else {
			f.Message = strings.ReplaceAll(f.Message, "MPI_INT", "MPI_INT64_T")
		}
		return []*checks.Finding{f}
	})
	if len(w.Findings) != 2 {
		t.Errorf("MPI_INT32_T and MPI_INT64_T sent: got %d findings, want 2", len(w.Findings))
	}
}

// TestFoldAccessOffsets: a load from a pending receive's buffer at one
// line, hit at another offset and element in each rank (its threads reach
// different parts of the buffer), is one bug; at another line, another.
func TestFoldAccessOffsets(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		line := 40
		if rank >= 48 {
			line = 41
		}
		return []*checks.Finding{{ID: "recv-buffer-access", Category: checks.CatBufferRace, Severity: checks.SevError,
			Call: "MPI_Irecv", Site: at(line), Path: fmt.Sprintf("[%d](DOUBLE)", rank%3),
			Message: fmt.Sprintf("load from the receive buffer (256 x MPI_DOUBLE) at offset %d, element [%d](DOUBLE), before the receive completed", 8*(rank%3), rank%3),
			Related: []checks.Related{{Message: "the MPI_Irecv started here", Site: at(35)}}}}
	})
	if len(r.Findings) != 2 {
		t.Fatalf("got %d findings, want 2 (one per access line)", len(r.Findings))
	}
	if f := r.Findings[0]; f.Count != 48 || len(f.Ranks) != 48 || !strings.Contains(f.Message, "at offset 0, element [0](DOUBLE)") {
		t.Errorf("%v x%d %q: want ranks 0-47, 48 times, rank 0's offset as the example", f.Ranks, f.Count, f.Message)
	}
	// a type-tree path of its own still tells other findings apart
	m := job64(t, func(rank int) []*checks.Finding {
		f := mismatch((rank+63)%64, rank)
		if rank%2 == 1 {
			f.Path = "MPI_DOUBLE[1]"
		}
		return []*checks.Finding{f}
	})
	if len(m.Findings) != 2 {
		t.Errorf("type-mismatch at two paths: got %d findings, want 2", len(m.Findings))
	}
}

// TestFoldSendRecvSides: a bug reported from both ends of a message, each
// at its own call with the other's as related place, is one.
func TestFoldSendRecvSides(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		if rank > 1 {
			return nil
		}
		f := &checks.Finding{ID: "type-mismatch", Category: checks.CatTypeMismatch, Severity: checks.SevError, Call: "MPI_Sendrecv",
			Message: "the exchange of ranks 0,1 pairs MPI_INT with MPI_FLOAT", Site: at(20),
			Related: []checks.Related{{Message: "the other side", Site: at(30)}}}
		if rank == 1 {
			f.Site, f.Related[0].Site = at(30), at(20)
		}
		return []*checks.Finding{f}
	})
	f := only1(t, r)
	if !slices.Equal(f.Ranks, []int{0, 1}) || f.Count != 2 || f.Location.Line != 20 {
		t.Errorf("got %v x%d at %v", f.Ranks, f.Count, f.Location)
	}
}

// TestFoldCollectiveAccounts: the ranks that found a mismatched block
// add what they found; "this rank" becomes their number.
func TestFoldCollectiveAccounts(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		msg := "the blocks of MPI_Gatherv do not pair up: ranks 5,9 found a block whose count or type signature differs from its partner's"
		if rank == 5 || rank == 9 {
			msg += fmt.Sprintf("; here: this rank sends 3 element(s) of its sendtype, the root receives 4 of its recvtype (recvcounts[%d])", rank)
		}
		return []*checks.Finding{{ID: "collective-type-mismatch", Category: checks.CatCollective, Severity: checks.SevError, Call: "MPI_Gatherv", Message: msg, Site: at(60)}}
	})
	f := only1(t, r)
	want := "the blocks of MPI_Gatherv do not pair up: ranks 5,9 found a block whose count or type signature differs from its partner's; " +
		"rank 5 sends 3 element(s) of its sendtype, the root receives 4 of its recvtype (recvcounts[5]); " +
		"rank 9 sends 3 element(s) of its sendtype, the root receives 4 of its recvtype (recvcounts[9])"
	if f.Message != want || len(f.Ranks) != 64 || len(f.Related) != 0 {
		t.Errorf("got %v %q, related %v\nwant %q", f.Ranks, f.Message, f.Related, want)
	}
}

// TestFoldCommunicators: the same collective mismatch on two
// communicators is one bug, with the other instance in Pattern.
func TestFoldCommunicators(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		msg := "the ranks of the communicator disagree: rank 0 MPI_Allreduce with op MPI_MAX; ranks 1-31 MPI_Allreduce with op MPI_SUM"
		if rank >= 32 {
			msg = "the ranks of the communicator disagree: rank 32 MPI_Allreduce with op MPI_MAX; ranks 33-63 MPI_Allreduce with op MPI_SUM"
		}
		return []*checks.Finding{{ID: "collective-op-mismatch", Category: checks.CatCollective, Severity: checks.SevError, Call: "MPI_Allreduce", Message: msg, Site: at(70)}}
	})
	f := only1(t, r)
	if !strings.Contains(f.Message, "rank 0 MPI_Allreduce with op MPI_MAX") || f.Pattern != "ranks 0-63; the same with rank 32 … ranks 33-63" || f.Count != 64 {
		t.Errorf("got %q x%d, pattern %q", f.Message, f.Count, f.Pattern)
	}
}

func TestTemplate(t *testing.T) {
	tests := []struct {
		msg, text string
		refs      []string
	}{
		{"rank 3 sends to rank 4", "\x00 sends to \x00", []string{"rank 3", "rank 4"}},
		{"Rank 3: tag -1", "\x00: tag -1", []string{"Rank 3"}},
		{"ranks 0-3,7 MPI_Bcast; rank 4 MPI_Barrier", "\x00 MPI_Bcast; \x00 MPI_Barrier", []string{"ranks 0-3,7", "rank 4"}},
		{"rank 3's MPI_Put and the window (process 5)", "\x00's MPI_Put and the window (\x00)", []string{"rank 3", "process 5"}},
		{"on rank 3, which is not the root", "on \x00, which is not the root", []string{"rank 3"}},
		{"franks 3; no rank here", "franks 3; no rank here", nil},
		{"comm 0x84000002 on rank 2", "comm \x00 on \x00", []string{"0x84000002", "rank 2"}},
	}
	for _, tt := range tests {
		got := templateOf(tt.msg)
		if got.text != tt.text || !slices.Equal(got.refs, tt.refs) {
			t.Errorf("%q: got %q %q, want %q %q", tt.msg, got.text, got.refs, tt.text, tt.refs)
		}
		if back := fill(got.text, got.refs); back != tt.msg {
			t.Errorf("%q: filled back as %q", tt.msg, back)
		}
	}
}

// TestFoldOwnAccounts: ranks that each name only themselves in the
// account of a collective mismatch, at two calls, are one bug.
func TestFoldOwnAccounts(t *testing.T) {
	r := job64(t, func(rank int) []*checks.Finding {
		if rank > 2 {
			return nil
		}
		f := &checks.Finding{ID: "collective-type-mismatch", Category: checks.CatCollective, Severity: checks.SevError, Call: "MPI_Iallgatherv",
			Message: fmt.Sprintf("the blocks of MPI_Iallgatherv do not pair up: rank %d found a block whose count or type signature differs from its partner's; here: rank 1 sends 6 element(s), this rank receives recvcounts[1] = 3 of its recvtype", rank),
			Site:    at(48)}
		if rank == 1 {
			f.Site = at(46)
		}
		return []*checks.Finding{f}
	})
	f := only1(t, r)
	want := "the blocks of MPI_Iallgatherv do not pair up: each rank found a block whose count or type signature differs from its partner's; rank 1 sends 6 element(s), each of ranks 0-2 receives recvcounts[1] = 3 of its recvtype"
	if f.Message != want || f.Location.Line != 48 || len(f.Related) != 1 || f.Related[0].Location.Line != 46 || f.Related[0].Message != "rank 1 called MPI_Iallgatherv here" {
		t.Errorf("got %q at %v, related %+v\nwant %q at line 48, rank 1's call at 46 related", f.Message, f.Location, f.Related, want)
	}
}

// TestPairVerbs: the words around the peer give the direction.
func TestPairVerbs(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"rank %[1]d sends MPI_INT where rank %[2]d receives MPI_FLOAT", "each rank r sends to r+1 (mod 64); ranks 0-63"},
		{"the receive of rank %[1]d got 3 elements from this rank", "each rank r sends to r-1 (mod 64); ranks 0-63"},
		{"rank %[1]d receives what this rank sent", "each rank r sends to r-1 (mod 64); ranks 0-63"},
		{"the operation to rank %[1]d was held back", "each rank r targets r-1 (mod 64); ranks 0-63"},
		{"this rank and rank %[1]d disagree", "each rank r with r-1 (mod 64); ranks 0-63"},
	}
	for _, tt := range tests {
		r := job64(t, func(rank int) []*checks.Finding {
			// the peer is the left neighbour, except in the first message,
			// where the receiver (this rank) names its sender on the left
			peer := (rank + 63) % 64
			return []*checks.Finding{{ID: "invalid-tag", Call: "MPI_Send", Site: at(10), Message: fmt.Sprintf(tt.msg, peer, rank)}}
		})
		if f := only1(t, r); f.Pattern != tt.want {
			t.Errorf("%q: pattern %q, want %q", tt.msg, f.Pattern, tt.want)
		}
	}
}
