package mpitype

import (
	"encoding/binary"
	"math/big"
	"unsafe"
)

// The long double family (MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX,
// MPI_LONG_DOUBLE_INT) in x86-64's layout: the x87 80-bit extended format
// (a 64-bit significand with an explicit integer bit, 15 exponent bits of
// bias 16383, a sign) in the low 10 bytes of 16. Go has no such float, so
// the arithmetic is done exactly in math/big and rounded once to 64
// significand bits, to nearest even, as the x87 unit does at its default
// precision; NaN and the infinities follow IEEE 754.

// ld is a decoded long double.
type ld struct {
	neg      bool
	inf, nan bool
	f        *big.Float // finite value (nil for specials)
}

const ldBias = 16383

func ldDecode(p unsafe.Pointer) ld {
	b := unsafe.Slice((*byte)(p), 10)
	mant := binary.LittleEndian.Uint64(b)
	se := binary.LittleEndian.Uint16(b[8:])
	neg, exp := se&0x8000 != 0, int(se&0x7fff)
	if exp == 0x7fff {
		if mant<<1 == 0 {
			return ld{neg: neg, inf: true}
		}
		return ld{neg: neg, nan: true}
	}
	f := new(big.Float).SetPrec(64).SetUint64(mant)
	if exp == 0 {
		exp = 1 // denormal: no integer bit, the least exponent
	}
	f.SetMantExp(f, exp-ldBias-63)
	if neg {
		f.Neg(f)
	}
	return ld{neg: neg, f: f}
}

// ldEncode writes v into the 10 value bytes at p, leaving the padding.
func ldEncode(p unsafe.Pointer, v ld) {
	b := unsafe.Slice((*byte)(p), 10)
	var mant uint64
	var se uint16
	switch {
	case v.nan:
		mant, se = 0xC000000000000000, 0x7fff
	case v.inf:
		mant, se = 0x8000000000000000, 0x7fff
	case v.f.Sign() == 0:
	default:
		f := new(big.Float).Abs(v.f)
		e := f.MantExp(nil) - 1 // f = 1.x * 2^e
		E := e + ldBias
		prec := uint(64)
		if E <= 0 { // denormal: fewer significand bits
			if 64-(1-E) <= 0 {
				// Rounds to 0 or to the least denormal.
				f.SetMantExp(f, ldBias+62)
				if f.Cmp(big.NewFloat(0.5)) > 0 {
					mant = 1
				}
				break
			}
			prec = uint(64 - (1 - E))
		}
		f.SetMode(big.ToNearestEven).SetPrec(prec)
		f.SetPrec(64)
		e = f.MantExp(nil) - 1
		E = e + ldBias
		if E >= 0x7fff {
			mant, se = 0x8000000000000000, 0x7fff
			break
		}
		if E <= 0 {
			f.SetMantExp(f, ldBias+62)
			E = 0
		} else {
			f.SetMantExp(f, 63-e)
		}
		mant, _ = f.Uint64()
		se = uint16(E)
	}
	if v.neg {
		se |= 0x8000
	}
	binary.LittleEndian.PutUint64(b, mant)
	binary.LittleEndian.PutUint16(b[8:], se)
}

func ldFinite(f *big.Float) ld {
	return ld{neg: f.Signbit(), f: f}
}

// ldArith is d op s for SUM and PROD.
func ldArith(op Op, d, s ld) ld {
	switch {
	case d.nan:
		return d
	case s.nan:
		return s
	}
	if op == OpSum {
		switch {
		case d.inf && s.inf && d.neg != s.neg:
			return ld{neg: true, nan: true}
		case d.inf:
			return d
		case s.inf:
			return s
		}
		r := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).Add(d.f, s.f)
		if r.Sign() == 0 { // -0 + -0 is -0, any other zero sum +0
			return ld{neg: d.neg && s.neg, f: r}
		}
		return ldFinite(r)
	}
	neg := d.neg != s.neg
	if d.inf || s.inf {
		if (!d.inf && d.f.Sign() == 0) || (!s.inf && s.f.Sign() == 0) {
			return ld{neg: true, nan: true}
		}
		return ld{neg: neg, inf: true}
	}
	r := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven).Mul(d.f, s.f)
	return ld{neg: neg, f: r}
}

