package mpitype

import (
	"testing"

	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pieces(d Datatype, count int) [][2]int {
	var out [][2]int
	c := MapOf(d).Cursor(count)
	for {
		off, n := c.Next(1 << 30)
		if n == 0 {
			return out
		}
		out = append(out, [2]int{off, n})
	}
}

func TestDatatypes(t *testing.T) {
	v := VectorOf(3, 2, 4, Predefined(BasicInt32)) // [xx__xx__xx]
	require.NoError(t, v.Err())
	assert.Equal(t, 6, v.Count())
	assert.Equal(t, 40, v.Extent())
	assert.Equal(t, [][2]int{{0, 8}, {16, 8}, {32, 8}, {40, 8}, {56, 8}, {72, 8}}, pieces(v, 2))
	assert.Equal(t, 80, MapOf(v).Span(2))
	c := Contiguous(4, Predefined(BasicFloat64))
	assert.True(t, MapOf(c).Contiguous())
	assert.Equal(t, [][2]int{{0, 32}, {32, 32}}, pieces(c, 2))
	vv := VectorOf(2, 1, 2, v) // vector of a vector
	require.NoError(t, vv.Err())
	assert.Equal(t, 12, vv.Count())
	assert.False(t, MapOf(vv).Overlap())
	assert.True(t, MapOf(VectorOf(2, 3, 2, Predefined(BasicInt8))).Overlap())
	assert.Empty(t, pieces(VectorOf(0, 4, 4, Predefined(BasicInt8)), 3))
	for _, bad := range []Datatype{{}, VectorOf(-1, 1, 1, Predefined(BasicInt8)), VectorOf(1, -1, 1, Predefined(BasicInt8)),
		VectorOf(2, 1, 1, Datatype{}), VectorOf(1<<30, 1<<30, 1<<30, Predefined(BasicInt8))} {
		assert.ErrorIs(t, bad.Err(), mpierr.ErrType, "%v", bad)
		assert.Equal(t, BasicInvalid, bad.Basic())
	}
	assert.Equal(t, "2 x MPI_DOUBLE", Contiguous(2, Predefined(BasicFloat64)).String())

	// Zip splits pieces where either side's pieces end.
	var got [][3]int
	Zip(MapOf(VectorOf(2, 3, 4, Predefined(BasicInt8))).Cursor(1), MapOf(VectorOf(3, 2, 3, Predefined(BasicInt8))).Cursor(1), func(a, b, n int) {
		got = append(got, [3]int{a, b, n})
	})
	assert.Equal(t, [][3]int{{0, 0, 2}, {2, 3, 1}, {4, 4, 1}, {5, 6, 2}}, got)
}

func TestDatatypeHandles(t *testing.T) {
	i64 := Predefined(BasicInt64)
	assert.Equal(t, i64, TypeOf[int]())
	assert.Equal(t, i64, Predefined(BasicInt64), "one handle per basic type")
	assert.ErrorIs(t, i64.Free(), mpierr.ErrType, "predefined types cannot be freed")
	assert.NoError(t, i64.Err())
	v := Contiguous(2, i64)
	require.NoError(t, v.Free())
	assert.ErrorIs(t, v.Err(), mpierr.ErrType)
	assert.ErrorIs(t, VectorOf(1, 1, 1, v).Err(), mpierr.ErrType, "built from a freed type")
	assert.ErrorIs(t, Predefined(NumBasic).Err(), mpierr.ErrType)
	assert.Zero(t, v.Size())
}
