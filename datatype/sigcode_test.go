package datatype

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// sigCodeTypes are real types whose signatures exercise every kind of item:
// runs of one and of many elements, repeated bodies, nested bodies, pair
// types (split into their fields) and MPI_PACKED.
func sigCodeTypes() map[string]*Type {
	pair := mustType(Struct([]int64{1, 3}, []int64{0, 8}, []*Type{P(Int), P(Double)}))
	inner := mustType(Struct([]int64{2, 1}, []int64{0, 64}, []*Type{pair, P(Char)}))
	return map[string]*Type{
		"basic":            P(Double),
		"empty":            mustType(Contiguous(0, P(Int))),
		"contiguous":       mustType(Contiguous(1000, P(Int))),
		"example struct":   exampleStruct(),
		"struct array":     mustType(Contiguous(1_000_000, pair)),
		"vector of struct": mustType(Vector(4, 2, 3, pair)),
		"nested repeats":   mustType(Contiguous(7, mustType(Struct([]int64{3, 2}, []int64{0, 1000}, []*Type{inner, P(Short)})))),
		"pair type":        mustType(Contiguous(5, P(DoubleInt))),
		"pair types mixed": mustType(Struct([]int64{2, 3}, []int64{0, 64}, []*Type{P(LongDoubleInt), P(ShortInt)})),
		"packed":           mustType(Contiguous(12, P(Packed))),
		"long double":      mustType(Vector(3, 2, 4, P(LongDouble))),
	}
}

