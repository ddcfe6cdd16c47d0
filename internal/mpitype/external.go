package mpitype

import (
	"encoding/binary"
	"math/big"
	"unsafe"
)

// external32 (MPI-4.1 15.5.2): every element big-endian, with no padding,
// in the standard's sizes (Seg.Ext): integers two's complement (a C long
// in 4 bytes), floats IEEE (a long double as binary128), complex as two
// floats, a pair type as its value and its location.

// ExternalSize returns the bytes count instances take in external32.
func (m *Map) ExternalSize(count int) int {
	n := 0
	m.eachSeg(1, func(s Seg) bool { n += s.N * int(s.Ext); return true })
	return n * count
}

// component is one scalar of a basic type: kind 'i' (signed), 'u', 'f'
// (IEEE), 'x' (x87 long double); native and external sizes and offset.
type component struct {
	kind     byte
	off, ns  int
	external int
}

func componentsOf(b Basic, ext int) []component {
	switch b {
	case BasicInt8, BasicInt16, BasicInt32, BasicInt64:
		return []component{{'i', 0, b.Size(), ext}}
	case BasicUint8, BasicUint16, BasicUint32, BasicUint64, BasicBool, BasicByte:
		return []component{{'u', 0, b.Size(), ext}}
	case BasicFloat32, BasicFloat64:
		return []component{{'f', 0, b.Size(), b.Size()}}
	case BasicComplex64:
		return []component{{'f', 0, 4, 4}, {'f', 4, 4, 4}}
	case BasicComplex128:
		return []component{{'f', 0, 8, 8}, {'f', 8, 8, 8}}
	case BasicLongDouble:
		return []component{{'x', 0, 16, 16}}
	case BasicComplexLongDouble:
		return []component{{'x', 0, 16, 16}, {'x', 16, 16, 16}}
	}
	if v, l, ok := b.Pair(); ok { // packed: the location right after the value
		vc, lc := componentsOf(v, pairLayouts[b].valExt), componentsOf(l, l.Ext32())
		lc[0].off = v.Size()
		return append(vc, lc...)
	}
	return nil
}

// PackExternal packs count instances laid out in src into dst (of
// ExternalSize(count) bytes) in external32.
func (m *Map) PackExternal(dst, src []byte, count int) {
	native := make([]byte, count*m.size)
	m.Pack(native, src, count)
	m.convert(native, dst, count, true)
}

// UnpackExternal is PackExternal's inverse.
func (m *Map) UnpackExternal(dst, src []byte, count int) {
	native := make([]byte, count*m.size)
	m.convert(native, src, count, false)
	m.Unpack(dst, native, count)
}

// convert turns packed native bytes into external32 (out true) or back.
func (m *Map) convert(native, ext []byte, count int, out bool) {
	n, e := 0, 0
	m.eachSeg(count, func(s Seg) bool {
		cs := componentsOf(s.B, int(s.Ext))
		sz := s.B.Size()
		for range s.N {
			for _, c := range cs {
				nb, eb := native[n+c.off:n+c.off+c.ns], ext[e:e+c.external]
				if out {
					toExternal(c, nb, eb)
				} else {
					fromExternal(c, nb, eb)
				}
				e += c.external
			}
			n += sz
		}
		return true
	})
}

func toExternal(c component, nb, eb []byte) {
	switch c.kind {
	case 'x':
		x87ToQuad(nb, eb)
	default: // little-endian native, big-endian external; narrowing keeps the low bytes
		for i := range c.external {
			eb[c.external-1-i] = 0
			if i < c.ns {
				eb[c.external-1-i] = nb[i]
			}
		}
	}
}

func fromExternal(c component, nb, eb []byte) {
	switch c.kind {
	case 'x':
		quadToX87(eb, nb)
	default:
		var fill byte
		if c.kind == 'i' && eb[0]&0x80 != 0 && c.ns > c.external {
			fill = 0xff
		}
		for i := range c.ns {
			nb[i] = fill
			if i < c.external {
				nb[i] = eb[c.external-1-i]
			}
		}
	}
}

// x87ToQuad writes the x87 long double at nb as big-endian binary128.
func x87ToQuad(nb, eb []byte) {
	mant := binary.LittleEndian.Uint64(nb)
	se := binary.LittleEndian.Uint16(nb[8:])
	sign, exp := se&0x8000, int(se&0x7fff)
	var hi, lo uint64 // 112 fraction bits: hi's low 48, lo
	qexp := 0
	switch {
	case exp == 0x7fff:
		qexp = 0x7fff
		frac := mant << 1 // drop the integer bit
		hi, lo = frac>>16, frac<<48
	case exp == 0 && mant == 0:
	default:
		v := ldDecode(unsafe.Pointer(&nb[0]))
		f := new(big.Float).Abs(v.f)
		e := f.MantExp(nil) - 1
		qexp = e + 16383
		if qexp <= 0 { // a quad denormal (x87 range is the same: not reached)
			qexp = 0
		}
		// Significand bits after the leading one: 63 at most.
		frac := mant << (64 - (64 - int(leading(mant)))) // remove leading zeros and the leading one
		frac <<= 1
		hi, lo = frac>>16, frac<<48
	}
	hi |= uint64(sign)<<48 | uint64(qexp)<<48
	binary.BigEndian.PutUint64(eb, hi)
	binary.BigEndian.PutUint64(eb[8:], lo)
}

func leading(x uint64) uint {
	n := uint(0)
	for x&(1<<63) == 0 && n < 64 {
		x <<= 1
		n++
	}
	return n
}

// quadToX87 reads big-endian binary128 at eb into an x87 long double at
// nb (rounded to 64 significand bits).
func quadToX87(eb, nb []byte) {
	hi, lo := binary.BigEndian.Uint64(eb), binary.BigEndian.Uint64(eb[8:])
	neg := hi&(1<<63) != 0
	exp := int(hi>>48) & 0x7fff
	fhi := hi & (1<<48 - 1)
	var v ld
	switch {
	case exp == 0x7fff && fhi == 0 && lo == 0:
		v = ld{neg: neg, inf: true}
	case exp == 0x7fff:
		v = ld{neg: neg, nan: true}
	default:
		f := new(big.Float).SetPrec(113).SetUint64(fhi)
		f.SetMantExp(f, 64)
		f.Add(f, new(big.Float).SetPrec(113).SetUint64(lo))
		e := exp - 16383 - 112
		if exp == 0 {
			e = 1 - 16383 - 112
		} else {
			f.Add(f, new(big.Float).SetMantExp(big.NewFloat(1), 112))
		}
		f.SetMantExp(f, e)
		if neg {
			f.Neg(f)
		}
		v = ld{neg: neg, f: f}
	}
	ldEncode(unsafe.Pointer(&nb[0]), v)
}
