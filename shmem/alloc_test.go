package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// offsetsAgree checks that every PE got the same offset for s.
func offsetsAgree[T any](t *petest.T, w *shmem.World, s shmem.Sym[T]) {
	offs, err := shmem.Calloc[uint64](w, w.NPEs())
	require.NoError(t, err)
	require.NoError(t, shmem.P(offs.At(w.MyPE()), s.Offset(), 0))
	require.NoError(t, w.BarrierAll())
	if w.MyPE() == 0 {
		for pe, o := range offs.Local() {
			require.Equal(t, s.Offset(), o, "PE %d got another offset", pe)
		}
	}
	require.NoError(t, shmem.Free(offs))
}

func TestAllocSymmetric(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		a, err := shmem.Alloc[int32](w, 100)
		require.NoError(t, err)
		b, err := shmem.Align[byte](w, 4096, 10)
		require.NoError(t, err)
		assert.Zero(t, b.Offset()%4096)
		c, err := shmem.Calloc[float64](w, 1<<16)
		require.NoError(t, err)
		for _, v := range c.Local() {
			require.Zero(t, v)
		}
		offsetsAgree(t, w, a)
		offsetsAgree(t, w, b)
		offsetsAgree(t, w, c)

		// Freed space is reused, and Calloc clears what a previous user left.
		for i := range c.Local() {
			c.Local()[i] = 3
		}
		off := c.Offset()
		require.NoError(t, shmem.Free(c))
		c2, err := shmem.Calloc[float64](w, 1<<16)
		require.NoError(t, err)
		assert.Equal(t, off, c2.Offset())
		for _, v := range c2.Local() {
			require.Zero(t, v)
		}
		z, err := shmem.Alloc[int64](w, 0)
		require.NoError(t, err)
		assert.Zero(t, z.Len())
		assert.Nil(t, z.Local())
		require.NoError(t, shmem.Free(z))
		require.NoError(t, shmem.Free(a))
		require.NoError(t, shmem.Free(b))
		require.NoError(t, shmem.Free(c2))
	})
}

func TestAllocErrors(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		guard, err := shmem.Calloc[int64](w, 4)
		require.NoError(t, err)

		// Different sizes: every PE fails, nothing is allocated.
		_, err = shmem.Alloc[byte](w, 100+w.MyPE()%2)
		require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		// One PE with invalid arguments: the others learn of it too.
		n := 10
		if w.MyPE() == 1 {
			n = -1
		}
		_, err = shmem.Alloc[byte](w, n)
		require.Error(t, err)
		if w.MyPE() == 1 {
			require.ErrorIs(t, err, shmem.ErrInvalid)
		} else {
			require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		}
		_, err = shmem.Align[byte](w, 3000, 8)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = shmem.Alloc[*int](w, 1)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = shmem.Alloc[byte](w, 1<<40)
		require.ErrorIs(t, err, shmem.ErrHeapExhausted)

		x, err := shmem.Alloc[int64](w, 8)
		require.NoError(t, err)
		require.NoError(t, shmem.Free(x))
		require.ErrorIs(t, shmem.Free(x), shmem.ErrDoubleFree)
		require.ErrorIs(t, shmem.Free(shmem.Sym[int64]{}), shmem.ErrNotSymmetric)
		// A freed object is no longer a target.
		require.ErrorIs(t, shmem.P(x, 1, right(w)), shmem.ErrNotSymmetric)
		assert.Nil(t, x.Local())

		// After all that, the heap still works and the guard is intact.
		y, err := shmem.Calloc[int64](w, 8)
		require.NoError(t, err)
		offsetsAgree(t, w, y)
		require.NoError(t, shmem.Put(guard, []int64{1, 2, 3, 4}, right(w)))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, []int64{1, 2, 3, 4}, guard.Local())
	})
}

