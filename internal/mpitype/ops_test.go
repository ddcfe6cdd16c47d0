package mpitype

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floatPool has few values, so that ties, -0 against +0 and NaN against
// numbers all come up often.
var floatPool = []float64{0, math.Copysign(0, -1), 1, -1, 2.5, -7, math.Inf(1), math.Inf(-1), math.NaN()}

// randElems fills n random elements of b, bytes as a peer could send them:
// bools include bytes other than 0 and 1, pairs random padding.
func randElems(r *rand.Rand, b Basic, n int) []byte {
	buf := make([]byte, n*b.Size())
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for i := range n {
		e := buf[i*b.Size():]
		f := floatPool[r.IntN(len(floatPool))]
		switch b {
		case BasicFloat32:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(f)))
		case BasicFloat64:
			binary.LittleEndian.PutUint64(e, math.Float64bits(f))
		case BasicComplex64:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(f)))
			binary.LittleEndian.PutUint32(e[4:], math.Float32bits(float32(floatPool[r.IntN(len(floatPool))])))
		case BasicComplex128:
			binary.LittleEndian.PutUint64(e, math.Float64bits(f))
			binary.LittleEndian.PutUint64(e[8:], math.Float64bits(floatPool[r.IntN(len(floatPool))]))
		case BasicBool:
			e[0] %= 3
		case BasicFloatInt:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(f)))
		case BasicDoubleInt:
			binary.LittleEndian.PutUint64(e, math.Float64bits(f))
		case BasicLongInt: // small values: ties
			binary.LittleEndian.PutUint64(e, uint64(r.IntN(3)-1))
		case BasicTwoInt:
			binary.LittleEndian.PutUint32(e, uint32(r.IntN(3)-1))
		case BasicShortInt:
			binary.LittleEndian.PutUint16(e, uint16(r.IntN(3)-1))
		case BasicTwoReal:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(f)))
			binary.LittleEndian.PutUint32(e[4:], math.Float32bits(float32(r.IntN(4))))
		case BasicTwoDouble:
			binary.LittleEndian.PutUint64(e, math.Float64bits(f))
			binary.LittleEndian.PutUint64(e[8:], math.Float64bits(float64(r.IntN(4))))
		}
		if v, l, ok := b.Pair(); ok && l == BasicInt32 { // packed: the location right after the value
			binary.LittleEndian.PutUint32(e[v.Size():], uint32(r.IntN(4)))
		}
	}
	return buf
}

// inMemory lays n packed elements of b out as they lie in memory (a pair
// in its C struct, padding random).
func inMemory(r *rand.Rand, b Basic, packed []byte, n int) []byte {
	m := BasicMap(b)
	mem := make([]byte, n*b.Extent())
	for i := range mem {
		mem[i] = byte(r.Uint32())
	}
	m.Unpack(mem, packed, n)
	return mem
}

// orderSensitive reports whether the forms' opposite operand orders (see
// floatSlice) can give different NaNs: x86 returns the first NaN operand,
// and inf*0 makes a NaN of its own sign.
func orderSensitive(op Op, b Basic) bool {
	return (op == OpSum || op == OpProd) && b >= BasicFloat32 && b <= BasicComplex128
}

// nanToOne replaces every NaN among the float components in buf with one.
func nanToOne(b Basic, buf []byte) {
	if b == BasicFloat32 || b == BasicComplex64 {
		for i := 0; i < len(buf); i += 4 {
			if f := math.Float32frombits(binary.LittleEndian.Uint32(buf[i:])); f != f {
				binary.LittleEndian.PutUint32(buf[i:], 0x7fc00000)
			}
		}
		return
	}
	for i := 0; i < len(buf); i += 8 {
		if math.IsNaN(math.Float64frombits(binary.LittleEndian.Uint64(buf[i:]))) {
			binary.LittleEndian.PutUint64(buf[i:], 0x7ff8000000000001)
		}
	}
}

