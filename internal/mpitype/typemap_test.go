package mpitype

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func vec(t *testing.T, count, blocklen, stride int, old Map) Map {
	t.Helper()
	m, err := Vector(count, blocklen, stride, &old)
	require.NoError(t, err)
	return m
}

// walk returns the pieces a cursor over count instances of m yields, each
// at most max bytes.
func walk(m Map, count, max int) [][2]int {
	var out [][2]int
	c := m.Cursor(count)
	for {
		off, n := c.Next(max)
		if n == 0 {
			return out
		}
		out = append(out, [2]int{off, n})
	}
}

func TestBasicMap(t *testing.T) {
	for b := BasicInt8; b < NumBasic; b++ {
		m := BasicMap(b)
		assert.Equal(t, b, m.Basic())
		assert.Equal(t, 1, m.Elems())
		assert.Equal(t, b.Size(), m.Size(), "%v", b)
		assert.Equal(t, b.Extent(), m.Extent())
		assert.Equal(t, 2*b.Extent()+b.Span(), m.Span(3))
		_, _, pair := b.Pair()
		assert.Equal(t, b == BasicShortInt, m.Pieces() == 2, "%v", b) // padding between
		assert.True(t, m.Predefined())
		assert.Equal(t, !pair || b.Size() == b.Extent(), m.Contiguous(), "%v", b)
		assert.False(t, m.Overlap())
	}
	var zero Map
	assert.True(t, zero.Contiguous())
	assert.Equal(t, 0, zero.Span(5))
	assert.Empty(t, walk(zero, 5, 8))
}

func TestVectorLayout(t *testing.T) {
	i32 := BasicMap(BasicInt32)
	v := vec(t, 3, 2, 4, i32) // xx..xx..xx
	assert.Equal(t, BasicInt32, v.Basic())
	assert.Equal(t, 6, v.Elems())
	assert.Equal(t, 24, v.Size())
	assert.Equal(t, 40, v.Extent())
	assert.Equal(t, 3, v.Pieces())
	assert.Equal(t, 0, v.Span(0))
	assert.Equal(t, 80, v.Span(2))
	assert.False(t, v.Predefined())
	assert.False(t, v.Contiguous())
	assert.False(t, v.Overlap())
	assert.Equal(t, "6 x MPI_INT32_T in 3 pieces over 40 bytes", v.String())
	assert.Equal(t, [][2]int{{0, 8}, {16, 8}, {32, 8}, {40, 8}, {56, 8}, {72, 8}}, walk(v, 2, 1<<30))

	// A vector of vectors: 2 copies of v, 3 v-extents apart.
	vv := vec(t, 2, 1, 3, v)
	assert.Equal(t, 48, vv.Size())
	assert.Equal(t, 160, vv.Extent())
	assert.Equal(t, 6, vv.Pieces())

	// Copies that touch merge into one run.
	c := vec(t, 4, 1, 1, BasicMap(BasicFloat64))
	assert.True(t, c.Contiguous())
	assert.Equal(t, 1, c.Pieces())
	assert.Equal(t, [][2]int{{0, 32}, {32, 32}}, walk(c, 2, 1<<30))
	assert.Equal(t, [][2]int{{0, 12}, {12, 12}, {24, 8}}, walk(c, 1, 12))

	// Empty vectors hold nothing, however they are strided.
	for _, e := range []Map{vec(t, 0, 4, 4, i32), vec(t, 3, 0, 4, i32), vec(t, 2, 2, 3, vec(t, 0, 1, 1, i32))} {
		assert.Equal(t, 0, e.Size())
		assert.Equal(t, 0, e.Extent())
		assert.Equal(t, 0, e.Span(3))
		assert.True(t, e.Contiguous())
		assert.Empty(t, walk(e, 3, 8))
	}
}

func TestVectorOverlap(t *testing.T) {
	i8 := BasicMap(BasicInt8)
	o := vec(t, 2, 3, 2, i8) // the second block starts inside the first
	assert.True(t, o.Overlap())
	assert.Equal(t, 6, o.Size())
	assert.Equal(t, 5, o.Extent())
	outer, single := vec(t, 2, 1, 9, o), vec(t, 1, 3, 1, i8)
	assert.True(t, outer.Overlap(), "inherited")
	assert.False(t, single.Overlap())

	// Overlapping copies keep type-map order, which is not offset order.
	g := vec(t, 2, 1, 3, i8) // x..x
	assert.Equal(t, [][2]int{{0, 1}, {3, 2}, {7, 1}, {4, 1}, {7, 2}, {11, 1}}, walk(vec(t, 2, 2, 1, g), 1, 8))
}