func TestBadInput(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		s, err := shmem.Calloc[int64](w, 4)
		require.NoError(t, err)
		fence, err := shmem.Calloc[int64](w, 4) // right after s: must never be hit
		require.NoError(t, err)
		np := w.NPEs()

		require.ErrorIs(t, shmem.Put(s, []int64{1}, np), shmem.ErrBadPE)
		require.ErrorIs(t, shmem.Put(s, []int64{1}, -1), shmem.ErrBadPE)
		require.ErrorIs(t, shmem.Put(s, make([]int64, 5), right(w)), shmem.ErrOutOfBounds)
		require.ErrorIs(t, shmem.PutNBI(s.Slice(2, 4), make([]int64, 3), right(w)), shmem.ErrOutOfBounds)
		require.ErrorIs(t, shmem.Get(make([]int64, 5), s, right(w)), shmem.ErrOutOfBounds)
		require.ErrorIs(t, shmem.GetNBI(make([]int64, 1), s, 99), shmem.ErrBadPE)
		require.ErrorIs(t, shmem.P(s.At(4), 1, right(w)), shmem.ErrOutOfBounds)
		require.ErrorIs(t, shmem.P(s.At(-1), 1, right(w)), shmem.ErrOutOfBounds)
		_, err = shmem.G(s.Slice(3, 2), right(w))
		require.ErrorIs(t, err, shmem.ErrOutOfBounds)
		// The errors say what was asked of which object, not where it lives.
		assert.ErrorContains(t, err, "elements [3, 2) out of range of an object of 4 elements")
		assert.ErrorContains(t, shmem.P(s.At(4), 1, right(w)), "index 4 out of range of an object of 4 elements")
		assert.ErrorContains(t, shmem.P(s.Slice(1, 3).At(2).Slice(0, 1), 1, right(w)), "index 2 out of range of an object of 2 elements")
		assert.ErrorContains(t, shmem.Put(s, make([]int64, 5), right(w)), "5 elements into an object of 4")
		require.ErrorIs(t, shmem.Put(shmem.Sym[int64]{}, []int64{1}, 0), shmem.ErrNotSymmetric)
		require.ErrorIs(t, shmem.Add(s.At(9), 1, 0), shmem.ErrOutOfBounds)
		_, err = shmem.FetchAdd(s, 1, np)
		require.ErrorIs(t, err, shmem.ErrBadPE)

		// Misaligned atomics: an int32 view at byte offset 2.
		mis, err := shmem.View[int32](s.Bytes().Slice(2, 10))
		require.NoError(t, err)
		require.ErrorIs(t, shmem.Add(mis, 1, right(w)), shmem.ErrMisaligned)
		_, err = shmem.CompareAndSwap(mis, 0, 1, right(w))
		require.ErrorIs(t, err, shmem.ErrMisaligned)
		require.ErrorIs(t, shmem.WaitUntil(mis, shmem.CmpEQ, 0), shmem.ErrMisaligned)
		_, err = shmem.View[int32](s.Bytes().Slice(0, 3))
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = shmem.View[[]int](s.Bytes())
		require.ErrorIs(t, err, shmem.ErrInvalid)

		sig, err := shmem.Calloc[uint64](w, 1)
		require.NoError(t, err)
		require.ErrorIs(t, shmem.PutSignal(s, make([]int64, 5), sig, 1, shmem.SignalSet, right(w)), shmem.ErrOutOfBounds)
		require.ErrorIs(t, shmem.PutSignal(s, nil, sig, 1, shmem.SignalOp(9), right(w)), shmem.ErrInvalid)
		require.ErrorIs(t, shmem.SignalOpAt(sig, 1, shmem.SignalAdd, np), shmem.ErrBadPE)
		require.ErrorIs(t, shmem.WaitUntil(s, shmem.Cmp(42), 0), shmem.ErrInvalid)
		require.ErrorIs(t, shmem.WaitUntilAll(s, []int{0}, shmem.CmpEQ, 0), shmem.ErrInvalid)
		_, err = shmem.Test(s.At(7), shmem.CmpEQ, 0)
		require.ErrorIs(t, err, shmem.ErrOutOfBounds)
		_, err = shmem.SignalFetch(shmem.Sym[uint64]{})
		require.ErrorIs(t, err, shmem.ErrNotSymmetric)

		// The peers' memory is untouched: nothing above wrote anything.
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, []int64{0, 0, 0, 0}, s.Local())
		assert.Equal(t, []int64{0, 0, 0, 0}, fence.Local())
	})
}