// ldCmp compares two long doubles that are not NaN.
func ldCmp(a, b ld) int {
	val := func(x ld) *big.Float {
		if x.inf {
			f := new(big.Float).SetInf(x.neg)
			return f
		}
		return x.f
	}
	return val(a).Cmp(val(b))
}

// ldMaxMin is Go's max (min) on long doubles: a NaN wins, +0 beats -0 for
// max and -0 beats +0 for min.
func ldMaxMin(op Op, d, s ld) ld {
	switch {
	case d.nan:
		return d
	case s.nan:
		return s
	}
	c := ldCmp(d, s)
	if c == 0 {
		if op == OpMax {
			return ld{neg: d.neg && s.neg, inf: d.inf, f: d.f}
		}
		return ld{neg: d.neg || s.neg, inf: d.inf, f: d.f}
	}
	if (op == OpMax) == (c > 0) {
		return d
	}
	return s
}

func ldElem(op Op, dst, src unsafe.Pointer) {
	switch op {
	case OpSum, OpProd:
		ldEncode(dst, ldArith(op, ldDecode(dst), ldDecode(src)))
	case OpMax, OpMin:
		ldEncode(dst, ldMaxMin(op, ldDecode(dst), ldDecode(src)))
	case OpReplace:
		copy(unsafe.Slice((*byte)(dst), 16), unsafe.Slice((*byte)(src), 16))
	}
}

func cldElem(op Op, dst, src unsafe.Pointer) {
	dr, di := ldDecode(dst), ldDecode(unsafe.Add(dst, 16))
	sr, si := ldDecode(src), ldDecode(unsafe.Add(src, 16))
	switch op {
	case OpSum:
		ldEncode(dst, ldArith(OpSum, dr, sr))
		ldEncode(unsafe.Add(dst, 16), ldArith(OpSum, di, si))
	case OpProd:
		neg := func(x ld) ld {
			x.neg = !x.neg
			if x.f != nil {
				x.f = new(big.Float).Neg(x.f)
			}
			return x
		}
		re := ldArith(OpSum, ldArith(OpProd, dr, sr), neg(ldArith(OpProd, di, si)))
		im := ldArith(OpSum, ldArith(OpProd, dr, si), ldArith(OpProd, di, sr))
		ldEncode(dst, re)
		ldEncode(unsafe.Add(dst, 16), im)
	case OpReplace:
		copy(unsafe.Slice((*byte)(dst), 32), unsafe.Slice((*byte)(src), 32))
	}
}

// ldLocElem is MAXLOC/MINLOC on MPI_LONG_DOUBLE_INT: the value in the
// first 16 bytes, the int32 location at 16.
func ldLocElem(op Op, dst, src unsafe.Pointer) {
	if op == OpReplace {
		copy(unsafe.Slice((*byte)(dst), 20), unsafe.Slice((*byte)(src), 20))
		return
	}
	if op != OpMaxloc && op != OpMinloc {
		return
	}
	d, s := ldDecode(dst), ldDecode(src)
	dl, sl := (*int32)(unsafe.Add(dst, 16)), *(*int32)(unsafe.Add(src, 16))
	if d.nan || s.nan {
		return
	}
	switch c := ldCmp(d, s); {
	case c == 0:
		*dl = min(*dl, sl)
	case op == OpMaxloc && c < 0, op == OpMinloc && c > 0:
		copy(unsafe.Slice((*byte)(dst), 10), unsafe.Slice((*byte)(src), 10))
		*dl = sl
	}
}

// ldSlice applies elem to each packed element of size sz.
func ldSlice(elem func(Op, unsafe.Pointer, unsafe.Pointer), sz int, op Op, dst, src []byte) {
	for i := 0; i+sz <= len(dst) && i+sz <= len(src); i += sz {
		elem(op, unsafe.Pointer(&dst[i]), unsafe.Pointer(&src[i]))
	}
}
