package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// TestReduceRepeated checks that a small reduction repeated with the same
// arguments, which skips the checks after the first call, still fails with
// its peers, dst untouched, when one PE changes its op, type or objects,
// and fails once an object is freed.
func TestReduceRepeated(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		tm := w.TeamWorld()
		me := w.MyPE()
		a, err := shmem.Calloc[int64](w, 2)
		require.NoError(t, err)
		b, err := shmem.Calloc[int64](w, 2)
		require.NoError(t, err)
		ua, err := shmem.View[uint64](a.Bytes())
		require.NoError(t, err)
		ub, err := shmem.View[uint64](b.Bytes())
		require.NoError(t, err)
		a.Local()[0] = int64(me + 1)
		np := int64(w.NPEs())
		sum := func() error { return shmem.Reduce(tm, shmem.ReduceSum, b.At(0), a.At(0), 1) }
		repeat := func() {
			for range 3 {
				require.NoError(t, sum())
				require.Equal(t, np*(np+1)/2, b.Local()[0])
			}
			b.Local()[0] = -1
		}
		differs := func(other func() error) {
			call := sum
			if me == 1 {
				call = other
			}
			require.ErrorIs(t, call(), shmem.ErrSizeMismatch)
			require.Equal(t, int64(-1), b.Local()[0])
		}

		repeat()
		differs(func() error { return shmem.Reduce(tm, shmem.ReduceMax, b.At(0), a.At(0), 1) })
		repeat()
		differs(func() error { return shmem.Reduce(tm, shmem.ReduceSum, ub.At(0), ua.At(0), 1) })
		repeat()
		differs(func() error { return shmem.Reduce(tm, shmem.ReduceSum, b.At(1), a.At(0), 1) })
		repeat()
		require.NoError(t, shmem.Free(a))
		require.ErrorIs(t, sum(), shmem.ErrNotSymmetric)
		require.NoError(t, shmem.Free(b))
	})
}