// TestReduceMatchesCombine checks the slice-wise form that compat's
// reductions use against the element-wise form that windows' accumulate
// uses, on every op and type the engine defines.
func TestReduceMatchesCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pairs := 0
	for op := OpNull; op < NumOps; op++ {
		for b := BasicInvalid; b < NumBasic; b++ {
			if !op.Defined(b) {
				continue
			}
			pairs++
			for range 20 {
				n := 1 + r.IntN(70)
				dst, src := randElems(r, b, n), randElems(r, b, n)
				slice, elem := bytes.Clone(dst), bytes.Clone(dst)
				Reduce(b, op, slice, src)
				// Combine works on elements in memory: a pair with its
				// padding, which it must leave as it was.
				mem, msrc := inMemory(r, b, elem, n), inMemory(r, b, src, n)
				pad := bytes.Clone(mem)
				for i := 0; i < len(mem); i += b.Extent() {
					Combine(b, op, unsafe.Pointer(&mem[i]), unsafe.Pointer(&msrc[i]))
				}
				m := BasicMap(b)
				m.Pack(elem, mem, n)
				m.Unpack(pad, elem, n)
				require.Equal(t, pad, mem, "%v on %v: padding changed", op, b)
				if orderSensitive(op, b) {
					nanToOne(b, elem)
					nanToOne(b, slice)
				}
				require.Equal(t, elem, slice, "%v on %v: dst %x src %x", op, b, dst, src)
			}
		}
	}
	// 12 ops on 8 integer types, 6 on 3 floats (long double too), 4 on 3
	// complex, 5 on bool and on Byte, 4 on 8 pairs.
	assert.Equal(t, 12*8+6*3+4*3+5+5+4*8, pairs)
	Reduce(BasicInt32, OpSum, nil, nil)
}

func TestPairLayout(t *testing.T) {
	// pairElem finds the location at max(value size, 4).
	assert.EqualValues(t, 4, unsafe.Offsetof(FloatInt{}.Loc))
	assert.EqualValues(t, 8, unsafe.Offsetof(DoubleInt{}.Loc))
	assert.EqualValues(t, 8, unsafe.Offsetof(LongInt{}.Loc))
	assert.EqualValues(t, 4, unsafe.Offsetof(TwoInt{}.Loc))
	assert.EqualValues(t, 4, unsafe.Offsetof(ShortInt{}.Loc))
	assert.EqualValues(t, 4, unsafe.Offsetof(TwoReal{}.Loc))
	assert.EqualValues(t, 8, unsafe.Offsetof(TwoDouble{}.Loc))
	// The engine's layouts are the Go structs'.
	for _, c := range []struct {
		b        Basic
		mem, loc uintptr
	}{{BasicFloatInt, unsafe.Sizeof(FloatInt{}), unsafe.Offsetof(FloatInt{}.Loc)},
		{BasicDoubleInt, unsafe.Sizeof(DoubleInt{}), unsafe.Offsetof(DoubleInt{}.Loc)},
		{BasicLongInt, unsafe.Sizeof(LongInt{}), unsafe.Offsetof(LongInt{}.Loc)},
		{BasicTwoInt, unsafe.Sizeof(TwoInt{}), unsafe.Offsetof(TwoInt{}.Loc)},
		{BasicShortInt, unsafe.Sizeof(ShortInt{}), unsafe.Offsetof(ShortInt{}.Loc)},
		{BasicTwoReal, unsafe.Sizeof(TwoReal{}), unsafe.Offsetof(TwoReal{}.Loc)},
		{BasicTwoDouble, unsafe.Sizeof(TwoDouble{}), unsafe.Offsetof(TwoDouble{}.Loc)}} {
		assert.EqualValues(t, c.mem, c.b.Extent(), "%v", c.b)
		assert.EqualValues(t, c.loc, pairLayouts[c.b].locOff, "%v", c.b)
	}
}

