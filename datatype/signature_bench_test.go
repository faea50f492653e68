package datatype

import (
	"fmt"
	"testing"
)

// structArray builds an array of n structs {INT; DOUBLE[3]; CHAR[2]} from
// fresh handles, so that two arrays share no signature pointers and the
// matcher must compare bodies structurally.
func structArray(n int64) *Type {
	s := mustType(Struct([]int64{1, 3, 2}, []int64{0, 8, 32}, []*Type{P(Int), P(Double), P(Char)}))
	return mustType(Contiguous(n, s))
}

// BenchmarkMatchStructArray compares matching two equal struct arrays in
// compressed form (one run per change of type: 3n runs) and in regular
// form ((INT DOUBLE*3 CHAR*2)*n). Building the forms is not timed.
func BenchmarkMatchStructArray(b *testing.B) {
	for _, n := range []int64{1_000, 100_000, 1_000_000} {
		send, recv := structArray(n), structArray(n)
		cs, cr := Compressed(send.Signature().Runs()), Compressed(recv.Signature().Runs())
		b.Run(fmt.Sprintf("compressed/n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if MatchSig(cs, 1, cr, 1).Kind != Match {
					b.Fatal("no match")
				}
			}
		})
		b.Run(fmt.Sprintf("regular/n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if MatchSig(send.Signature(), 1, recv.Signature(), 1).Kind != Match {
					b.Fatal("no match")
				}
			}
		})
	}
}
