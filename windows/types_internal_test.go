package windows

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

func comb[T compat.Elem](t *testing.T, op compat.Op, a, b T) T {
	t.Helper()
	require.NoError(t, checkOp(op, mpitype.Of[T](), true), "%v on %T", op, a)
	apply(mpitype.Of[T](), op, unsafe.Pointer(&a), unsafe.Pointer(&b))
	return a
}

func TestCombine(t *testing.T) {
	assert.Equal(t, int8(-128), comb(t, compat.OpSum, int8(127), 1), "wraps")
	assert.Equal(t, uint16(6), comb(t, compat.OpProd, uint16(2), 3))
	assert.Equal(t, int64(-1), comb(t, compat.OpMin, int64(-1), 5))
	assert.Equal(t, uint32(5), comb(t, compat.OpMax, uint32(1), 5))
	assert.Equal(t, int32(0), comb(t, compat.OpLand, int32(3), 0))
	assert.Equal(t, int32(1), comb(t, compat.OpLand, int32(3), -2))
	assert.Equal(t, int16(1), comb(t, compat.OpLor, int16(0), 9))
	assert.Equal(t, int16(0), comb(t, compat.OpLxor, int16(4), 9))
	assert.Equal(t, uint8(0b1000), comb(t, compat.OpBand, uint8(0b1100), 0b1010))
	assert.Equal(t, uint8(0b1110), comb(t, compat.OpBor, uint8(0b1100), 0b1010))
	assert.Equal(t, uint8(0b0110), comb(t, compat.OpBxor, uint8(0b1100), 0b1010))
	assert.Equal(t, int(9), comb(t, compat.OpReplace, int(1), 9))
	assert.Equal(t, int(1), comb(t, compat.OpNoOp, int(1), 9))
	assert.Equal(t, 1.5, comb(t, compat.OpSum, 1.0, 0.5))
	assert.Equal(t, float32(2), comb(t, compat.OpMax, float32(-3), 2))
	assert.True(t, math.IsNaN(comb(t, compat.OpMax, math.NaN(), 1)))
	assert.Equal(t, complex(-1, 0), comb(t, compat.OpProd, 1i, 1i))
	assert.Equal(t, complex64(3+1i), comb(t, compat.OpSum, complex64(1+1i), 2))
	assert.Equal(t, false, comb(t, compat.OpLxor, true, true))
	assert.Equal(t, true, comb(t, compat.OpLor, false, true))
	assert.Equal(t, compat.FloatInt{Val: 3, Loc: 1}, comb(t, compat.OpMaxloc, compat.FloatInt{Val: 3, Loc: 1}, compat.FloatInt{Val: 2, Loc: 0}))
	assert.Equal(t, compat.FloatInt{Val: 3, Loc: 0}, comb(t, compat.OpMaxloc, compat.FloatInt{Val: 3, Loc: 1}, compat.FloatInt{Val: 3, Loc: 0}), "tie keeps the lower location")
	assert.Equal(t, compat.DoubleInt{Val: 2, Loc: 7}, comb(t, compat.OpMinloc, compat.DoubleInt{Val: 3, Loc: 1}, compat.DoubleInt{Val: 2, Loc: 7}))
	assert.Equal(t, compat.LongInt{Val: -5, Loc: 2}, comb(t, compat.OpMinloc, compat.LongInt{Val: -5, Loc: 2}, compat.LongInt{Val: -5, Loc: 4}))
	assert.Equal(t, compat.ShortInt{Val: 9, Loc: 3}, comb(t, compat.OpMaxloc, compat.ShortInt{Val: 1, Loc: 1}, compat.ShortInt{Val: 9, Loc: 3}))
	assert.Equal(t, compat.TwoInt{Val: 4, Loc: 4}, comb(t, compat.OpReplace, compat.TwoInt{Val: 1, Loc: 1}, compat.TwoInt{Val: 4, Loc: 4}))

	for _, c := range []struct {
		op compat.Op
		b  mpitype.Basic
	}{{compat.OpMax, mpitype.BasicComplex64}, {compat.OpBand, mpitype.BasicFloat64}, {compat.OpSum, mpitype.BasicBool}, {compat.OpMaxloc, mpitype.BasicInt32},
		{compat.OpSum, mpitype.BasicFloatInt}, {compat.OpSum, mpitype.BasicByte}, {0, mpitype.BasicInt8}, {mpitype.NumOps, mpitype.BasicInt8}} {
		assert.ErrorIs(t, checkOp(c.op, c.b, true), compat.ErrOp, "%v on %v", c.op, c.b)
	}
	assert.ErrorIs(t, checkOp(compat.OpNoOp, mpitype.BasicInt64, false), compat.ErrOp, "NO_OP in Accumulate")
	assert.NoError(t, checkOp(compat.OpBxor, mpitype.BasicByte, false))
}

