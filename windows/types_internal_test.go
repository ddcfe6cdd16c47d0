package windows

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/mpitype"
)

func comb[T Elem](t *testing.T, op Op, a, b T) T {
	t.Helper()
	require.NoError(t, checkOp(op, basicOf[T](), true), "%v on %T", op, a)
	apply(basicOf[T](), op, unsafe.Pointer(&a), unsafe.Pointer(&b))
	return a
}

func TestCombine(t *testing.T) {
	assert.Equal(t, int8(-128), comb(t, OpSum, int8(127), 1), "wraps")
	assert.Equal(t, uint16(6), comb(t, OpProd, uint16(2), 3))
	assert.Equal(t, int64(-1), comb(t, OpMin, int64(-1), 5))
	assert.Equal(t, uint32(5), comb(t, OpMax, uint32(1), 5))
	assert.Equal(t, int32(0), comb(t, OpLand, int32(3), 0))
	assert.Equal(t, int32(1), comb(t, OpLand, int32(3), -2))
	assert.Equal(t, int16(1), comb(t, OpLor, int16(0), 9))
	assert.Equal(t, int16(0), comb(t, OpLxor, int16(4), 9))
	assert.Equal(t, uint8(0b1000), comb(t, OpBand, uint8(0b1100), 0b1010))
	assert.Equal(t, uint8(0b1110), comb(t, OpBor, uint8(0b1100), 0b1010))
	assert.Equal(t, uint8(0b0110), comb(t, OpBxor, uint8(0b1100), 0b1010))
	assert.Equal(t, int(9), comb(t, OpReplace, int(1), 9))
	assert.Equal(t, int(1), comb(t, OpNoOp, int(1), 9))
	assert.Equal(t, 1.5, comb(t, OpSum, 1.0, 0.5))
	assert.Equal(t, float32(2), comb(t, OpMax, float32(-3), 2))
	assert.True(t, math.IsNaN(comb(t, OpMax, math.NaN(), 1)))
	assert.Equal(t, complex(-1, 0), comb(t, OpProd, 1i, 1i))
	assert.Equal(t, complex64(3+1i), comb(t, OpSum, complex64(1+1i), 2))
	assert.Equal(t, false, comb(t, OpLxor, true, true))
	assert.Equal(t, true, comb(t, OpLor, false, true))
	assert.Equal(t, FloatInt{Val: 3, Loc: 1}, comb(t, OpMaxloc, FloatInt{Val: 3, Loc: 1}, FloatInt{Val: 2, Loc: 0}))
	assert.Equal(t, FloatInt{Val: 3, Loc: 0}, comb(t, OpMaxloc, FloatInt{Val: 3, Loc: 1}, FloatInt{Val: 3, Loc: 0}), "tie keeps the lower location")
	assert.Equal(t, DoubleInt{Val: 2, Loc: 7}, comb(t, OpMinloc, DoubleInt{Val: 3, Loc: 1}, DoubleInt{Val: 2, Loc: 7}))
	assert.Equal(t, LongInt{Val: -5, Loc: 2}, comb(t, OpMinloc, LongInt{Val: -5, Loc: 2}, LongInt{Val: -5, Loc: 4}))
	assert.Equal(t, ShortInt{Val: 9, Loc: 3}, comb(t, OpMaxloc, ShortInt{Val: 1, Loc: 1}, ShortInt{Val: 9, Loc: 3}))
	assert.Equal(t, TwoInt{Val: 4, Loc: 4}, comb(t, OpReplace, TwoInt{Val: 1, Loc: 1}, TwoInt{Val: 4, Loc: 4}))

	for _, c := range []struct {
		op Op
		b  Basic
	}{{OpMax, BasicComplex64}, {OpBand, BasicFloat64}, {OpSum, BasicBool}, {OpMaxloc, BasicInt32},
		{OpSum, BasicFloatInt}, {OpSum, BasicByte}, {0, BasicInt8}, {numOps, BasicInt8}} {
		assert.ErrorIs(t, checkOp(c.op, c.b, true), ErrOp, "%v on %v", c.op, c.b)
	}
	assert.ErrorIs(t, checkOp(OpNoOp, BasicInt64, false), ErrOp, "NO_OP in Accumulate")
	assert.NoError(t, checkOp(OpBxor, BasicByte, false))
}

func TestBasicOf(t *testing.T) {
	type myInt int32
	assert.Equal(t, BasicInt32, basicOf[myInt]())
	assert.Equal(t, BasicInt64, basicOf[int]())
	assert.Equal(t, BasicUint8, basicOf[byte]())
	assert.Equal(t, BasicBool, basicOf[bool]())
	assert.Equal(t, BasicShortInt, basicOf[ShortInt]())
	for b := BasicInt8; b < numBasic; b++ {
		assert.Positive(t, b.Size(), "%v", b)
		assert.NotEmpty(t, b.String())
	}
	assert.Equal(t, 8, int(unsafe.Sizeof(ShortInt{})))
	assert.Equal(t, 16, int(unsafe.Sizeof(DoubleInt{})))
	assert.Equal(t, 16, BasicLongInt.Size())
}

