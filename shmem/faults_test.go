package shmem_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
)

// A PE that calls one barrier more than its peers, which then finalize,
// gets ErrPeerLost once they have been gone for the peer timeout instead of
// waiting forever; the others finalize cleanly.
func TestExtraBarrierAfterPeersFinalized(t *testing.T) {
	const timeout = 300 * time.Millisecond
	errs := make([]error, 3)
	start := time.Now()
	err := shmem.Run(3, func(w *shmem.World) error {
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 1 {
			if err := w.BarrierAll(); err != nil { // matches the others' Finalize
				return err
			}
			errs[1] = w.BarrierAll() // nobody left to meet
			return errs[1]
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20), shmem.WithPeerTimeout(timeout))
	t.Logf("detected after %v (peer timeout %v)", time.Since(start), timeout)
	require.ErrorIs(t, err, shmem.ErrPeerLost)
	require.ErrorIs(t, errs[1], shmem.ErrPeerLost)
	assert.Contains(t, errs[1].Error(), "has finalized")
}

// Finalize's last barrier, crowded: many rounds of Finalize with a short
// peer timeout never report a peer that finalized first as lost.
func TestFinalizeRaceIsNotALoss(t *testing.T) {
	for range 20 {
		require.NoError(t, shmem.Run(5, func(w *shmem.World) error { return w.BarrierAll() },
			shmem.WithSymmetricSize(1<<20), shmem.WithPeerTimeout(50*time.Millisecond)))
	}
}

// A BarrierAll against an allocation's own barrier is a collective
// mismatch on both sides, not a silent match.
func TestBarrierAgainstAllocIsAMismatch(t *testing.T) {
	errs := make([]error, 2)
	_ = shmem.Run(2, func(w *shmem.World) error {
		if w.MyPE() == 0 {
			errs[0] = w.BarrierAll()
			return nil
		}
		_, errs[1] = shmem.Alloc[int64](w, 8)
		return nil
	}, shmem.WithSymmetricSize(1<<20), shmem.WithPeerTimeout(time.Second))
	for pe, err := range errs {
		require.ErrorIs(t, err, shmem.ErrSizeMismatch, "PE %d", pe)
	}
	assert.Contains(t, errs[1].Error(), "allocation call")
}
