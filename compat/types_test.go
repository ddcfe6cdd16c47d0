package compat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

func TestDatatypeLayout(t *testing.T) {
	assert.Equal(t, 8, compat.Float64.Size())
	assert.Equal(t, compat.Int64, compat.TypeOf[int]())
	assert.Equal(t, compat.BasicUint8, compat.TypeOf[byte]().Basic())
	assert.Equal(t, 12, compat.DoubleIntT.Size()) // {(double, 0), (int, 8)}
	assert.Equal(t, 16, compat.DoubleIntT.Extent())
	v := compat.Vector(3, 2, 4, compat.Int32) // xx..xx..xx
	require.NoError(t, v.Err())
	assert.Equal(t, 24, v.Size())
	assert.Equal(t, 40, v.Extent())
	// A vector of vectors: 2 copies of v, 3 v-extents apart.
	vv := compat.Vector(2, 1, 3, v)
	assert.Equal(t, 48, vv.Size())
	c := compat.Contiguous(0, compat.Float64)
	assert.Equal(t, 0, c.Size())
	assert.Error(t, compat.Vector(-1, 1, 1, compat.Int8).Err())
	assert.Error(t, compat.Vector(1<<21, 1<<21, 1<<21, compat.Vector(4, 1, 1<<21, compat.Int64)).Err(), "spans too far")

	// ReduceLocal walks a vector in place and leaves the gaps alone.
	in := []int32{1, 1, 9, 9, 2, 2, 9, 9, 3, 3}
	io := []int32{5, 5, 7, 7, 5, 5, 7, 7, 5, 5}
	require.NoError(t, compat.ReduceLocal(in, io, 1, v, compat.OpSum))
	assert.Equal(t, []int32{6, 6, 7, 7, 7, 7, 7, 7, 8, 8}, io)
}

func TestOpsOverTypes(t *testing.T) {
	check := func(err error, ok bool, what string) {
		t.Helper()
		if ok {
			assert.NoError(t, err, what)
		} else {
			assert.ErrorIs(t, err, compat.ErrOp, what)
		}
	}
	ints := []compat.Op{compat.OpSum, compat.OpProd, compat.OpMax, compat.OpMin, compat.OpLand, compat.OpLor, compat.OpLxor, compat.OpBand, compat.OpBor, compat.OpBxor}
	for _, op := range ints {
		a, b := []int16{6, -3}, []int16{3, 5}
		check(compat.ReduceLocal(a, b, 2, compat.Int16, op), true, op.String())
		u, w := []uint64{6, 3}, []uint64{3, 5}
		check(compat.ReduceLocal(u, w, 2, compat.Uint64, op), true, op.String())
		f, g := []float32{1.5}, []float32{2}
		isArith := op == compat.OpSum || op == compat.OpProd || op == compat.OpMax || op == compat.OpMin
		check(compat.ReduceLocal(f, g, 1, compat.Float32, op), isArith, "float32 "+op.String())
		z, y := []complex64{1i}, []complex64{2}
		check(compat.ReduceLocal(z, y, 1, compat.Complex64, op), op == compat.OpSum || op == compat.OpProd, "complex "+op.String())
		bb, bc := []bool{true}, []bool{false}
		logical := op == compat.OpLand || op == compat.OpLor || op == compat.OpLxor
		check(compat.ReduceLocal(bb, bc, 1, compat.Bool, op), logical, "bool "+op.String())
		by, bz := []byte{0xf0}, []byte{0x3c}
		bitwise := op == compat.OpBand || op == compat.OpBor || op == compat.OpBxor
		check(compat.ReduceLocal(by, bz, 1, compat.Byte, op), bitwise, "byte "+op.String())
	}
	// Spot values.
	a, b := []int8{6, -3, 0, 2}, []int8{3, 5, 7, 0}
	require.NoError(t, compat.ReduceLocal(a, b, 4, compat.Int8, compat.OpLand))
	assert.Equal(t, []int8{1, 1, 0, 0}, b)
	c, d := []uint32{0xf0}, []uint32{0x3c}
	require.NoError(t, compat.ReduceLocal(c, d, 1, compat.Uint32, compat.OpBxor))
	assert.Equal(t, []uint32{0xcc}, d)
	e, f := []complex128{1 + 1i}, []complex128{2i}
	require.NoError(t, compat.ReduceLocal(e, f, 1, compat.Complex128, compat.OpProd))
	assert.Equal(t, []complex128{-2 + 2i}, f)
	g, h := []bool{true, false}, []bool{true, true}
	require.NoError(t, compat.ReduceLocal(g, h, 2, compat.Bool, compat.OpLxor))
	assert.Equal(t, []bool{false, true}, h)

	// OpMaxloc and OpMinloc on every pair type; ties keep the lower location.
	fi, fo := []compat.FloatInt{{Val: 2, Loc: 7}, {Val: 1, Loc: 3}}, []compat.FloatInt{{Val: 2, Loc: 4}, {Val: 5, Loc: 1}}
	require.NoError(t, compat.ReduceLocal(fi, fo, 2, compat.FloatIntT, compat.OpMaxloc))
	assert.Equal(t, []compat.FloatInt{{Val: 2, Loc: 4}, {Val: 5, Loc: 1}}, fo)
	li, lo := []compat.LongInt{{Val: -9, Loc: 2}}, []compat.LongInt{{Val: -1, Loc: 0}}
	require.NoError(t, compat.ReduceLocal(li, lo, 1, compat.LongIntT, compat.OpMinloc))
	assert.Equal(t, []compat.LongInt{{Val: -9, Loc: 2}}, lo)
	ti, to := []compat.TwoInt{{Val: 3, Loc: 1}}, []compat.TwoInt{{Val: 3, Loc: 2}}
	require.NoError(t, compat.ReduceLocal(ti, to, 1, compat.TwoIntT, compat.OpMinloc))
	assert.Equal(t, []compat.TwoInt{{Val: 3, Loc: 1}}, to)
	si, so := []compat.ShortInt{{Val: 4, Loc: 1}}, []compat.ShortInt{{Val: 3, Loc: 2}}
	require.NoError(t, compat.ReduceLocal(si, so, 1, compat.ShortIntT, compat.OpMaxloc))
	assert.Equal(t, []compat.ShortInt{{Val: 4, Loc: 1}}, so)
	check(compat.ReduceLocal(si, so, 1, compat.ShortIntT, compat.OpSum), false, "sum of pairs")
}