// TestPairSizes checks the pair types' type maps {(value, 0), (location,
// off)}: size without padding, extent with it (MPI-4.1 5.9.4).
func TestPairSizes(t *testing.T) {
	for _, c := range []struct {
		b                     Basic
		size, extent, trueExt int
	}{{BasicFloatInt, 8, 8, 8}, {BasicDoubleInt, 12, 16, 12}, {BasicLongInt, 12, 16, 12},
		{BasicTwoInt, 8, 8, 8}, {BasicShortInt, 6, 8, 8}, {BasicLongDoubleInt, 20, 32, 20},
		{BasicTwoReal, 8, 8, 8}, {BasicTwoDouble, 16, 16, 16}} {
		d := Predefined(c.b)
		assert.Equal(t, c.size, d.Size(), "%v", c.b)
		assert.Equal(t, c.extent, d.Extent(), "%v", c.b)
		assert.Equal(t, c.trueExt, d.TrueExtent(), "%v", c.b)
		assert.Equal(t, c.size == c.extent, MapOf(d).Contiguous(), "%v", c.b)
		// Two elements, and one for the value alone.
		assert.Equal(t, 2, MapOf(d).Elements(c.size), "%v", c.b)
		v, _, _ := c.b.Pair()
		assert.Equal(t, 3, MapOf(d).Elements(c.size+v.Size()), "%v", c.b)
		assert.Equal(t, c.size+v.Size(), MapOf(d).ElementBytes(3), "%v", c.b)
		assert.Equal(t, -1, MapOf(d).Elements(c.size+1), "%v", c.b)
	}
	// {double, int, double} received as MPI_DOUBLE_INT: 3 elements; the
	// struct {double, int} matches the pair, and so do two ints MPI_2INT.
	f64, i32 := Predefined(BasicFloat64), Predefined(BasicInt32)
	di := StructOf([]Block{{0, 1, f64}, {8, 1, i32}})
	assert.True(t, SameSignature(MapOf(di), 3, MapOf(Predefined(BasicDoubleInt)), 3))
	assert.False(t, SameSignature(MapOf(di), 1, MapOf(Predefined(BasicLongInt)), 1))
	assert.True(t, SameSignature(MapOf(Contiguous(4, i32)), 1, MapOf(Predefined(BasicTwoInt)), 2))
	assert.Equal(t, 16, di.Extent())
	// A vector of pairs keeps each pair's padding out of the data.
	v := VectorOf(3, 2, 3, Predefined(BasicDoubleInt))
	assert.Equal(t, 72, v.Size())
	assert.Equal(t, 2*48+16+12, v.TrueExtent())
	src := make([]DoubleInt, 9)
	for i := range src {
		src[i] = DoubleInt{float64(i), int32(-i)}
	}
	pk := make([]byte, 72)
	require.Equal(t, 72, MapOf(v).Pack(pk, AsBytes(src), 1))
	for i, e := range []int{0, 1, 3, 4, 6, 7} {
		assert.Equal(t, float64(e), math.Float64frombits(binary.LittleEndian.Uint64(pk[12*i:])))
		assert.Equal(t, int32(-e), int32(binary.LittleEndian.Uint32(pk[12*i+8:])))
	}
	// external32: 8 + 4 bytes each, big-endian.
	assert.Equal(t, 72, MapOf(v).ExternalSize(1))
	assert.Equal(t, 6, MapOf(Predefined(BasicShortInt)).ExternalSize(1))
	sx := []ShortInt{{-2, 7}}
	ext := make([]byte, 6)
	MapOf(Predefined(BasicShortInt)).PackExternal(ext, AsBytes(sx), 1)
	assert.Equal(t, []byte{0xff, 0xfe, 0, 0, 0, 7}, ext)
	back := []ShortInt{{}}
	MapOf(Predefined(BasicShortInt)).UnpackExternal(AsBytes(back), ext, 1)
	assert.Equal(t, sx, back)
}

