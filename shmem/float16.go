package shmem

import "math"

// Float16 is an IEEE 754 binary16 (CUDA's half, NVSHMEM's half): its bits.
// Reductions fold it in float32 and round back to nearest even; float32
// holds at least twice its precision plus two bits, so every sum and
// product is the correctly rounded binary16 one, and min and max (Go's:
// a NaN wins, -0 below +0) are exact. Bitwise ops are refused, as for
// floats, and device heaps have no kernel for it (ErrUnsupported).
type Float16 uint16

// BFloat16 is a bfloat16 (CUDA's __nv_bfloat16): the top half of a
// float32's bits. Reductions fold it as Float16's are.
type BFloat16 uint16

// Float32 is f's value.
func (f Float16) Float32() float32 {
	sign := uint32(f&0x8000) << 16
	exp, man := uint32(f>>10&0x1f), uint32(f&0x3ff)
	switch exp {
	case 0: // zero or subnormal: man units of 2^-24, exact in float32
		v := float32(man) * (1.0 / (1 << 24))
		return math.Float32frombits(math.Float32bits(v) | sign)
	case 0x1f: // infinity or NaN, the payload kept
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp-15+127)<<23 | man<<13)
}

// Float16From is v rounded to the nearest Float16, ties to even (a NaN
// stays a NaN, quiet).
func Float16From(v float32) Float16 {
	b := math.Float32bits(v)
	sign := uint32(b>>16) & 0x8000
	exp, man := int(b>>23&0xff), b&0x7fffff
	if exp == 0xff {
		if man != 0 {
			return Float16(sign | 0x7e00 | man>>13)
		}
		return Float16(sign | 0x7c00)
	}
	var q, rem, half uint32
	if e := exp - 127 + 15; e > 0 {
		// Normal: 10 of the 23 bits; a carry out of the mantissa moves
		// the exponent on, to infinity past the largest.
		if e >= 0x1f {
			return Float16(sign | 0x7c00)
		}
		q, rem, half = uint32(e)<<10|man>>13, man&0x1fff, 0x1000
	} else {
		// Subnormal: the 24-bit significand in units of 2^-24.
		s := uint(126 - exp)
		if exp == 0 || s >= 25 {
			return Float16(sign) // below a quarter of the least subnormal
		}
		m := man | 0x800000
		q, rem, half = m>>s, m&(1<<s-1), 1<<(s-1)
	}
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return Float16(sign | q)
}

// Float32 is f's value.
func (f BFloat16) Float32() float32 { return math.Float32frombits(uint32(f) << 16) }

// BFloat16From is v rounded to the nearest BFloat16, ties to even (a NaN
// stays a NaN, quiet).
func BFloat16From(v float32) BFloat16 {
	b := math.Float32bits(v)
	if b&0x7fffffff > 0x7f800000 {
		return BFloat16(b>>16 | 0x40)
	}
	return BFloat16((b + 0x7fff + (b >> 16 & 1)) >> 16)
}

// combine2 is combine for the 2-byte floats: each pair folded in float32
// by combineOrdered's arithmetic and rounded back.
func combine2[T ~uint16](op ReduceOp, acc, in []T, wide func(T) float32, narrow func(float32) T) {
	in = in[:len(acc)]
	var a, b [1]float32
	for i := range acc {
		a[0], b[0] = wide(acc[i]), wide(in[i])
		combineOrdered(op, a[:], b[:])
		acc[i] = narrow(a[0])
	}
}

// isFloat2 reports whether T is Float16 or BFloat16.
func isFloat2[T any]() bool {
	var z T
	switch any(z).(type) {
	case Float16, BFloat16:
		return true
	}
	return false
}