// TestTransposeNoOverlap: the columns of a 1000 x 1000 matrix of int, one
// element apart, interleave without sharing a byte (a transpose's target
// in a put), however many more pieces than the exact small-map check takes.
func TestTransposeNoOverlap(t *testing.T) {
	i32 := BasicMap(BasicInt32)
	column := vec(t, 1000, 1, 1000, i32)
	xpose, err := HVector(1000, 1, 4, &column)
	require.NoError(t, err)
	assert.False(t, xpose.Overlap())
	assert.Equal(t, 4000000, xpose.Size())
	// One column more is column 0 moved down a row: it meets rows 1...
	over, err := HVector(1001, 1, 4, &column)
	require.NoError(t, err)
	assert.True(t, over.Overlap())
	// ... as do columns a row apart, and copies that coincide.
	down, err := HVector(2, 1, 4000, &column)
	require.NoError(t, err)
	assert.True(t, down.Overlap())
	same, err := HVector(2, 1, 0, &column)
	require.NoError(t, err)
	assert.True(t, same.Overlap())
	apart, err := HVector(2, 1, 4000*1000, &column)
	require.NoError(t, err)
	assert.False(t, apart.Overlap())
}

func TestVectorPieceLimit(t *testing.T) {
	i8 := BasicMap(BasicInt8)
	many := vec(t, 1<<21, 1, 2, i8)
	assert.Equal(t, 1<<21, many.Pieces())
	// Copies of a map are tiles of it: no pieces are copied.
	thrice := vec(t, 3, 1, 1, many)
	assert.Equal(t, 3<<21, thrice.Pieces())
	// A list of parts lays every piece out, up to the limit.
	_, err := Place([]Part{{0, 3, many.Extent(), &many}}, false)
	assert.EqualError(t, err, "datatype with more than 4194304 contiguous pieces")
	twice, err := Place([]Part{{0, 2, many.Extent(), &many}}, false)
	require.NoError(t, err)
	assert.Equal(t, MaxRuns-1, twice.Pieces(), "at the limit (the copies touch: one run merges)")

	// count*blocklen*pieces is 1<<65 here: it must not wrap to 0 and build.
	_, err = Vector(1<<22, 1<<22, 1, &many)
	assert.Error(t, err)
}

func TestPackUnpack(t *testing.T) {
	v := vec(t, 2, 2, 3, BasicMap(BasicUint8)) // xx.xx
	src := []byte("ab-cdAB-CD")
	dst := make([]byte, 8)
	assert.Equal(t, 8, v.Pack(dst, src, 2))
	assert.Equal(t, "abcdABCD", string(dst))

	short := make([]byte, 3)
	assert.Equal(t, 3, v.Pack(short, src, 2), "stops when full")
	assert.Equal(t, "abc", string(short))

	out := []byte("..........")
	v.Unpack(out, dst, 2)
	assert.Equal(t, "ab.cdAB.CD", string(out))
	out = []byte("..........")
	v.Unpack(out, []byte("wxy"), 2)
	assert.Equal(t, "wx.y......", string(out), "as far as src reaches")
}

func TestZip(t *testing.T) {
	i8 := BasicMap(BasicInt8)
	a := vec(t, 2, 3, 4, i8) // xxx.xxx
	b := vec(t, 3, 2, 3, i8) // xx.xx.xx
	var got [][3]int
	Zip(a.Cursor(1), b.Cursor(1), func(ao, bo, n int) { got = append(got, [3]int{ao, bo, n}) })
	assert.Equal(t, [][3]int{{0, 0, 2}, {2, 3, 1}, {4, 4, 1}, {5, 6, 2}}, got)

	got = nil
	Zip(a.Cursor(0), b.Cursor(1), func(ao, bo, n int) { got = append(got, [3]int{ao, bo, n}) })
	assert.Empty(t, got)
}

func TestFits(t *testing.T) {
	assert.True(t, Fits(0, 8, 0))
	assert.True(t, Fits(3, 8, 24))
	assert.False(t, Fits(3, 8, 23))
	assert.True(t, Fits(math.MaxInt, 1, math.MaxInt))
	assert.False(t, Fits(1<<62, 4, math.MaxInt), "the product overflows")
	assert.False(t, Fits(1<<32, 1<<32, math.MaxInt), "the product wraps to 0")
}

func TestAsBytes(t *testing.T) {
	assert.Nil(t, AsBytes([]int32{}))
	assert.Nil(t, AsBytes[float64](nil))
	s := []uint16{0x0102, 0x0304}
	b := AsBytes(s)
	assert.Len(t, b, 4)
	b[0], b[1] = 0xff, 0xff
	assert.Equal(t, uint16(0xffff), s[0], "a view, not a copy")
	assert.Len(t, AsBytes([]DoubleInt{{}, {}}), 32)
}
