package datatype

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks of the overlap checks; docs/PERFORMANCE.md has the numbers.
//
//	go test ./datatype/ -run '^$' -bench 'Overlap|Pending' -benchtime 200ms

// lyPlanePairs are the buffer pairs of the plane benchmark on a k×k×k array
// of doubles at a fixed base: two z-planes as vectors at different base
// addresses (no byte in common, equal strides), an x-plane against a
// z-plane (subarrays, a contiguous block against a lattice), a y-plane
// against a z-plane (unequal strides: a walk over the y-plane's k rows,
// which hits at once), and the worst case: a diagonal a[i][i][i+10]
// against the z-plane z=5, unequal strides and no byte in common, which
// walks all k-10 elements of the diagonal, O(min(n, m)).
func lyPlanePairs(k int64) []struct {
	name string
	a, b Buffer
} {
	const base = 1 << 40
	D := Predefined(Double)
	zVec := lyMust(Vector(k*k, 1, k, D))
	x, y, z := lyCube(k, k/2, k/3, 5)
	return []struct {
		name string
		a, b Buffer
	}{
		{"z-z", Buffer{base + 5*8, zVec, 1}, Buffer{base + 6*8, zVec, 1}},
		{"x-z", Buffer{base, x, 1}, Buffer{base, z, 1}},
		{"y-z", Buffer{base, y, 1}, Buffer{base, z, 1}},
		{"diag-z", Buffer{base + 10*8, lyMust(Vector(k-10, 1, k*k+k+1, D)), 1}, Buffer{base, z, 1}},
	}
}

// lyBlockListOverlap is the plain alternative: build both sorted block
// lists, then merge them looking for a common byte.
func lyBlockListOverlap(a, b Buffer) (int64, bool) {
	la, lb := a.Type.Blocks(a.Count), b.Type.Blocks(b.Count)
	i, j := 0, 0
	for i < len(la) && j < len(lb) {
		x, y := la[i], lb[j]
		lo := max(x.Start+a.Addr, y.Start+b.Addr)
		if lo < min(x.End+a.Addr, y.End+b.Addr) {
			return lo, true
		}
		if x.End+a.Addr < y.End+b.Addr {
			i++
		} else {
			j++
		}
	}
	return 0, false
}

func BenchmarkOverlapPlanes(b *testing.B) {
	for _, k := range []int64{64, 256, 1024, 4096} {
		for _, pp := range lyPlanePairs(k) {
			b.Run(fmt.Sprintf("k=%d/%s/strided", k, pp.name), func(b *testing.B) {
				for range b.N {
					Overlap(pp.a, pp.b)
				}
			})
			// A block list of a k=4096 z-plane is 16.7M blocks (268 MB):
			// not worth building to show what k=1024 already shows.
			if k > 2048 {
				continue
			}
			b.Run(fmt.Sprintf("k=%d/%s/blocklist", k, pp.name), func(b *testing.B) {
				for range b.N {
					lyBlockListOverlap(pp.a, pp.b)
				}
			})
		}
	}
}

// TestBlockListAgrees keeps the benchmark's alternative honest.
func TestBlockListAgrees(t *testing.T) {
	for _, pp := range lyPlanePairs(64) {
		at1, ok1 := Overlap(pp.a, pp.b)
		at2, ok2 := lyBlockListOverlap(pp.a, pp.b)
		if at1 != at2 || ok1 != ok2 {
			t.Errorf("%s: strided got %d %v, block list %d %v", pp.name, at1, ok1, at2, ok2)
		}
	}
}

// BenchmarkOverlapSmall is the common case on the hot path: two plain
// buffers of a predefined or contiguous type, and a strided halo column.
func BenchmarkOverlapSmall(b *testing.B) {
	I := Predefined(Int)
	c := lyMust(Contiguous(64, I))
	col := lyMust(Vector(512, 1, 512, Predefined(Double)))
	for _, tc := range []struct {
		name string
		a, b Buffer
	}{
		{"int-miss", Buffer{0, I, 100}, Buffer{400, I, 100}},
		{"contiguous-hit", Buffer{0, c, 4}, Buffer{1000, c, 1}},
		{"column-column", Buffer{0, col, 1}, Buffer{8, col, 2}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				Overlap(tc.a, tc.b)
			}
		})
	}
}

// lyPending fills a set with n buffers of a stencil code's kind: message
// buffers of 1-64 KiB and halo columns, spread over a 1 GiB region
// without overlapping one another.
func lyPending(n int) (*PendingSet, []Buffer) {
	D := Predefined(Double)
	r := rand.New(rand.NewPCG(1, 2))
	col := lyMust(Vector(256, 1, 256, D)) // a column of a 256×256 matrix
	var p PendingSet
	var bufs []Buffer
	slot := int64(1<<30) / int64(n)
	for i := 0; i < n; i++ {
		var b Buffer
		if i%4 == 0 {
			b = Buffer{int64(i) * slot, col, 1}
		} else {
			b = Buffer{int64(i) * slot, D, 128 + r.Int64N(8192-128)}
		}
		p.Insert(uint64(i), b)
		bufs = append(bufs, b)
	}
	return &p, bufs
}

func BenchmarkPendingQuery(b *testing.B) {
	const n = 1000
	p, bufs := lyPending(n)
	D := Predefined(Double)
	slot := int64(1<<30) / n
	queries := []struct {
		name string
		q    Buffer
	}{
		{"miss", Buffer{500*slot + 600000, D, 1024}},
		{"hit-one", Buffer{501*slot + 64, D, 16}},
		{"column-gap", Buffer{500*slot + 8, D, 1}}, // between two elements of column 500: a candidate, no hit
		{"span-ten", Buffer{300 * slot, D, 10 * slot / 8}},
	}
	for _, qc := range queries {
		dst := make([]uint64, 0, 16)
		b.Run(qc.name+"/set", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				dst = p.Query(qc.q, dst[:0])
			}
		})
		b.Run(qc.name+"/list", func(b *testing.B) {
			for range b.N {
				dst = dst[:0]
				for i, pb := range bufs {
					if _, ok := Overlap(qc.q, pb); ok {
						dst = append(dst, uint64(i))
					}
				}
			}
		})
	}
	b.Run("insert-remove", func(b *testing.B) {
		b.ReportAllocs()
		x := Buffer{777*slot + 100, D, 64}
		for range b.N {
			p.Insert(5000, x)
			p.Remove(5000)
		}
	})
}
