package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func right(w *shmem.World) int { return (w.MyPE() + 1) % w.NPEs() }
func left(w *shmem.World) int  { return (w.MyPE() + w.NPEs() - 1) % w.NPEs() }

func TestPutGetBlocks(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const n = 1000
		dst, err := shmem.Calloc[int64](w, n)
		require.NoError(t, err)
		src := make([]int64, n)
		for i := range src {
			src[i] = int64(w.MyPE()*1_000_000 + i)
		}
		require.NoError(t, shmem.Put(dst, src, right(w)))
		require.NoError(t, w.Quiet())
		require.NoError(t, w.BarrierAll())
		for i, v := range dst.Local() {
			require.Equal(t, int64(left(w)*1_000_000+i), v, "element %d", i)
		}

		// Get the right neighbour's copy (which holds what we put).
		got := make([]int64, n)
		require.NoError(t, shmem.Get(got, dst, right(w)))
		assert.Equal(t, src, got)

		// Byte form: a sub-range of the same object, as bytes.
		b := dst.Slice(10, 20).Bytes()
		require.Equal(t, 80, b.Len())
		raw := make([]byte, 80)
		for i := range raw {
			raw[i] = byte(w.MyPE() + i)
		}
		require.NoError(t, w.BarrierAll())
		require.NoError(t, shmem.Put(b, raw, right(w)))
		require.NoError(t, w.BarrierAll())
		back := make([]byte, 80)
		require.NoError(t, shmem.Get(back, b, w.MyPE()))
		for i := range back {
			require.Equal(t, byte(left(w)+i), back[i])
		}
		require.NoError(t, shmem.Free(dst))
	})
}

func TestNBIAndQuiet(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const n, rounds = 4096, 20
		dst, err := shmem.Calloc[uint32](w, n*rounds)
		require.NoError(t, err)
		bufs := make([][]uint32, rounds)
		for r := range rounds {
			bufs[r] = make([]uint32, n)
			for i := range bufs[r] {
				bufs[r][i] = uint32(w.MyPE()<<24 | r<<16 | i)
			}
			require.NoError(t, shmem.PutNBI(dst.Slice(r*n, (r+1)*n), bufs[r], right(w)))
		}
		require.NoError(t, w.Quiet())
		require.NoError(t, w.BarrierAll())
		for r := range rounds {
			for i, v := range dst.Local()[r*n : (r+1)*n] {
				require.Equal(t, uint32(left(w)<<24|r<<16|i), v)
			}
		}
		got := make([]uint32, n)
		require.NoError(t, shmem.GetNBI(got, dst.Slice(n, 2*n), left(w)))
		require.NoError(t, w.Quiet())
		for i, v := range got {
			require.Equal(t, uint32(((left(w)+w.NPEs()-1)%w.NPEs())<<24|1<<16|i), v)
		}
	})
}

type particle struct {
	X, Y float64
	ID   int32
	Tag  [3]byte
}

func TestPAndGAndStructs(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		f, err := shmem.Calloc[float64](w, 1)
		require.NoError(t, err)
		p, err := shmem.Calloc[particle](w, 2)
		require.NoError(t, err)
		h, err := shmem.Calloc[int16](w, 1)
		require.NoError(t, err)
		require.NoError(t, shmem.P(f, 1.5*float64(w.MyPE()), right(w)))
		require.NoError(t, shmem.P(p.At(1), particle{X: 1, Y: float64(w.MyPE()), ID: 7, Tag: [3]byte{1, 2, 3}}, right(w)))
		require.NoError(t, shmem.P(h, int16(-w.MyPE()), right(w)))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, 1.5*float64(left(w)), f.Local()[0])
		assert.Equal(t, particle{X: 1, Y: float64(left(w)), ID: 7, Tag: [3]byte{1, 2, 3}}, p.Local()[1])
		assert.Equal(t, particle{}, p.Local()[0])
		v, err := shmem.G(f, right(w))
		require.NoError(t, err)
		assert.Equal(t, 1.5*float64(w.MyPE()), v)
		q, err := shmem.G(p.At(1), left(w))
		require.NoError(t, err)
		assert.Equal(t, float64((left(w)+w.NPEs()-1)%w.NPEs()), q.Y)
		s, err := shmem.G(h, w.MyPE())
		require.NoError(t, err)
		assert.Equal(t, int16(-left(w)), s)
	})
}

func TestStrided(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		dst, err := shmem.Calloc[int32](w, 30)
		require.NoError(t, err)
		src := make([]int32, 20)
		for i := range src {
			src[i] = int32(100*w.MyPE() + i)
		}
		// dst[0,3,6,...,27] = src[0,2,4,...,18]
		require.NoError(t, shmem.IPut(dst, src, 3, 2, 10, right(w)))
		require.NoError(t, w.BarrierAll())
		for i, v := range dst.Local() {
			if i%3 == 0 {
				require.Equal(t, int32(100*left(w)+2*(i/3)), v)
			} else {
				require.Zero(t, v)
			}
		}
		got := make([]int32, 10)
		require.NoError(t, shmem.IGet(got, dst, 2, 6, 5, w.MyPE()))
		assert.Equal(t, []int32{int32(100 * left(w)), 0, int32(100*left(w) + 4), 0, int32(100*left(w) + 8), 0, int32(100*left(w) + 12), 0, int32(100*left(w) + 16), 0}, got)
		// The last element touched must be inside the object.
		require.ErrorIs(t, shmem.IPut(dst, src, 4, 1, 10, right(w)), shmem.ErrOutOfBounds)
		require.ErrorIs(t, shmem.IPut(dst, src, 0, 1, 3, right(w)), shmem.ErrInvalid)
		require.ErrorIs(t, shmem.IGet(got, dst, 2, 1, 6, right(w)), shmem.ErrOutOfBounds)
		require.NoError(t, shmem.IPut(dst, src, 3, 2, 0, right(w)))
	})
}

func TestPtr(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		s, err := shmem.Calloc[int64](w, 8)
		require.NoError(t, err)
		r := shmem.Ptr(s, right(w))
		require.Len(t, r, 8, "every PE of one node is load/store reachable")
		r[3] = int64(w.MyPE() + 1)
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, int64(left(w)+1), s.Local()[3])
		assert.Nil(t, shmem.Ptr(s, w.NPEs()))
	})
}
