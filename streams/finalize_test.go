package streams_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// TestFinalizeWithBusyStream: Finalize says so when a stream still waits,
// as the porting guide's traps promise, and still finalizes; closed and
// idle streams say nothing.
func TestFinalizeWithBusyStream(t *testing.T) {
	var stuck *streams.Stream
	err := shmem.Run(2, func(w *shmem.World) error {
		sig, err := shmem.Calloc[uint64](w, 1)
		if err != nil {
			return err
		}
		closed, err := streams.New(w, streams.WithName("closed"))
		if err != nil {
			return err
		}
		streams.BarrierAllOnStream(closed)
		if err := closed.Close(); err != nil {
			return err
		}
		idle, err := streams.New(w, streams.WithName("idle"))
		if err != nil {
			return err
		}
		if err := idle.Synchronize(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			// PE 0 alone leaves a wait behind for Run's Finalize.
			if stuck, err = streams.New(w, streams.WithName("stuck")); err != nil {
				return err
			}
			streams.SignalWaitUntilOnStream(stuck, sig, shmem.CmpEQ, 7)
		}
		return nil
	}, shmem.WithSymmetricSize(1<<20))
	require.ErrorIs(t, err, streams.ErrBusyAtFinalize)
	assert.Contains(t, err.Error(), `stream "stuck" still had work queued (a wait nothing satisfied?); Synchronize or Cancel, then Close, every stream before Finalize`)
	assert.NotContains(t, err.Error(), `"idle"`)
	assert.NotContains(t, err.Error(), `"closed"`)
	// The World went anyway, and the wait with it.
	require.ErrorIs(t, stuck.Synchronize(), shmem.ErrAborted)
	assert.ErrorIs(t, stuck.Close(), shmem.ErrAborted, "Close reports the aborted wait")
}
