package datatype

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestDecode(t *testing.T) {
	s := exampleStruct()
	mem := make([]byte, s.TrueExtent())
	for i := 0; i < 5; i++ {
		binary.LittleEndian.PutUint32(mem[4*i:], uint32(10*i-3))
	}
	copy(mem[47:], "mpidbg!")
	binary.LittleEndian.PutUint64(mem[76:], math.Float64bits(2.5))
	binary.LittleEndian.PutUint64(mem[84:], math.Float64bits(-1e-3))
	vals, err := s.Decode(mem, s.TrueLB(), 1, 3, 12)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ path, text string }{
		{"s_type(STRUCT)[1][3](INT)", "27"},
		{"s_type(STRUCT)[1][4](INT)", "37"},
		{"s_type(STRUCT)[2][0](CHAR)", "109 'm'"},
		{"s_type(STRUCT)[2][1](CHAR)", "112 'p'"},
		{"s_type(STRUCT)[2][2](CHAR)", "105 'i'"},
		{"s_type(STRUCT)[2][3](CHAR)", "100 'd'"},
		{"s_type(STRUCT)[2][4](CHAR)", "98 'b'"},
		{"s_type(STRUCT)[2][5](CHAR)", "103 'g'"},
		{"s_type(STRUCT)[2][6](CHAR)", "33 '!'"},
		{"s_type(STRUCT)[3][0](DOUBLE)", "2.5"},
		{"s_type(STRUCT)[3][1](DOUBLE)", "-0.001"},
	}
	if len(vals) != len(want) {
		t.Fatalf("got %d values, want %d (the type has 14 elements)", len(vals), len(want))
	}
	for i, w := range want {
		if got := vals[i].Path.String(); got != w.path || vals[i].Text != w.text {
			t.Errorf("value %d: got %s = %s, want %s = %s", i, got, vals[i].Text, w.path, w.text)
		}
	}
	// memory that does not reach the doubles
	vals, _ = s.Decode(mem[:80], 0, 1, 12, 2)
	if vals[0].Text != "<not in memory>" || vals[0].Raw != nil {
		t.Errorf("got %q, want the element marked as not in memory", vals[0].Text)
	}
	if _, err := s.Decode(mem, 0, 1, 14, 1); err == nil {
		t.Error("element 14 of 14: got no error")
	}
}

func TestFormatValue(t *testing.T) {
	ld := make([]byte, 16) // 1.5 as x87 extended: mantissa 0xC000..., exponent 16383
	binary.LittleEndian.PutUint64(ld, 0xC000000000000000)
	binary.LittleEndian.PutUint16(ld[8:], 16383)
	tests := []struct {
		b    Basic
		raw  []byte
		want string
	}{
		{LongDouble, ld, "1.5"},
		{UnsignedChar, []byte{200}, "200"},
		{Byte, []byte{0xab}, "0xab"},
		{CBool, []byte{1}, "true"},
		{Short, []byte{0xff, 0xff}, "-1"},
		{Float, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.25)), "0.25"},
		{Int, []byte{1, 2}, "<2 bytes for INT>"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.b, tt.raw); got != tt.want {
			t.Errorf("%v % x: got %q, want %q", tt.b, tt.raw, got, tt.want)
		}
	}
}

func TestTrees(t *testing.T) {
	s := exampleStruct()
	meta := s.MetaTree()
	if len(meta.Children) != 5 || meta.Children[2].Edge != "[2] 7 x at +47" || meta.Children[2].Type != P(Char) {
		t.Errorf("meta tree: got %d children, child 2 %q", len(meta.Children), meta.Children[2].Edge)
	}
	v := mustType(Vector(2, 3, 4, s))
	x := v.ExpandedTree(2, 20)
	// instance 0 (1 node), its first struct (1) and the struct's 16 members
	// including the markers, the second struct (1) and one member (1): the
	// budget of 20 runs out inside instance 0
	if len(x.Children) != 1 || x.More != 1 {
		t.Fatalf("expanded: got %d instances shown, %d more; want 1 and 1", len(x.Children), x.More)
	}
	first := x.Children[0]
	if got := first.Children[1].Index; len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("second child index: got %v, want [0 1]", got)
	}
	if first.Children[1].Offset != s.Extent() {
		t.Errorf("second child offset: got %d, want %d", first.Children[1].Offset, s.Extent())
	}
	if got := mustType(Vector(2, 5, 3, P(Char))).Args(); got != "count=2 blocklength=5 stride=3" {
		t.Errorf("args: got %q", got)
	}
}