// sigCodeSample is the signatures of the types above and of random types of
// two generators, for round trips.
func sigCodeSample(t testing.TB) []*Sig {
	var out []*Sig
	for _, ty := range sigCodeTypes() {
		out = append(out, ty.Signature())
	}
	r := rand.New(rand.NewSource(7))
	for range 300 {
		out = append(out, sigTestType(r, 4).Signature())
	}
	g := newTypeGen(11)
	for range 300 {
		text := g.typ(4)
		ty, err := ParseExpr(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		out = append(out, ty.Signature(), repeatSig(ty.Signature(), 3))
	}
	return out
}

func TestSigBinaryRoundTrip(t *testing.T) {
	sample := sigCodeSample(t)
	for i, s := range sample {
		enc := s.AppendBinary(nil)
		d, err := DecodeSig(enc)
		if err != nil {
			t.Fatalf("%s: %v (encoding % x)", s, err, enc)
		}
		if !d.equal(s) || d.String() != s.String() || d.NumElements() != s.NumElements() || d.Size() != s.Size() {
			t.Fatalf("%s (%d elements, %d bytes) decodes to %s (%d, %d)", s, s.NumElements(), s.Size(), d, d.NumElements(), d.Size())
		}
		if again := d.AppendBinary(nil); !bytes.Equal(again, enc) {
			t.Fatalf("%s: re-encoding differs: % x, then % x", s, enc, again)
		}
		if got := d.AppendBinary([]byte("hdr")); !bytes.HasPrefix(got, []byte("hdr")) || !bytes.Equal(got[3:], enc) {
			t.Fatalf("%s: AppendBinary does not append", s)
		}
		// MatchSig with a neighbour gives the same answer for either copy.
		o := sample[(i*7+3)%len(sample)]
		for _, c := range []int64{1, 2} {
			if a, b := MatchSig(s, c, o, 2), MatchSig(d, c, o, 2); a != b {
				t.Fatalf("%s vs %s: original %+v, decoded %+v", s, o, a, b)
			}
		}
	}
}

// TestSigBinaryVerbatim: a form that pushing its items again would change
// ((CHAR (INT DOUBLE)*4)*3) decodes as it was, so that it still equals the
// form a receiver builds from the same type.
func TestSigBinaryVerbatim(t *testing.T) {
	c := runSig(Char, 1)
	id := concatSig(runSig(Int, 1), runSig(Double, 1))
	s := concatSig(repeatSig(concatSig(c, repeatSig(id, 4)), 2), c)
	s = concatSig(concatSig(s, repeatSig(id, 2)), repeatSig(id, 2))
	const want = "(CHAR (INT DOUBLE)*4)*2 CHAR (INT DOUBLE)*4"
	if s.String() != want {
		t.Fatalf("built %s, want %s", s, want)
	}
	d, err := DecodeSig(s.AppendBinary(nil))
	if err != nil || !d.equal(s) {
		t.Fatalf("%s decodes to %v, %v", s, d, err)
	}
}

func TestSigBinaryCompact(t *testing.T) {
	// (INT DOUBLE*3)*100: one item, a repetition of 100 of two items.
	pair := mustType(Struct([]int64{1, 3}, []int64{0, 8}, []*Type{P(Int), P(Double)}))
	got := mustType(Contiguous(100, pair)).Signature().AppendBinary(nil)
	want := []byte{1, 0, 100, 2, byte(Int) << 1, byte(Double)<<1 | 1, 3}
	if !bytes.Equal(got, want) {
		t.Errorf("(INT DOUBLE*3)*100 encodes as % x, want % x", got, want)
	}
	// Equal forms from different handles encode alike.
	a, b := structArray(1_000_000).Signature(), structArray(1_000_000).Signature()
	ea, eb := a.AppendBinary(nil), b.AppendBinary(nil)
	if !bytes.Equal(ea, eb) {
		t.Errorf("equal forms encode differently: % x, % x", ea, eb)
	}
	if len(ea) > 16 {
		t.Errorf("%s takes %d bytes", a, len(ea))
	}
	if got := (&Sig{}).AppendBinary(nil); !bytes.Equal(got, []byte{0}) {
		t.Errorf("empty signature encodes as % x", got)
	}
}

// uv is the concatenation of the uvarint encodings of vs.
func uv(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

func TestDecodeSigErrors(t *testing.T) {
	run := func(b Basic) uint64 { return uint64(b) << 1 }
	runN := func(b Basic) uint64 { return uint64(b)<<1 | 1 }
	// nested is depth bodies, each repeated once, around INT DOUBLE.
	nested := func(depth int) []byte {
		var b []byte
		for range depth {
			b = append(b, uv(1, 0, 1)...)
		}
		return append(b, uv(2, run(Int), run(Double))...)
	}
	if _, err := DecodeSig(nested(maxSigDepth)); err != nil {
		t.Errorf("%d nested bodies: %v", maxSigDepth, err)
	}
	manyRuns := func(n int) []byte {
		b := uv(uint64(n))
		for i := range n {
			b = append(b, uv(run(Basic(1+i%2)))...)
		}
		return b
	}
	if _, err := DecodeSig(append(uv(1, 0, 2), manyRuns(maxSigItems-1)...)); err != nil {
		t.Errorf("%d items: %v", maxSigItems, err)
	}
	tests := []struct {
		name   string
		b      []byte
		offset int
		msg    string
	}{
		{"no data", nil, 0, "item count: unexpected end"},
		{"truncated item", []byte{1, 0x80}, 1, "item tag: unexpected end"},
		{"truncated count", uv(1, runN(Int)), 2, "count: unexpected end"},
		{"varint overflow", append(uv(1, runN(Int)), bytes.Repeat([]byte{0xff}, 11)...), 2, "overflows"},
		{"trailing bytes", uv(1, run(Int), 5), 2, "1 trailing bytes"},
		{"unknown basic", uv(1, run(numBasic)), 1, "unknown basic type " + strconv.Itoa(int(numBasic))},
		{"huge basic", uv(1, run(numBasic)+1<<20), 1, "unknown basic type"},
		{"invalid basic", uv(1, 1, 3), 1, "unknown basic type 0"},
		{"zero count", uv(1, runN(Int), 0), 2, "count 0 not in"},
		{"count 2^62", uv(1, runN(Int), 1<<62), 2, "count 4611686018427387904 not in"},
		{"zero repetitions", uv(1, 0, 0, 1, run(Int)), 2, "count 0"},
		{"empty body", uv(1, 0, 5, 0), 3, "empty repeated body"},
		{"more items than bytes", uv(3, run(Int), run(Int)), 0, "3 items"},
		{"too deep", nested(maxSigDepth + 1), 3 * (maxSigDepth + 1), "nested more than 64"},
		{"too many items", append(uv(1, 0, 2), manyRuns(maxSigItems)...), 3, "65536 items"},
		{"elements overflow", uv(1, 0, 4, 1, runN(Char), 1<<60), 1, "2^62 or more"},
		{"bytes overflow", uv(1, runN(LongDouble), 1<<59), 1, "2^62 or more"},
		{"sum overflows", uv(2, runN(Char), 1<<61, runN(Int), 1<<61), 11, "2^62 or more"},
	}
	for _, tt := range tests {
		s, err := DecodeSig(tt.b)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, %v; want a *FormatError", tt.name, s, err)
			continue
		}
		if fe.Offset != tt.offset || !strings.Contains(fe.Msg, tt.msg) || !strings.HasPrefix(err.Error(), "datatype: sig byte ") {
			t.Errorf("%s: got %q (offset %d), want offset %d and %q", tt.name, err, fe.Offset, tt.offset, tt.msg)
		}
	}
	// Every proper prefix of an encoding is an error, not a shorter sig.
	for _, s := range sigCodeSample(t)[:40] {
		enc := s.AppendBinary(nil)
		for n := range len(enc) {
			if d, err := DecodeSig(enc[:n]); err == nil {
				t.Fatalf("%s: prefix % x of % x decodes to %s", s, enc[:n], enc, d)
			}
		}
	}
}

func FuzzDecodeSig(f *testing.F) {
	for _, ty := range sigCodeTypes() {
		f.Add(ty.Signature().AppendBinary(nil))
	}
	f.Add(repeatSig(exampleStruct().Signature(), 3).AppendBinary(nil))
	f.Add([]byte{})
	f.Add(uv(1, 0, 1<<61, 2, uint64(Int)<<1, uint64(Char)<<1))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSig(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset < 0 || fe.Offset > len(b) {
				t.Fatalf("% x: error %v", b, err)
			}
			return
		}
		enc := s.AppendBinary(nil)
		d, err := DecodeSig(enc)
		if err != nil {
			t.Fatalf("%s: re-encoding % x does not decode: %v", s, enc, err)
		}
		if !d.equal(s) || !d.Equal(s) || d.NumElements() != s.NumElements() || d.Size() != s.Size() || d.Hash() != s.Hash() {
			t.Fatalf("%s decodes, re-encoded, to %s", s, d)
		}
		if !bytes.Equal(d.AppendBinary(nil), enc) {
			t.Fatalf("%s: encoding is not deterministic", s)
		}
		if got := MatchSig(s, 2, d, 2); got.Kind != Match || got.Element != 2*s.NumElements() {
			t.Fatalf("%s: MatchSig with its copy: %+v", s, got)
		}
		// Small ones: the counts agree with the expansion, and the hash
		// with the naive one.
		if s.NumElements() <= 1<<12 {
			seq := expandSig(s)
			var nbytes int64
			for _, x := range seq {
				nbytes += x.Size()
			}
			if int64(len(seq)) != s.NumElements() || nbytes != s.Size() {
				t.Fatalf("%s: %d elements, %d bytes; expansion has %d, %d", s, s.NumElements(), s.Size(), len(seq), nbytes)
			}
			if h := naiveHash(seq); h != s.Hash() {
				t.Fatalf("%s: Hash %#x, naive %#x", s, s.Hash(), h)
			}
		}
	})
}