func pieces(d Datatype, count int) [][2]int {
	var out [][2]int
	c := d.d.Cursor(count)
	for {
		off, n := c.Next(1 << 30)
		if n == 0 {
			return out
		}
		out = append(out, [2]int{off, n})
	}
}

func TestDatatypes(t *testing.T) {
	v := Vector(3, 2, 4, Int32) // [xx__xx__xx]
	require.NoError(t, v.Err())
	assert.Equal(t, 6, v.Count())
	assert.Equal(t, 40, v.Extent())
	assert.Equal(t, [][2]int{{0, 8}, {16, 8}, {32, 8}, {40, 8}, {56, 8}, {72, 8}}, pieces(v, 2))
	assert.Equal(t, 80, v.d.Span(2))
	c := Contiguous(4, Float64)
	assert.True(t, c.d.Contiguous())
	assert.Equal(t, [][2]int{{0, 32}, {32, 32}}, pieces(c, 2))
	vv := Vector(2, 1, 2, v) // vector of a vector
	require.NoError(t, vv.Err())
	assert.Equal(t, 12, vv.Count())
	assert.False(t, vv.d.Overlap())
	assert.True(t, Vector(2, 3, 2, Int8).d.Overlap())
	assert.Empty(t, pieces(Vector(0, 4, 4, Int8), 3))
	for _, bad := range []Datatype{{}, Vector(-1, 1, 1, Int8), Vector(1, -1, 1, Int8), Vector(2, 1, -3, Int8),
		Vector(2, 1, 1, Datatype{}), Vector(1<<30, 1<<30, 1<<30, Int8)} {
		assert.ErrorIs(t, bad.Err(), ErrType, "%v", bad)
		assert.Equal(t, BasicInvalid, bad.Basic())
	}
	assert.Equal(t, "2 x MPI_DOUBLE", Contiguous(2, Float64).String())

	// Zip splits pieces where either side's pieces end.
	var got [][3]int
	mpitype.Zip(Vector(2, 3, 4, Int8).d.Cursor(1), Vector(3, 2, 3, Int8).d.Cursor(1), func(a, b, n int) {
		got = append(got, [3]int{a, b, n})
	})
	assert.Equal(t, [][3]int{{0, 0, 2}, {2, 3, 1}, {4, 4, 1}, {5, 6, 2}}, got)
}

func TestReconcile(t *testing.T) {
	priv := []byte("aaaaaaaaaaaa")
	pub := []byte("aaaaaaaaaaaa")
	shadow := []byte("aaaaaaaaaaaa")
	priv[1], priv[9] = 'L', 'L' // local stores
	pub[2], pub[10] = 'R', 'R'  // RMA
	priv[5], pub[5] = 'L', 'R'  // a conflict: the local store wins
	reconcile(priv, pub, shadow, false, true)
	assert.Equal(t, "aLRaaLaaaLRa", string(priv), "pull only")
	assert.Equal(t, "aaRaaRaaaaRa", string(pub))
	reconcile(priv, pub, shadow, true, false)
	assert.Equal(t, "aLRaaLaaaLRa", string(pub), "push")
	assert.Equal(t, string(pub), string(shadow))
}

func TestInfo(t *testing.T) {
	s := defaultSettings()
	require.NoError(t, s.apply(Info{InfoNoLocks: "TRUE", InfoAccumulateOrdering: "rar, waw", "unknown": "x",
		InfoAccumulateOps: "same_op", InfoDynamicPool: "4096"}, true))
	assert.True(t, s.noLocks)
	assert.Equal(t, 4096, s.pool)
	info := s.info()
	assert.Equal(t, "true", info[InfoNoLocks])
	assert.Equal(t, "same_op", info[InfoAccumulateOps])
	assert.ErrorIs(t, s.apply(Info{InfoNoLocks: "yes"}, true), ErrInfoValue)
	assert.ErrorIs(t, s.apply(Info{InfoAccumulateOrdering: "rar,xyz"}, true), ErrInfoValue)
	assert.ErrorIs(t, s.apply(Info{InfoAccumulateOps: "any"}, true), ErrInfoValue)
	assert.ErrorIs(t, s.apply(Info{InfoDynamicPool: "-1"}, true), ErrInfoValue)
	assert.ErrorIs(t, s.apply(Info{InfoSameSize: "true"}, false), ErrInfoKey)
	f, err := ParseFlavor("dynamic")
	require.NoError(t, err)
	assert.Equal(t, FlavorDynamic, f)
	_, err = ParseFlavor("x")
	assert.ErrorIs(t, err, ErrArg)
}

func TestErrorClasses(t *testing.T) {
	err := errorf(ClassRMASync, "Unlock of rank %d", 3)
	assert.ErrorIs(t, err, ErrRMASync)
	assert.NotErrorIs(t, err, ErrRMARange)
	assert.Equal(t, ClassRMASync, ClassOf(err))
	assert.Contains(t, err.Error(), "MPI_ERR_RMA_SYNC: Unlock of rank 3")
	assert.Equal(t, ClassSuccess, ClassOf(nil))
	for c := ClassSuccess; c <= ClassOther; c++ {
		assert.Contains(t, c.String(), "MPI_")
	}
}
