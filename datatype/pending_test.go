package datatype

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPendingSet(t *testing.T) {
	I, D := Predefined(Int), Predefined(Double)
	comb := lyMust(Vector(4, 1, 2, I)) // ints at 0, 8, 16, 24
	var p PendingSet
	p.Insert(1, Buffer{0, comb, 1})
	p.Insert(2, Buffer{100, D, 4})
	p.Insert(3, Buffer{4, comb, 1}) // the comb's gaps: no overlap with 1
	p.Insert(4, Buffer{0, I, 0})    // empty
	tests := []struct {
		name string
		q    Buffer
		want []uint64
	}{
		{"a gap of the comb", Buffer{4, I, 1}, []uint64{3}},
		{"both combs", Buffer{6, D, 1}, []uint64{1, 3}},
		{"the doubles", Buffer{120, I, 1}, []uint64{2}},
		{"past everything", Buffer{132, I, 1}, nil},
		{"everything", Buffer{-8, lyMust(Contiguous(100, D)), 1}, []uint64{1, 3, 2}},
		{"empty query", Buffer{0, I, 0}, nil},
	}
	for _, tc := range tests {
		if got := p.Query(tc.q, nil); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	var at []int64
	p.Each(Buffer{6, D, 1}, func(id uint64, addr int64) bool { at = append(at, addr); return true })
	if want := []int64{8, 6}; !slices.Equal(at, want) {
		t.Errorf("Each addresses: got %v, want %v", at, want)
	}
	if !p.Remove(1) || p.Remove(1) || p.Len() != 3 {
		t.Errorf("Remove(1) twice: want true then false and 3 left, have %d", p.Len())
	}
	p.Insert(3, Buffer{1000, I, 1}) // replaces
	if got := p.Query(Buffer{0, lyMust(Contiguous(2000, D)), 1}, nil); !slices.Equal(got, []uint64{2, 3}) {
		t.Errorf("after remove and replace: got %v, want [2 3]", got)
	}
}

// TestPendingSetAgainstList drives a set and a plain list with the same
// random inserts, removes and queries.
func TestPendingSetAgainstList(t *testing.T) {
	types := lyRandomTypes(64, 5)
	r := rand.New(rand.NewPCG(9, 9))
	var p PendingSet
	naive := map[uint64]Buffer{}
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(10); {
		case op < 4:
			id := r.Uint64N(300)
			b := Buffer{r.Int64N(4000), types[r.IntN(len(types))], r.Int64N(4)}
			p.Insert(id, b)
			naive[id] = b
		case op < 6:
			id := r.Uint64N(300)
			_, had := naive[id]
			if got := p.Remove(id); got != had {
				t.Fatalf("step %d: Remove(%d) got %v, want %v", step, id, got, had)
			}
			delete(naive, id)
		default:
			q := Buffer{r.Int64N(4000), types[r.IntN(len(types))], r.Int64N(4)}
			got := p.Query(q, nil)
			var want []uint64
			for id, b := range naive {
				if _, ok := Overlap(q, b); ok {
					want = append(want, id)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: Query got %v, want %v", step, got, want)
			}
		}
		if p.Len() != len(naive) {
			t.Fatalf("step %d: Len got %d, want %d", step, p.Len(), len(naive))
		}
	}
}
