package datatype

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
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
	return formatFortran(b, raw)
}

// formatFortran prints a value of a Fortran type as list-directed output
// would: logicals as .TRUE. or .FALSE., complex values as (re,im).
func formatFortran(b Basic, raw []byte) string {
	le := binary.LittleEndian
	switch b {
	case Integer1:
		return strconv.Itoa(int(int8(raw[0])))
	case Integer2:
		return strconv.Itoa(int(int16(le.Uint16(raw))))
	case Integer, Integer4:
		return strconv.Itoa(int(int32(le.Uint32(raw))))
	case Integer8:
		return strconv.FormatInt(int64(le.Uint64(raw)), 10)
	case Integer16:
		v := new(big.Int).SetUint64(le.Uint64(raw[8:]))
		v.Lsh(v, 64).Or(v, new(big.Int).SetUint64(le.Uint64(raw)))
		if raw[15]&0x80 != 0 {
			v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		return v.String()
	case Logical:
		// gfortran writes 1 for .TRUE.; any other non-zero value is
		// not a valid LOGICAL, shown with its bits
		switch v := le.Uint32(raw); v {
		case 0:
			return ".FALSE."
		case 1:
			return ".TRUE."
		default:
			return fmt.Sprintf(".TRUE. (%#x)", v)
		}
	case Character:
		if c := raw[0]; c >= 32 && c < 127 {
			return fmt.Sprintf("%d '%c'", c, c)
		}
		return strconv.Itoa(int(raw[0]))
	case Real2:
		return strconv.FormatFloat(float64(half(le.Uint16(raw))), 'g', -1, 32)
	case Real, Real4:
		return FormatValue(Float, raw)
	case DoublePrecision, Real8:
		return FormatValue(Double, raw)
	case Real16:
		return strconv.FormatFloat(quad(raw), 'g', -1, 64)
	case Complex4, Complex, Complex8, DoubleComplex, Complex16, Complex32:
		part := map[Basic]Basic{Complex4: Real2, Complex: Real, Complex8: Real4, DoubleComplex: DoublePrecision,
			Complex16: Real8, Complex32: Real16}[b]
		n := len(raw) / 2
		return fmt.Sprintf("(%s,%s)", formatFortran(part, raw[:n]), formatFortran(part, raw[n:]))
	}
	return fmt.Sprintf("% x", raw)
}

// half converts an IEEE binary16 value to float32.
func half(h uint16) float32 {
	sign, exp, mant := uint32(h>>15), uint32(h>>10)&0x1f, uint32(h&0x3ff)
	var v float32
	switch {
	case exp == 0x1f && mant == 0:
		v = float32(math.Inf(1))
	case exp == 0x1f:
		return float32(math.NaN())
	case exp == 0:
		v = float32(math.Ldexp(float64(mant), -24))
	default:
		v = float32(math.Ldexp(float64(mant|0x400), int(exp)-25))
	}
	if sign == 1 {
		v = -v
	}
	return v
}

// quad converts an IEEE binary128 value (gfortran's REAL*16) to the
// nearest float64, or ±Inf beyond its range.
func quad(raw []byte) float64 {
	lo := binary.LittleEndian.Uint64(raw[:8])
	hi := binary.LittleEndian.Uint64(raw[8:16])
	sign, exp := hi>>63, int(hi>>48&0x7fff)
	mhi := hi & (1<<48 - 1) // the top 48 of 112 fraction bits
	var v float64
	switch {
	case exp == 0x7fff && mhi == 0 && lo == 0:
		v = math.Inf(1)
	case exp == 0x7fff:
		return math.NaN()
	default:
		frac := math.Ldexp(float64(mhi), -48) + math.Ldexp(float64(lo), -112)
		if exp == 0 {
			v = math.Ldexp(frac, -16382)
		} else {
			v = math.Ldexp(1+frac, exp-16383)
		}
	}
	if sign == 1 {
		v = -v
	}
	return v
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
