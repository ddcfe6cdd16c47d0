package compat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// TestFaultToleranceWithoutLoss: with every member alive, Agree ANDs the
// flags, Shrink gives a communicator of all of them that reduces, and
// GetFailed and FailureGetAcked are empty; a revoked duplicate refuses
// collectives and sends with ErrRevoked and can still be freed. (The
// losses themselves are compat/abi's TestShrinkAfterLoss, which needs
// processes that die.)
func TestFaultToleranceWithoutLoss(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		v, err := c.Agree(0x7 &^ (1 << c.Rank()))
		require.NoError(t, err)
		assert.Equal(t, 0, v)
		v, err = c.Agree(0x5)
		require.NoError(t, err)
		assert.Equal(t, 0x5, v)

		require.NoError(t, c.FailureAck())
		for _, get := range []func() (*compat.Group, error){c.GetFailed, c.FailureGetAcked} {
			g, err := get()
			require.NoError(t, err)
			assert.Equal(t, 0, g.Size())
		}

		s, err := c.Shrink()
		require.NoError(t, err)
		require.Equal(t, 3, s.Size())
		assert.Equal(t, c.Rank(), s.Rank())
		out := []int64{0}
		require.NoError(t, compat.Allreduce(s, []int64{int64(s.Rank() + 1)}, out, 1, compat.Int64, compat.OpSum))
		assert.Equal(t, int64(6), out[0])

		d, err := s.Dup()
		require.NoError(t, err)
		require.NoError(t, d.Revoke())
		assert.True(t, d.Revoked())
		assert.ErrorIs(t, d.Barrier(), compat.ErrRevoked)
		assert.ErrorIs(t, compat.Send(d, []int64{1}, 1, compat.Int64, 0, 0), compat.ErrRevoked)
		require.NoError(t, d.Free())
		require.NoError(t, s.Barrier())
		require.NoError(t, s.Free())
	})
}
