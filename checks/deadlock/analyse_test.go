package deadlock

import (
	"slices"
	"testing"
)

// Shorthands for the tables.
const world = 1 // the job-wide id of MPI_COMM_WORLD in these tests

func recv(from int, tag int) Wait {
	return Wait{Kind: Recv, Ranks: []int{from}, Tag: tag, Call: "MPI_Recv", Comm: world, CommName: "MPI_COMM_WORLD"}
}

func recvAny(ranks ...int) Wait {
	return Wait{Kind: Recv, Ranks: ranks, Any: true, Tag: AnyTag, Call: "MPI_Recv", Comm: world, CommName: "MPI_COMM_WORLD"}
}

func send(to int, tag int) Wait {
	return Wait{Kind: Send, Ranks: []int{to}, Tag: tag, Call: "MPI_Send", Comm: world, CommName: "MPI_COMM_WORLD"}
}

func collWait(call string, n uint64, members ...int) Wait {
	return Wait{Kind: Coll, Ranks: members, Call: call, Comm: world, CommName: "MPI_COMM_WORLD", Coll: n}
}

// winID is a window's job-wide id in these tests.
const winID = 1<<63 | 7

func winColl(call string, n uint64, members ...int) Wait {
	return Wait{Kind: Coll, Ranks: members, Call: call, Comm: winID, CommName: "a window of MPI_COMM_WORLD", Coll: n}
}

func winSync(call string, peer int) Wait {
	return Wait{Kind: Sync, Ranks: []int{peer}, Call: call, Comm: winID, CommName: "a window of MPI_COMM_WORLD"}
}

func blocked(rank int, call, args string, mode Mode, waits ...Wait) Rank {
	return Rank{Rank: rank, State: Blocked, Call: call, Args: args, Mode: mode, Waits: waits}
}