// both applies op to d and s by both forms, checks they agree, and
// returns the result.
func both[T Elem](t *testing.T, op Op, d, s T) T {
	t.Helper()
	b := Of[T]()
	require.True(t, op.Defined(b), "%v on %v", op, b)
	e := d
	Combine(b, op, unsafe.Pointer(&e), unsafe.Pointer(&s))
	m := BasicMap(b)
	pd, ps := make([]byte, b.Size()), make([]byte, b.Size())
	m.Pack(pd, AsBytes([]T{d}), 1)
	m.Pack(ps, AsBytes([]T{s}), 1)
	Reduce(b, op, pd, ps) // on the packed form
	sl := []T{d}
	m.Unpack(AsBytes(sl), pd, 1)
	require.Equal(t, AsBytes([]T{e}), AsBytes(sl), "%v on %v", op, b)
	return e
}

func TestOpEdges(t *testing.T) {
	nan, negz := math.NaN(), math.Copysign(0, -1)
	isNaN := math.IsNaN

	// MAX and MIN are Go's max and min, as shmem's team reductions: a NaN
	// wins, +0 beats -0 for MAX and -0 beats +0 for MIN.
	assert.True(t, isNaN(both(t, OpMax, 1, nan)))
	assert.True(t, isNaN(both(t, OpMax, nan, 1)))
	assert.True(t, isNaN(both(t, OpMin, nan, 1)))
	assert.True(t, isNaN(both(t, OpMin, 1, nan)))
	assert.False(t, math.Signbit(both(t, OpMax, negz, 0)), "max(-0, +0) is +0")
	assert.True(t, math.Signbit(both(t, OpMin, 0, negz)), "min(+0, -0) is -0")
	assert.Equal(t, int8(-3), both(t, OpMin, int8(5), -3))

	// MAXLOC and MINLOC ties keep the lower location.
	for _, op := range []Op{OpMaxloc, OpMinloc} {
		assert.Equal(t, FloatInt{3, 0}, both(t, op, FloatInt{3, 1}, FloatInt{3, 0}), "%v", op)
		assert.Equal(t, TwoInt{3, 0}, both(t, op, TwoInt{3, 0}, TwoInt{3, 4}), "%v", op)
		assert.Equal(t, ShortInt{-2, 1}, both(t, op, ShortInt{-2, 1}, ShortInt{-2, 1}), "%v", op)
	}
	assert.Equal(t, LongInt{9, 3}, both(t, OpMaxloc, LongInt{1, 1}, LongInt{9, 3}))
	assert.Equal(t, LongInt{1, 1}, both(t, OpMinloc, LongInt{1, 1}, LongInt{9, 0}))
	assert.Equal(t, LongInt{-4, 7}, both(t, OpMinloc, LongInt{1, 1}, LongInt{-4, 7}))
	// -0 against +0 is a tie: d's value, the lower location.
	d, s := DoubleInt{negz, 5}, DoubleInt{0, 3}
	assert.True(t, math.Signbit(both(t, OpMaxloc, d, s).Val), "a tie keeps d's value")
	assert.Equal(t, int32(3), both(t, OpMaxloc, d, s).Loc)
	assert.Equal(t, int32(3), both(t, OpMinloc, d, s).Loc)
	// A NaN compares false both ways: it never replaces, and one in d stays.
	n1, n2 := DoubleInt{nan, 1}, DoubleInt{2, 2}
	for _, op := range []Op{OpMaxloc, OpMinloc} {
		assert.Equal(t, int32(1), both(t, op, n1, n2).Loc, "%v keeps d on NaN", op)
		assert.Equal(t, int32(2), both(t, op, n2, n1).Loc, "%v keeps d on NaN", op)
	}

	// Logical ops give 1 or 0 and read any nonzero as true.
	assert.Equal(t, int32(1), both(t, OpLand, int32(3), -2))
	assert.Equal(t, int32(0), both(t, OpLand, int32(3), 0))
	assert.Equal(t, int16(1), both(t, OpLor, int16(0), 9))
	assert.Equal(t, int16(0), both(t, OpLxor, int16(4), 9))
	assert.Equal(t, uint64(1), both(t, OpLxor, uint64(0), 1<<63))
	assert.Equal(t, false, both(t, OpLxor, true, true))
	assert.Equal(t, true, both(t, OpLor, false, true))
	assert.Equal(t, false, both(t, OpLand, true, false))
	// A bool byte other than 0 and 1 reads as true and is never stored.
	for _, c := range []struct {
		op       Op
		d, s, to byte
	}{{OpLxor, 2, 1, 0}, {OpLand, 2, 3, 1}, {OpLor, 0, 7, 1}, {OpReplace, 0, 5, 1}, {OpNoOp, 2, 0, 2}} {
		e, sl := []byte{c.d}, []byte{c.d}
		Combine(BasicBool, c.op, unsafe.Pointer(&e[0]), unsafe.Pointer(&c.s))
		Reduce(BasicBool, c.op, sl, []byte{c.s})
		assert.Equal(t, []byte{c.to}, e, "%v %d %d", c.op, c.d, c.s)
		assert.Equal(t, []byte{c.to}, sl, "%v %d %d", c.op, c.d, c.s)
	}

	// Arithmetic wraps; REPLACE copies; NO_OP leaves d.
	assert.Equal(t, int8(-128), both(t, OpSum, int8(127), 1))
	assert.Equal(t, complex(-1, 0), both(t, OpProd, 1i, 1i))
	assert.Equal(t, uint8(0b0110), both(t, OpBxor, uint8(0b1100), 0b1010))
	assert.Equal(t, DoubleInt{4, 4}, both(t, OpReplace, DoubleInt{1, 1}, DoubleInt{4, 4}))
	assert.Equal(t, 1.5, both(t, OpNoOp, 1.5, 9))
}

