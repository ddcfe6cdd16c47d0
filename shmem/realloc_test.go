package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func TestRealloc(t *testing.T) {
	petest.RunConfig(t, allModes(3), func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		a, err := shmem.Alloc[int64](w, 10)
		require.NoError(t, err)
		for i := range a.Local() {
			a.Local()[i] = int64(100*me + i)
		}
		// A block right behind a keeps a from growing in place.
		fence, err := shmem.Alloc[byte](w, 1)
		require.NoError(t, err)

		// Grow: the old contents are kept, the offset agrees, the old Sym is dead.
		b, err := shmem.Realloc(a, 5000)
		require.NoError(t, err)
		assert.Equal(t, 5000, b.Len())
		offsetsAgree(t, w, b)
		for i := range 10 {
			require.Equal(t, int64(100*me+i), b.Local()[i], "element %d", i)
		}
		require.ErrorIs(t, shmem.Put(a, []int64{1}, me), shmem.ErrNotSymmetric)
		_, err = shmem.Realloc(a, 3)
		require.ErrorIs(t, err, shmem.ErrDoubleFree)

		// Realloc ends with a barrier: a put right after it lands for good.
		right := (me + 1) % n
		require.NoError(t, shmem.Put(b.Slice(4000, 4001), []int64{int64(me)}, right))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, int64((me+n-1)%n), b.Local()[4000])

		// Shrink: the first elements stay.
		c, err := shmem.Realloc(b, 4)
		require.NoError(t, err)
		assert.Equal(t, []int64{int64(100 * me), int64(100*me + 1), int64(100*me + 2), int64(100*me + 3)}, c.Local())
		offsetsAgree(t, w, c)

		// To zero and back.
		z, err := shmem.Realloc(c, 0)
		require.NoError(t, err)
		assert.Zero(t, z.Len())
		d, err := shmem.Realloc(z, 7)
		require.NoError(t, err)
		assert.Equal(t, 7, d.Len())
		require.NoError(t, shmem.P(d.At(6), int64(me), right))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, int64((me+n-1)%n), d.Local()[6])

		// Errors leave the object live and usable.
		_, err = shmem.Realloc(d, -1)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = shmem.Realloc(d, 1<<40)
		require.ErrorIs(t, err, shmem.ErrHeapExhausted)
		_, err = shmem.Realloc(d.Slice(2, 4), 8)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		_, err = shmem.Realloc(d.At(99), 8)
		require.ErrorIs(t, err, shmem.ErrOutOfBounds)
		// PEs that disagree on the size all fail, and nothing changes.
		_, err = shmem.Realloc(d, 8+me)
		require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		_, err = shmem.Realloc(shmem.Sym[int64]{}, 8)
		require.ErrorIs(t, err, shmem.ErrNotSymmetric)
		assert.Equal(t, int64((me+n-1)%n), d.Local()[6])
		require.NoError(t, shmem.P(d.At(0), 5, right))
		require.NoError(t, shmem.Free(d))
		require.NoError(t, shmem.Free(fence))
	})
}

func TestAllocWithHints(t *testing.T) {
	petest.Run(t, 3, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		for _, h := range []shmem.Hint{0, shmem.HintAtomicsRemote, shmem.HintSignalRemote, shmem.HintAtomicsRemote | shmem.HintSignalRemote} {
			s, err := shmem.AllocWithHints[uint64](w, 9, h)
			require.NoError(t, err, "hints %#x", h)
			assert.Zero(t, s.Offset()%64)
			offsetsAgree(t, w, s)
			s.Local()[0] = 0
			require.NoError(t, w.BarrierAll())
			_, err = shmem.FetchAdd(s.At(0), 1, (me+1)%n)
			require.NoError(t, err)
			require.NoError(t, w.BarrierAll())
			assert.Equal(t, uint64(1), s.Local()[0])
			require.NoError(t, shmem.Free(s))
		}
		_, err := shmem.AllocWithHints[uint64](w, 9, 1<<7)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		// Different hints on different PEs: every PE fails alike.
		_, err = shmem.AllocWithHints[uint64](w, 9, shmem.Hint(1+me%2))
		require.ErrorIs(t, err, shmem.ErrSizeMismatch)
		_, err = shmem.AllocWithHints[uint64](nil, 9, 0)
		require.ErrorIs(t, err, shmem.ErrInvalid)
		// The heap is still in step: the next allocation agrees.
		s, err := shmem.AllocWithHints[int32](w, 3, shmem.HintSignalRemote)
		require.NoError(t, err)
		offsetsAgree(t, w, s)
		require.NoError(t, shmem.Free(s))
	})
}

func TestAccessible(t *testing.T) {
	petest.Run(t, 3, func(t *petest.T, w *shmem.World) {
		for pe := range w.NPEs() {
			assert.True(t, w.PEAccessible(pe), "PE %d", pe)
		}
		assert.False(t, w.PEAccessible(-1))
		assert.False(t, w.PEAccessible(w.NPEs()))
		s, err := shmem.Alloc[int32](w, 4)
		require.NoError(t, err)
		assert.True(t, shmem.AddrAccessible(s, 0))
		assert.True(t, shmem.AddrAccessible(s.At(3), w.NPEs()-1))
		assert.False(t, shmem.AddrAccessible(s.At(4), 0))
		assert.False(t, shmem.AddrAccessible(s, w.NPEs()))
		assert.False(t, shmem.AddrAccessible(shmem.Sym[int32]{}, 0))
		require.NoError(t, shmem.Free(s))
		assert.False(t, shmem.AddrAccessible(s, 0))
	})
}