func TestBasicOf(t *testing.T) {
	type myInt int32
	assert.Equal(t, mpitype.BasicInt32, mpitype.Of[myInt]())
	assert.Equal(t, mpitype.BasicInt64, mpitype.Of[int]())
	assert.Equal(t, mpitype.BasicUint8, mpitype.Of[byte]())
	assert.Equal(t, mpitype.BasicBool, mpitype.Of[bool]())
	assert.Equal(t, mpitype.BasicShortInt, mpitype.Of[compat.ShortInt]())
	for b := mpitype.BasicInt8; b < mpitype.NumBasic; b++ {
		assert.Positive(t, b.Size(), "%v", b)
		assert.NotEmpty(t, b.String())
	}
	assert.Equal(t, 8, int(unsafe.Sizeof(compat.ShortInt{})))
	assert.Equal(t, 16, int(unsafe.Sizeof(compat.DoubleInt{})))
	assert.Equal(t, 12, mpitype.BasicLongInt.Size()) // the members' bytes: a long and an int (its extent keeps the padding)
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
	require.NoError(t, s.apply(compat.Info{InfoNoLocks: "TRUE", InfoAccumulateOrdering: "rar, waw", "unknown": "x",
		InfoAccumulateOps: "same_op", InfoDynamicPool: "4096"}, true))
	assert.True(t, s.noLocks)
	assert.Equal(t, 4096, s.pool)
	info := s.info()
	assert.Equal(t, "true", info[InfoNoLocks])
	assert.Equal(t, "same_op", info[InfoAccumulateOps])
	assert.ErrorIs(t, s.apply(compat.Info{InfoNoLocks: "yes"}, true), compat.ErrInfoValue)
	assert.ErrorIs(t, s.apply(compat.Info{InfoAccumulateOrdering: "rar,xyz"}, true), compat.ErrInfoValue)
	assert.ErrorIs(t, s.apply(compat.Info{InfoAccumulateOps: "any"}, true), compat.ErrInfoValue)
	assert.ErrorIs(t, s.apply(compat.Info{InfoDynamicPool: "-1"}, true), compat.ErrInfoValue)
	before := s.sameSize
	assert.NoError(t, s.apply(compat.Info{InfoSameSize: "true"}, false)) // fixed at creation: ignored
	assert.Equal(t, before, s.sameSize)
	f, err := ParseFlavor("dynamic")
	require.NoError(t, err)
	assert.Equal(t, FlavorDynamic, f)
	_, err = ParseFlavor("x")
	assert.ErrorIs(t, err, compat.ErrArg)
}

func TestErrorClasses(t *testing.T) {
	err := errorf(compat.ClassRMASync, "Unlock of rank %d", 3)
	assert.ErrorIs(t, err, compat.ErrRMASync)
	assert.NotErrorIs(t, err, compat.ErrRMARange)
	assert.Equal(t, compat.ClassRMASync, compat.ClassOf(err))
	assert.Contains(t, err.Error(), "MPI_ERR_RMA_SYNC: Unlock of rank 3")
	assert.Equal(t, compat.ClassSuccess, compat.ClassOf(nil))
	for c := compat.ClassSuccess; c <= compat.ClassOther; c++ {
		assert.Contains(t, c.String(), "MPI_")
	}
}