// expandSig lists the elements of s one by one.
func expandSig(s *Sig) []Basic {
	var out []Basic
	for _, r := range s.Runs() {
		for range r.Count {
			out = append(out, r.Basic)
		}
	}
	return out
}

// naiveHash is the definition of Hash, element by element in big integers.
func naiveHash(seq []Basic) uint64 {
	p := new(big.Int).SetUint64(hashP)
	x := new(big.Int).SetUint64(hashX)
	h := new(big.Int)
	for _, b := range seq {
		h.Mul(h, x)
		h.Add(h, big.NewInt(int64(b)+1))
		h.Mod(h, p)
	}
	return h.Uint64()
}

// randSig builds a small random signature from the normalising builders,
// over few basic types so that different forms of one sequence are common.
func randSig(r *rand.Rand, depth int) *Sig {
	leaves := []Basic{Int, Double, Char}
	if depth == 0 || r.Intn(3) == 0 {
		return runSig(leaves[r.Intn(len(leaves))], int64(1+r.Intn(3)))
	}
	s := &Sig{}
	for range 1 + r.Intn(3) {
		s = concatSig(s, repeatSig(randSig(r, depth-1), int64(r.Intn(4))))
	}
	return s
}

func TestHashNaive(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	var sigs []*Sig
	for range 500 {
		sigs = append(sigs, randSig(r, 3))
	}
	for _, s := range sigCodeSample(t) {
		if s.NumElements() <= 1<<12 {
			sigs = append(sigs, s)
		}
	}
	for _, s := range sigs {
		seq := expandSig(s)
		if h := naiveHash(seq); s.Hash() != h {
			t.Fatalf("%s: Hash %#x, naive %#x", s, s.Hash(), h)
		}
		if c := Compressed(s.Runs()); c.Hash() != s.Hash() {
			t.Fatalf("%s: Hash %#x, of its compressed form %s %#x", s, s.Hash(), c, c.Hash())
		}
		for n := int64(0); n <= 3; n++ {
			var rep []Basic
			for range n {
				rep = append(rep, seq...)
			}
			if got, want := s.HashRepeat(n), naiveHash(rep); got != want {
				t.Fatalf("%s: HashRepeat(%d) %#x, naive %#x", s, n, got, want)
			}
		}
	}
}

