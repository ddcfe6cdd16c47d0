package mpitype

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBlocksOf(t *testing.T) {
	i32 := Predefined(BasicInt32)
	// Indexed: 2 ints at element 0, 1 int at element 4 (bytes 0 and 16).
	d := BlocksOf([]Block{{0, 2, i32}, {16, 1, i32}})
	require.NoError(t, d.Err())
	m := MapOf(d)
	require.Equal(t, 12, m.Size())
	require.Equal(t, 20, m.Extent())
	require.Equal(t, 3, m.Elems())
	require.False(t, m.Overlap())
	src := []byte{1, 1, 1, 1, 2, 2, 2, 2, 9, 9, 9, 9, 9, 9, 9, 9, 3, 3, 3, 3}
	dst := make([]byte, 12)
	m.Pack(dst, src, 1)
	require.Equal(t, []byte{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, dst)
	// Out of order blocks pack in type-map order.
	d2 := BlocksOf([]Block{{16, 1, i32}, {0, 1, i32}})
	require.NoError(t, d2.Err())
	m.Pack(dst, src, 1)
	MapOf(d2).Pack(dst[:8], src, 1)
	require.Equal(t, []byte{3, 3, 3, 3, 1, 1, 1, 1}, dst[:8])
	require.True(t, MapOf(BlocksOf([]Block{{0, 2, i32}, {4, 1, i32}})).Overlap())
	mixed := MapOf(StructOf([]Block{{0, 1, i32}, {8, 1, Predefined(BasicFloat64)}}))
	require.Equal(t, BasicMixed, mixed.Basic())
	require.Equal(t, 12, mixed.Size())
	require.Equal(t, 16, mixed.Extent())
	neg := MapOf(BlocksOf([]Block{{-4, 1, i32}}))
	require.Equal(t, -4, neg.LB())
	require.Equal(t, -4, neg.TrueLB())
	require.Equal(t, 4, neg.Extent())
	require.Error(t, BlocksOf([]Block{{0, -1, i32}}).Err())
	require.Error(t, BlocksOf([]Block{{0, 1, Datatype{}}}).Err())
	// Blocks of no elements, however far away, are no part of the map;
	// one element that far is refused.
	far := MapOf(BlocksOf([]Block{{math.MaxInt64, 0, i32}, {8, 4, i32}, {math.MaxInt64, 0, i32}}))
	require.Equal(t, 8, far.LB())
	require.Equal(t, 16, far.Extent())
	require.Error(t, BlocksOf([]Block{{math.MaxInt64, 1, i32}}).Err())
}

func TestResizedOf(t *testing.T) {
	col := VectorOf(3, 1, 4, Predefined(BasicFloat64)) // a column of a 3x4 matrix
	r := ResizedOf(col, 0, 8)
	require.NoError(t, r.Err())
	m := MapOf(r)
	require.Equal(t, 8, m.Extent())
	require.Equal(t, 24, m.Size())
	require.Equal(t, 8+8*8+8, m.Span(2)) // two interleaved columns
	r8 := MapOf(ResizedOf(col, -8, 24))
	require.Equal(t, -8, r8.LB())
	require.Equal(t, 24, r8.Extent())
	require.Equal(t, 0, r8.TrueLB())
}

// TestMoveSizeClasses packs and unpacks vectors of runs of every length
// up to 80 bytes (each size class of move and of the word loops), whole
// and into buffers that end inside a run, against a byte-by-byte walk.
func TestMoveSizeClasses(t *testing.T) {
	b := BasicMap(BasicByte)
	for n := 1; n <= 80; n++ {
		for _, stride := range []int{n + 3, 2 * n, -2 * n} {
			m, err := HVector(7, n, stride, &b)
			require.NoError(t, err)
			lay := make([]byte, m.Span(2))
			for i := range lay {
				lay[i] = byte(i*7 + 1)
			}
			want := make([]byte, 0, 2*m.Size())
			m.each(2, func(off, k int) bool { want = append(want, lay[off:off+k]...); return true })
			for _, cut := range []int{len(want), len(want) - 1, len(want) - n - 1, n/2 + 1} {
				if cut <= 0 {
					continue
				}
				pk := make([]byte, cut)
				require.Equal(t, cut, m.Pack(pk, lay, 2), "n %d stride %d cut %d", n, stride, cut)
				require.Equal(t, want[:cut], pk, "n %d stride %d cut %d", n, stride, cut)
				back := make([]byte, len(lay))
				m.Unpack(back, pk, 2)
				got := make([]byte, 0, cut)
				m.each(2, func(off, k int) bool { got = append(got, back[off:off+k]...); return len(got) < cut })
				require.Equal(t, want[:cut], got[:cut], "unpack n %d stride %d cut %d", n, stride, cut)
			}
		}
	}
}