func TestDefined(t *testing.T) {
	for _, c := range []struct {
		op Op
		b  Basic
	}{{OpMax, BasicComplex64}, {OpBand, BasicFloat64}, {OpSum, BasicBool}, {OpMaxloc, BasicInt32},
		{OpSum, BasicFloatInt}, {OpSum, BasicByte}, {OpLand, BasicByte}, {OpBand, BasicBool},
		{OpMin, BasicComplex128}, {OpNull, BasicInt8}, {NumOps, BasicInt8}, {OpSum, BasicInvalid},
		{OpSum, NumBasic}} {
		assert.False(t, c.op.Defined(c.b), "%v on %v", c.op, c.b)
	}
	for b := BasicInt8; b < NumBasic; b++ {
		assert.True(t, OpReplace.Defined(b) && OpNoOp.Defined(b), "%v", b)
	}
	assert.Equal(t, "MPI_MAX", OpMax.String())
	assert.Equal(t, "MPI_MINLOC", OpMinloc.String())
	assert.Equal(t, "Op(99)", Op(99).String())
}

func BenchmarkCombine(b *testing.B) {
	d, s := 1.0, 2.0
	for b.Loop() {
		Combine(BasicFloat64, OpMax, unsafe.Pointer(&d), unsafe.Pointer(&s))
	}
}

// REPLACE and every other op on MPI_SHORT_INT write its members only,
// never the 2 bytes of padding between them: no hardware swap (which
// would write all 8), and Combine's moves stop at the members.
func TestShortIntPadding(t *testing.T) {
	_, ok := HardwareOp(BasicShortInt, OpReplace)
	assert.False(t, ok, "a swap would write the padding")
	_, ok = HardwareOp(BasicTwoInt, OpReplace)
	assert.True(t, ok, "MPI_2INT has no padding: a swap is right")
	for _, op := range []Op{OpReplace, OpMaxloc, OpMinloc, OpNoOp} {
		dst := [8]byte{1, 0, 0xab, 0xab, 5, 0, 0, 0}
		src := [8]byte{9, 0, 0x11, 0x22, 3, 0, 0, 0}
		Combine(BasicShortInt, op, unsafe.Pointer(&dst), unsafe.Pointer(&src))
		assert.Equal(t, [2]byte{0xab, 0xab}, [2]byte{dst[2], dst[3]}, "%v", op)
		if op == OpReplace || op == OpMaxloc {
			assert.Equal(t, []byte{9, 0, 3, 0, 0, 0}, []byte{dst[0], dst[1], dst[4], dst[5], dst[6], dst[7]}, "%v", op)
		}
	}
}