// TestPairReductions: MINLOC and MAXLOC on pairs with padding between
// their members (ShortInt), after them (DoubleInt) and the Fortran pairs,
// whole and in a vector (every other pair), in Allreduce, Scan and
// ReduceScatterBlock: the padding and the gaps stay as they were.
func TestPairReductions(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, n := c.Rank(), c.Size()
		si := []compat.ShortInt{{Val: int16(me % 2), Loc: int32(me)}, {Val: int16(-me), Loc: int32(me)}}
		so := make([]compat.ShortInt, 2)
		require.NoError(t, compat.Allreduce(c, si, so, 2, compat.ShortIntT, compat.OpMinloc))
		assert.Equal(t, []compat.ShortInt{{Val: 0, Loc: 0}, {Val: int16(1 - n), Loc: int32(n - 1)}}, so)
		// A vector of every other DoubleInt: the odd ones stay.
		v := compat.Vector(2, 1, 2, compat.DoubleIntT)
		require.NoError(t, v.Err())
		assert.Equal(t, 24, v.Size())
		di := []compat.DoubleInt{{Val: float64(me), Loc: int32(me)}, {Val: 7, Loc: 7}, {Val: float64(-me), Loc: int32(me)}}
		do := []compat.DoubleInt{{Val: 9, Loc: 9}, {Val: 9, Loc: 9}, {Val: 9, Loc: 9}}
		require.NoError(t, compat.Allreduce(c, di, do, 1, v, compat.OpMaxloc))
		assert.Equal(t, []compat.DoubleInt{{Val: float64(n - 1), Loc: int32(n - 1)}, {Val: 9, Loc: 9}, {Val: 0, Loc: 0}}, do)
		tr := []compat.TwoReal{{Val: float32(-me), Loc: float32(me)}}
		to := make([]compat.TwoReal, 1)
		require.NoError(t, compat.Scan(c, tr, to, 1, compat.TwoRealT, compat.OpMinloc))
		assert.Equal(t, compat.TwoReal{Val: float32(-me), Loc: float32(me)}, to[0])
		td := make([]compat.TwoDouble, n)
		for j := range td {
			td[j] = compat.TwoDouble{Val: float64((me + j) % n), Loc: float64(me)}
		}
		tdo := make([]compat.TwoDouble, 1)
		require.NoError(t, compat.ReduceScatterBlock(c, td, tdo, 1, compat.TwoDoubleT, compat.OpMaxloc))
		assert.Equal(t, compat.TwoDouble{Val: float64(n - 1), Loc: float64((2*n - 1 - me) % n)}, tdo[0])
		assert.Error(t, compat.Allreduce(c, tr, to, 1, compat.TwoRealT, compat.OpSum))
	})
}
