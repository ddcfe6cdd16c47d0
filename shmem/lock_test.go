package shmem_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func TestLocks(t *testing.T) {
	petest.RunConfig(t, allModes(4), func(t *petest.T, w *shmem.World) {
		lock, err := shmem.Calloc[int64](w, 1)
		require.NoError(t, err)
		ctr, err := shmem.Calloc[int64](w, 1)
		require.NoError(t, err)
		const rounds = 40
		// A read-modify-write of PE 0's counter by plain get and put: exact
		// only if the lock excludes.
		for range rounds {
			require.NoError(t, shmem.SetLock(lock))
			v, err := shmem.G(ctr, 0)
			require.NoError(t, err)
			require.NoError(t, shmem.Put(ctr, []int64{v + 1}, 0))
			require.NoError(t, shmem.ClearLock(lock))
		}
		require.NoError(t, w.BarrierAll())
		if w.MyPE() == 0 {
			assert.Equal(t, int64(rounds*w.NPEs()), ctr.Local()[0])
		}
		// TestLock: exactly one PE gets a free lock.
		got, err := shmem.TestLock(lock)
		require.NoError(t, err)
		winners, err := shmem.Calloc[int64](w, 1)
		require.NoError(t, err)
		if got {
			require.NoError(t, shmem.Add(winners, 1, 0))
		}
		require.NoError(t, w.BarrierAll())
		if got {
			again, err := shmem.TestLock(lock)
			require.NoError(t, err)
			assert.False(t, again, "held by this PE")
			require.NoError(t, shmem.ClearLock(lock))
		}
		require.NoError(t, w.BarrierAll())
		if w.MyPE() == 0 {
			assert.Equal(t, int64(1), winners.Local()[0])
		}
		assert.ErrorIs(t, shmem.ClearLock(lock), shmem.ErrInvalid, "nobody holds it")
		assert.ErrorIs(t, shmem.SetLock(lock.Slice(1, 1)), shmem.ErrOutOfBounds)
		require.NoError(t, w.BarrierAll())
	})
}

// A PE waiting for a lock whose holder fails is not left waiting: the
// wait ends with the job's failure (ErrPeerLost when the transport sees the
// holder die, ErrAborted when the job is stopped, as here).
func TestLockHolderFails(t *testing.T) {
	err := shmem.Run(2, func(w *shmem.World) error {
		lock, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		if w.MyPE() == 1 {
			if err := shmem.SetLock(lock); err != nil {
				return err
			}
			if err := w.BarrierAll(); err != nil {
				return err
			}
			return errors.New("holder fails")
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		err = shmem.SetLock(lock)
		if err == nil {
			return errors.New("took a lock its holder never released")
		}
		if !errors.Is(err, shmem.ErrAborted) && !errors.Is(err, shmem.ErrPeerLost) {
			return err
		}
		return nil
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holder fails")
	assert.NotContains(t, err.Error(), "took a lock")
}