// TestHashForms: equal sequences in different regular forms hash equal.
func TestHashForms(t *testing.T) {
	a, b := runSig(Int, 1), runSig(Double, 1)
	ab := concatSig(a, b)
	ba := concatSig(b, a)
	pairs := [][2]*Sig{
		// A (B A)*2 and (A B)*2 A
		{concatSig(a, repeatSig(ba, 2)), concatSig(repeatSig(ab, 2), a)},
		// A (B A)*1000 B and (A B)*1001
		{concatSig(concatSig(a, repeatSig(ba, 1000)), b), repeatSig(ab, 1001)},
		// (A B A B)*3 built flat and nested
		{repeatSig(concatSig(ab, ab), 3), Compressed(repeatSig(ab, 6).Runs())},
		// (A*2 B)*2 A*2 and A*2 (B A*2)*2
		{concatSig(repeatSig(concatSig(runSig(Int, 2), b), 2), runSig(Int, 2)), concatSig(runSig(Int, 2), repeatSig(concatSig(b, runSig(Int, 2)), 2))},
	}
	for _, p := range pairs {
		if !p[0].Equal(p[1]) {
			t.Fatalf("%s and %s: not equal sequences", p[0], p[1])
		}
		if p[0].Hash() != p[1].Hash() || p[0].HashRepeat(5) != p[1].HashRepeat(5) {
			t.Errorf("%s and %s hash differently: %#x, %#x", p[0], p[1], p[0].Hash(), p[1].Hash())
		}
	}
	if s := pairs[0]; s[0].String() == s[1].String() {
		t.Errorf("the forms %s and %s should differ for this test", s[0], s[1])
	}
	// Signatures of real types: a struct array and the same elements as a
	// vector of ints and doubles, and a longer array against HashRepeat.
	big1, big2 := structArray(1_000_000).Signature(), structArray(2_000_000).Signature()
	if big1.HashRepeat(2) != big2.Hash() || repeatSig(big1, 2).Hash() != big2.Hash() {
		t.Errorf("2 × %s hashes %#x, %s %#x", big1, big1.HashRepeat(2), big2, big2.Hash())
	}
	small := structArray(1000).Signature()
	if c := Compressed(small.Runs()); c.Hash() != small.Hash() {
		t.Errorf("%s hashes %#x, its compressed form %#x", small, small.Hash(), c.Hash())
	}
	if h := (&Sig{}).Hash(); h != 0 || small.HashRepeat(0) != 0 {
		t.Errorf("empty signature hashes %#x, zero repetitions %#x", h, small.HashRepeat(0))
	}
}

func TestHashDiffers(t *testing.T) {
	a, b := runSig(Int, 1), runSig(Double, 1)
	ab, ba := concatSig(a, b), concatSig(b, a)
	pairs := [][2]*Sig{
		{a, b},
		{runSig(Int, 2), runSig(Int, 3)},
		{ab, ba},
		{&Sig{}, runSig(Char, 1)},
		{repeatSig(ab, 1000), concatSig(repeatSig(ab, 999), ba)},
		{repeatSig(ab, 1_000_000), repeatSig(ab, 1_000_001)},
		{runSig(Byte, 4), runSig(Char, 4)},
		{structArray(10).Signature(), concatSig(structArray(9).Signature(), repeatSig(ba, 1))},
	}
	for _, p := range pairs {
		if p[0].Hash() == p[1].Hash() {
			t.Errorf("%s and %s hash alike: %#x", p[0], p[1], p[0].Hash())
		}
	}
	if s := structArray(100).Signature(); s.HashRepeat(2) == s.HashRepeat(3) {
		t.Errorf("%s: HashRepeat(2) = HashRepeat(3)", s)
	}
}

func TestMulModP(t *testing.T) {
	p := new(big.Int).SetUint64(hashP)
	r := rand.New(rand.NewSource(5))
	vals := []uint64{0, 1, 2, hashP - 1, hashP - 2, 1 << 60, 1<<61 - 3, hashX}
	for range 1000 {
		vals = append(vals, r.Uint64()%hashP)
	}
	for i, a := range vals {
		b := vals[(i*31+7)%len(vals)]
		want := new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
		want.Mod(want, p)
		if got := mulModP(a, b); got != want.Uint64() {
			t.Fatalf("%d·%d mod P: got %d, want %d", a, b, got, want)
		}
	}
}

// BenchmarkHashRepeat hashes the signature of an MPI call sending count
// instances of an array of a million structs: one repetition of a body of
// three runs, so a handful of doublings per count.
func BenchmarkHashRepeat(b *testing.B) {
	s := structArray(1_000_000).Signature()
	b.ReportAllocs()
	var h uint64
	for i := 0; i < b.N; i++ {
		h ^= s.HashRepeat(int64(i&1023) + 1_000_000)
	}
	_ = h
}

func BenchmarkSigBinary(b *testing.B) {
	s := structArray(1_000_000).Signature()
	buf := s.AppendBinary(nil)
	b.Run("encode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			buf = s.AppendBinary(buf[:0])
		}
	})
	b.Run("decode", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := DecodeSig(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
