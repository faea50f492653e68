package datatype

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Value is one basic element of a buffer with its bytes and their reading.
type Value struct {
	Element
	Raw  []byte // the element's bytes, nil when outside the memory given
	Text string // the value as C would print it, or a note why it is missing
}

// Decode reads elements first .. first+limit-1 (type-map order) of a
// buffer of count instances of t. mem holds the buffer's memory starting at
// byte memStart relative to the buffer pointer (usually TrueLB, which may
// be negative). Elements outside mem are returned with Raw nil. Values are
// read as little-endian LP64 (x86_64, aarch64).
func (t *Type) Decode(mem []byte, memStart, count, first, limit int64) ([]Value, error) {
	total := t.nelem * count
	if first < 0 || (first >= total && total > 0) {
		return nil, fmt.Errorf("decode: first element %d of %d: %w", first, total, ErrOutOfRange)
	}
	end := min(total, first+limit)
	out := make([]Value, 0, max(end-first, 0))
	for i := first; i < end; i++ {
		el, err := t.ElementAt(count, i)
		if err != nil {
			return out, err
		}
		v := Value{Element: el}
		lo := el.Offset - memStart
		if lo < 0 || lo+el.Basic.Size() > int64(len(mem)) {
			v.Text = "<not in memory>"
		} else {
			v.Raw = mem[lo : lo+el.Basic.Size()]
			v.Text = FormatValue(el.Basic, v.Raw)
		}
		out = append(out, v)
	}
	return out, nil
}

// FormatValue prints the little-endian bytes of one value of basic type b.
func FormatValue(b Basic, raw []byte) string {
	if int64(len(raw)) != b.Size() {
		return fmt.Sprintf("<%d bytes for %s>", len(raw), b)
	}
	le := binary.LittleEndian
	switch b {
	case Char, SignedChar, Int8:
		c := int8(raw[0])
		if c >= 32 && c < 127 {
			return fmt.Sprintf("%d '%c'", c, c)
		}
		return strconv.Itoa(int(c))
	case UnsignedChar, Uint8:
		return strconv.Itoa(int(raw[0]))
	case Byte, Packed:
		return fmt.Sprintf("0x%02x", raw[0])
	case CBool:
		return strconv.FormatBool(raw[0] != 0)
	case Short, Int16:
		return strconv.Itoa(int(int16(le.Uint16(raw))))
	case UnsignedShort, Uint16:
		return strconv.Itoa(int(le.Uint16(raw)))
	case Int, Int32:
		return strconv.Itoa(int(int32(le.Uint32(raw))))
	case WChar:
		r := rune(int32(le.Uint32(raw)))
		if r >= 32 && r < 0x10ffff {
			return fmt.Sprintf("%d L'%c'", r, r)
		}
		return strconv.Itoa(int(r))
	case Unsigned, Uint32:
		return strconv.FormatUint(uint64(le.Uint32(raw)), 10)
	case Long, LongLong, Int64, Aint, Offset, Count:
		return strconv.FormatInt(int64(le.Uint64(raw)), 10)
	case UnsignedLong, UnsignedLongLong, Uint64:
		return strconv.FormatUint(le.Uint64(raw), 10)
	case Float:
		return strconv.FormatFloat(float64(math.Float32frombits(le.Uint32(raw))), 'g', -1, 32)
	case Double:
		return strconv.FormatFloat(math.Float64frombits(le.Uint64(raw)), 'g', -1, 64)
	case LongDouble:
		return strconv.FormatFloat(x87(raw), 'g', -1, 64)
	case CFloatComplex:
		return fmt.Sprintf("%s + %si", FormatValue(Float, raw[:4]), FormatValue(Float, raw[4:]))
	case CDoubleComplex:
		return fmt.Sprintf("%s + %si", FormatValue(Double, raw[:8]), FormatValue(Double, raw[8:]))
	case CLongDoubleComplex:
		return fmt.Sprintf("%s + %si", FormatValue(LongDouble, raw[:16]), FormatValue(LongDouble, raw[16:]))
	}
	return fmt.Sprintf("% x", raw)
}

// x87 converts an x86 80-bit extended value (in the low 10 of 16 bytes) to
// the nearest float64.
func x87(raw []byte) float64 {
	mant := binary.LittleEndian.Uint64(raw[:8])
	se := binary.LittleEndian.Uint16(raw[8:10])
	sign, exp := se>>15, int(se&0x7fff)
	var v float64
	switch {
	case exp == 0x7fff && mant<<1 == 0:
		v = math.Inf(1)
	case exp == 0x7fff:
		return math.NaN()
	case exp == 0:
		v = math.Ldexp(float64(mant), -16382-63)
	default:
		v = math.Ldexp(float64(mant), exp-16383-63)
	}
	if sign == 1 {
		v = -v
	}
	return v
}