func TestAnalyse(t *testing.T) {
	tests := []struct {
		name       string
		ranks      []Rank
		deadlocked []int
		shape      Shape
		core       []int
		texts      []string
	}{
		{
			name: "head_to_head_receives",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=1, tag=0, comm=MPI_COMM_WORLD", And, recv(1, 0)),
				blocked(1, "MPI_Recv", "source=0, tag=0, comm=MPI_COMM_WORLD", And, recv(0, 0)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) waits for rank 1",
				"rank 1 MPI_Recv(source=0, tag=0, comm=MPI_COMM_WORLD) waits for rank 0",
			},
		},
		{
			name: "ring_of_unbuffered_sends",
			ranks: []Rank{
				blocked(0, "MPI_Send", "dest=1", And, send(1, 0)),
				blocked(1, "MPI_Send", "dest=2", And, send(2, 0)),
				blocked(2, "MPI_Send", "dest=3", And, send(3, 0)),
				blocked(3, "MPI_Send", "dest=0", And, send(0, 0)),
			},
			deadlocked: []int{0, 1, 2, 3}, shape: Cycle, core: []int{0, 1, 2, 3},
			texts: []string{
				"rank 0 MPI_Send(dest=1) waits for rank 1",
				"rank 1 MPI_Send(dest=2) waits for rank 2",
				"rank 2 MPI_Send(dest=3) waits for rank 3",
				"rank 3 MPI_Send(dest=0) waits for rank 0",
			},
		},
		{
			name: "any_source_knot",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=MPI_ANY_SOURCE", And, recvAny(0, 1, 2)),
				blocked(1, "MPI_Recv", "source=0", And, recv(0, 0)),
				blocked(2, "MPI_Waitany", "", Or, recv(0, 5), recv(1, 5)),
				{Rank: 3, State: Finished},
			},
			deadlocked: []int{0, 1, 2}, shape: Knot, core: []int{0, 1, 2},
			texts: []string{
				"rank 0 MPI_Recv(source=MPI_ANY_SOURCE) waits for any of ranks 1, 2",
				"rank 1 MPI_Recv(source=0) waits for rank 0",
				"rank 2 MPI_Waitany waits for any of ranks 0, 1",
			},
		},
		{
			name: "collective_versus_point_to_point",
			ranks: []Rank{
				blocked(0, "MPI_Bcast", "root=0, comm=MPI_COMM_WORLD", And, collWait("MPI_Bcast", 1, 0, 1)),
				blocked(1, "MPI_Recv", "source=0, tag=0, comm=MPI_COMM_WORLD", And, recv(0, 0)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Bcast(root=0, comm=MPI_COMM_WORLD) waits for rank 1 (collective 1 on MPI_COMM_WORLD)",
				"rank 1 MPI_Recv(source=0, tag=0, comm=MPI_COMM_WORLD) waits for rank 0",
			},
		},
		{
			name: "barrier_while_one_rank_waits_elsewhere",
			ranks: []Rank{
				blocked(0, "MPI_Barrier", "comm=MPI_COMM_WORLD", And, collWait("MPI_Barrier", 4, 0, 1, 2, 3)),
				blocked(1, "MPI_Barrier", "comm=MPI_COMM_WORLD", And, collWait("MPI_Barrier", 4, 0, 1, 2, 3)),
				blocked(2, "MPI_Barrier", "comm=MPI_COMM_WORLD", And, collWait("MPI_Barrier", 4, 0, 1, 2, 3)),
				blocked(3, "MPI_Recv", "source=0, tag=9, comm=MPI_COMM_WORLD", And, recv(0, 9)),
			},
			deadlocked: []int{0, 1, 2, 3}, shape: Cycle, core: []int{0, 3},
			texts: []string{
				"rank 0 MPI_Barrier(comm=MPI_COMM_WORLD) waits for rank 3 (collective 4 on MPI_COMM_WORLD)",
				"rank 1 MPI_Barrier(comm=MPI_COMM_WORLD) waits for rank 3 (collective 4 on MPI_COMM_WORLD)",
				"rank 2 MPI_Barrier(comm=MPI_COMM_WORLD) waits for rank 3 (collective 4 on MPI_COMM_WORLD)",
				"rank 3 MPI_Recv(source=0, tag=9, comm=MPI_COMM_WORLD) waits for rank 0",
			},
		},
		{
			name: "mismatched_collectives",
			ranks: []Rank{
				blocked(0, "MPI_Barrier", "comm=MPI_COMM_WORLD", And, collWait("MPI_Barrier", 2, 0, 1)),
				blocked(1, "MPI_Bcast", "root=0, comm=MPI_COMM_WORLD", And, collWait("MPI_Bcast", 2, 0, 1)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Barrier(comm=MPI_COMM_WORLD) waits for rank 1 (collective 2 on MPI_COMM_WORLD)",
				"rank 1 MPI_Bcast(root=0, comm=MPI_COMM_WORLD) waits for rank 0 (collective 2 on MPI_COMM_WORLD)",
			},
		},
		{
			name: "receive_from_a_rank_in_finalize",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=1", And, recv(1, 0)),
				blocked(1, "MPI_Finalize", "", And, collWait("MPI_Finalize", 0, 0, 1)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Recv(source=1) waits for rank 1",
				"rank 1 MPI_Finalize waits for rank 0 (MPI_Finalize on MPI_COMM_WORLD)",
			},
		},
		{
			name: "rank_that_finalized",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=1, tag=0, comm=MPI_COMM_WORLD", And, recv(1, 0)),
				{Rank: 1, State: Finished},
			},
			deadlocked: []int{0}, shape: Ended, core: []int{1},
			texts: []string{"rank 0 MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) waits for rank 1 (finalized)"},
		},
		{
			name: "any_of_ranks_that_ended",
			ranks: []Rank{
				blocked(0, "MPI_Waitany", "count=2", Or, recv(1, 0), recv(2, 0)),
				{Rank: 1, State: Dead},
				{Rank: 2, State: Finished},
			},
			deadlocked: []int{0}, shape: Ended, core: []int{1, 2},
			texts: []string{"rank 0 MPI_Waitany(count=2) waits for any of ranks 1 (died), 2 (finalized)"},
		},
		{
			name: "waitall_needs_all",
			ranks: []Rank{
				// The send to rank 1 meets rank 1's posted receive; the
				// receive from rank 2 never comes.
				blocked(0, "MPI_Waitall", "count=2", And, send(1, 0), recv(2, 0)),
				blocked(1, "MPI_Recv", "source=0", And, recv(0, 0)),
				blocked(2, "MPI_Recv", "source=0", And, recv(0, 3)),
			},
			deadlocked: []int{0, 2}, shape: Cycle, core: []int{0, 2},
			texts: []string{
				"rank 0 MPI_Waitall(count=2) waits for rank 2",
				"rank 2 MPI_Recv(source=0) waits for rank 0",
			},
		},
		{
			name: "tags_do_not_match",
			ranks: []Rank{
				blocked(0, "MPI_Ssend", "dest=1, tag=1", And, send(1, 1)),
				blocked(1, "MPI_Recv", "source=0, tag=2", And, recv(0, 2)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Ssend(dest=1, tag=1) waits for rank 1",
				"rank 1 MPI_Recv(source=0, tag=2) waits for rank 0",
			},
		},
		{
			name: "receive_from_itself",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=0", And, recv(0, 0)),
				{Rank: 1, State: Finished},
			},
			deadlocked: []int{0}, shape: Cycle, core: []int{0},
			texts: []string{"rank 0 MPI_Recv(source=0) waits for rank 0"},
		},
		{
			name: "mixed_waitall",
			ranks: []Rank{
				blocked(0, "MPI_Waitall", "count=3", And, recv(1, 0), recvAny(0, 1, 2, 3, 4), collWait("MPI_Ibarrier", 1, 0, 1, 2, 3, 4)),
				blocked(1, "MPI_Recv", "source=0", And, recv(0, 0)),
				blocked(2, "MPI_Recv", "source=0", And, recv(0, 0)),
				blocked(3, "MPI_Recv", "source=0", And, recv(0, 0)),
				blocked(4, "MPI_Recv", "source=0", And, recv(0, 0)),
			},
			deadlocked: []int{0, 1, 2, 3, 4}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Waitall(count=3) waits for rank 1 and any of ranks 1-4 and ranks 1-4 (collective 1 on MPI_COMM_WORLD)",
				"rank 1 MPI_Recv(source=0) waits for rank 0",
				"rank 2 MPI_Recv(source=0) waits for rank 0",
				"rank 3 MPI_Recv(source=0) waits for rank 0",
				"rank 4 MPI_Recv(source=0) waits for rank 0",
			},
		},

		// No deadlock.
		{
			name: "partially_blocked",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=1", And, recv(1, 0)),
				{Rank: 1, State: Running},
				blocked(2, "MPI_Recv", "source=0", And, recv(0, 0)),
			},
		},
		{
			name: "matching_send_and_receive_in_flight",
			ranks: []Rank{
				blocked(0, "MPI_Send", "dest=1, tag=4", And, send(1, 4)),
				blocked(1, "MPI_Recv", "source=MPI_ANY_SOURCE, tag=MPI_ANY_TAG", And, Wait{Kind: Recv, Ranks: []int{0, 1}, Any: true, Tag: AnyTag, Comm: world}),
			},
		},
		{
			name: "slow_collective",
			ranks: []Rank{
				blocked(0, "MPI_Allreduce", "", And, collWait("MPI_Allreduce", 7, 0, 1, 2)),
				blocked(1, "MPI_Allreduce_c", "", And, collWait("MPI_Allreduce_c", 7, 0, 1, 2)),
				blocked(2, "MPI_Allreduce", "", And, collWait("MPI_Allreduce", 7, 0, 1, 2)),
			},
		},
		{
			name: "slow_duplication_with_and_without_hints",
			ranks: []Rank{
				blocked(0, "MPI_Comm_dup", "", And, collWait("MPI_Comm_dup", 3, 0, 1, 2)),
				blocked(1, "MPI_Comm_dup_with_info", "", And, collWait("MPI_Comm_dup_with_info", 3, 0, 1, 2)),
				blocked(2, "MPI_Comm_dup", "", And, collWait("MPI_Comm_dup", 3, 0, 1, 2)),
			},
		},
		{
			name: "waitany_with_one_way_out",
			ranks: []Rank{
				blocked(0, "MPI_Waitany", "", Or, recv(1, 0), recv(2, 0)),
				blocked(1, "MPI_Recv", "source=0", And, recv(0, 0)),
				{Rank: 2, State: Running},
			},
		},
		{
			name: "what_the_detector_cannot_name",
			ranks: []Rank{
				blocked(0, "MPI_Win_fence", "", And, Wait{Kind: Other}),
				blocked(1, "MPI_Recv", "source=?", And, Wait{Kind: Recv}), // ranks not translated
				blocked(2, "MPI_Wait", "", And),                           // no waits at all
			},
		},
		{
			name: "truncated_or",
			ranks: []Rank{
				{Rank: 0, State: Blocked, Call: "MPI_Waitany", Mode: Or, Waits: []Wait{recv(1, 0)}, Truncated: true},
				blocked(1, "MPI_Recv", "source=0", And, recv(0, 0)),
			},
		},
		{
			name: "rank_not_heard_of",
			ranks: []Rank{
				blocked(0, "MPI_Recv", "source=5", And, recv(5, 0)),
			},
		},
		{
			name:  "everyone_finished",
			ranks: []Rank{{Rank: 0, State: Finished}, {Rank: 1, State: Dead}},
		},
		{
			// a fence on one rank, MPI_Win_free on the other: the
			// window's collective number 3 is a different call
			name: "fence_against_free",
			ranks: []Rank{
				blocked(0, "MPI_Win_fence", "collective #3 on the window", And, winColl("MPI_Win_fence", 3, 0, 1)),
				blocked(1, "MPI_Win_free", "collective #3 on the window", And, winColl("MPI_Win_free", 3, 0, 1)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Win_fence(collective #3 on the window) waits for rank 1 (collective 3 on a window of MPI_COMM_WORLD)",
				"rank 1 MPI_Win_free(collective #3 on the window) waits for rank 0 (collective 3 on a window of MPI_COMM_WORLD)",
			},
		},
		{
			// the origin frees the window without its access epoch:
			// the target's MPI_Win_wait holds it
			name: "wait_for_origin_in_free",
			ranks: []Rank{
				blocked(0, "MPI_Win_wait", "origin=1", And, winSync("MPI_Win_wait", 1)),
				blocked(1, "MPI_Win_free", "collective #2 on the window", And, winColl("MPI_Win_free", 2, 0, 1)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Win_wait(origin=1) waits for rank 1",
				"rank 1 MPI_Win_free(collective #2 on the window) waits for rank 0 (collective 2 on a window of MPI_COMM_WORLD)",
			},
		},
		{
			// the origin is elsewhere: it may have completed already
			name: "wait_for_origin_elsewhere",
			ranks: []Rank{
				blocked(0, "MPI_Win_wait", "origin=1", And, winSync("MPI_Win_wait", 1)),
				blocked(1, "MPI_Recv", "source=0", And, recv(0, 0)),
			},
		},
		{
			name: "polling",
			ranks: []Rank{
				{Rank: 0, State: Blocked, Call: "MPI_Test", Args: "MPI_Iallreduce (collective #1)", Polling: true,
					Waits: []Wait{collWait("MPI_Iallreduce", 1, 0, 1)}},
				blocked(1, "MPI_Finalize", "", And, collWait("MPI_Finalize", 0, 0, 1)),
			},
			deadlocked: []int{0, 1}, shape: Cycle, core: []int{0, 1},
			texts: []string{
				"rank 0 MPI_Test(MPI_Iallreduce (collective #1)) in a loop waits for rank 1 (collective 1 on MPI_COMM_WORLD)",
				"rank 1 MPI_Finalize waits for rank 0 (MPI_Finalize on MPI_COMM_WORLD)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Analyse(tt.ranks)
			if !slices.Equal(got.Deadlocked, tt.deadlocked) {
				t.Fatalf("deadlocked: got %v, want %v", got.Deadlocked, tt.deadlocked)
			}
			if got.Shape != tt.shape || !slices.Equal(got.Core, tt.core) {
				t.Errorf("got %v %v, want %v %v", got.Shape, got.Core, tt.shape, tt.core)
			}
			var texts []string
			for _, e := range got.Edges {
				texts = append(texts, e.Text)
			}
			if !slices.Equal(texts, tt.texts) {
				t.Errorf("edges:\ngot  %q\nwant %q", texts, tt.texts)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		r    Result
		want string
	}{
		{Result{Shape: Cycle, Core: []int{0, 2, 1}}, "a cycle: rank 0 → rank 2 → rank 1 → rank 0"},
		{Result{Shape: Cycle, Core: []int{3}}, "a cycle: rank 3 → rank 3"},
		{Result{Shape: Knot, Core: []int{0, 1, 2}}, "a knot: ranks 0-2 wait for one another, some for any of several"},
		{Result{Shape: Knot, Core: []int{0, 1, 3}}, "a knot: ranks 0, 1, 3 wait for one another, some for any of several"},
		{Result{Shape: Ended, Core: []int{1}}, "rank 1 has ended"},
		{Result{Shape: Ended, Core: []int{1, 4}}, "ranks 1, 4 have ended"},
		{Result{}, "no deadlock"},
	}
	for _, tt := range tests {
		if got := tt.r.Describe(); got != tt.want {
			t.Errorf("%v %v: got %q, want %q", tt.r.Shape, tt.r.Core, got, tt.want)
		}
	}
}

// TestAnalyseOddInput: bad input (a rank twice, waits naming ranks
// out of range) gives an answer, never a panic.
func TestAnalyseOddInput(t *testing.T) {
	Analyse([]Rank{
		blocked(0, "MPI_Recv", "", And, recv(-7, 0), Wait{Kind: Send, Ranks: []int{}}),
		blocked(0, "MPI_Send", "", Or, send(1<<30, 0)),
		{Rank: -1, State: State(42)},
		blocked(2, "", "", Mode(9), Wait{Kind: Kind(77), Ranks: []int{0}}),
	})
	Analyse(nil)
}

// TestAnalyseLarge: a job of 20,000 ranks in the two shapes that would
// be quadratic with an edge from every waiter to every member: all but
// one in MPI_Barrier, and every rank receiving from MPI_ANY_SOURCE. The
// ranks share one slice for their group, as the launcher's do.
func TestAnalyseLarge(t *testing.T) {
	const n = 20000
	world := make([]int, n)
	for i := range world {
		world[i] = i
	}
	t.Run("barrier", func(t *testing.T) {
		ranks := make([]Rank, n)
		for i := range ranks {
			ranks[i] = Rank{Rank: i, State: Blocked, Call: "MPI_Barrier", Waits: []Wait{{Kind: Coll, Ranks: world, Call: "MPI_Barrier", Comm: 1, CommName: "MPI_COMM_WORLD", Coll: 1}}}
		}
		ranks[n-1] = blocked(n-1, "MPI_Recv", "", And, recv(0, 0))
		res := Analyse(ranks)
		if len(res.Deadlocked) != n || res.Shape != Cycle || !slices.Equal(res.Core, []int{0, n - 1}) {
			t.Fatalf("got %d deadlocked, %v %v", len(res.Deadlocked), res.Shape, res.Core)
		}
		if want := "rank 7 MPI_Barrier waits for rank 19999 (collective 1 on MPI_COMM_WORLD)"; res.Edges[7].Text != want {
			t.Errorf("got %q, want %q", res.Edges[7].Text, want)
		}
	})
	t.Run("any_source", func(t *testing.T) {
		ranks := make([]Rank, n)
		for i := range ranks {
			ranks[i] = Rank{Rank: i, State: Blocked, Call: "MPI_Recv", Waits: []Wait{{Kind: Recv, Ranks: world, Any: true, Tag: AnyTag, Comm: 1}}}
		}
		res := Analyse(ranks)
		if len(res.Deadlocked) != n || res.Shape != Knot || len(res.Core) != n {
			t.Fatalf("got %d deadlocked, %v, core of %d", len(res.Deadlocked), res.Shape, len(res.Core))
		}
		if want := "rank 5 MPI_Recv waits for any of ranks 0-4, 6-19999"; res.Edges[5].Text != want {
			t.Errorf("got %q, want %q", res.Edges[5].Text, want)
		}
		ranks[123].State = Running // one rank that can send frees them all
		if res := Analyse(ranks); len(res.Deadlocked) != 0 {
			t.Errorf("one running rank: got %d deadlocked", len(res.Deadlocked))
		}
	})
}

// TestLongLists: lists of ranks are cut after maxListed items.
func TestLongLists(t *testing.T) {
	evens := []int{}
	for i := 0; i < 100; i += 2 {
		evens = append(evens, i)
	}
	ranks := []Rank{blocked(1, "MPI_Recv", "", And, Wait{Kind: Recv, Ranks: evens, Any: true, Tag: AnyTag, Comm: 1})}
	for _, r := range evens {
		ranks = append(ranks, Rank{Rank: r, State: Finished})
	}
	res := Analyse(ranks)
	want := "rank 1 MPI_Recv waits for any of ranks 0 (finalized), 2 (finalized), 4 (finalized), 6 (finalized), 8 (finalized), 10 (finalized), " +
		"12 (finalized), 14 (finalized), 16 (finalized), 18 (finalized), 20 (finalized), 22 (finalized), 24 (finalized), 26 (finalized), " +
		"28 (finalized), 30 (finalized) and 34 more"
	if len(res.Edges) != 1 || res.Edges[0].Text != want {
		t.Errorf("got %+v\nwant %q", res.Edges, want)
	}
	if res.Shape != Ended || len(res.Core) != 50 {
		t.Errorf("got %v with %d ranks, want ended with 50", res.Shape, len(res.Core))
	}
}
