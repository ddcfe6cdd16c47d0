package compat_test

import (
	"testing"
	"time"

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

// TestRevokeReachesBlockedMembers: one member revokes a communicator
// while the others are blocked on it, in a receive and a probe
// (point-to-point), a barrier and a broadcast (the communicator's shmem
// team): each returns
// ErrRevoked, sees the communicator revoked, is refused a send on it, and
// all of them shrink it and go on.
func TestRevokeReachesBlockedMembers(t *testing.T) {
	run(t, 5, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		d, err := c.Dup()
		require.NoError(t, err)
		buf := make([]int64, 64)
		switch c.Rank() {
		case 0:
			time.Sleep(200 * time.Millisecond) // the others block first
			require.NoError(t, d.Revoke())
		case 1:
			_, err := compat.Recv(d, buf, 1, compat.Int64, 2, 7)
			assert.ErrorIs(t, err, compat.ErrRevoked)
		case 2:
			assert.ErrorIs(t, d.Barrier(), compat.ErrRevoked)
		case 3:
			assert.ErrorIs(t, compat.Bcast(d, buf, len(buf), compat.Int64, 0), compat.ErrRevoked)
		case 4:
			_, err := d.Probe(2, 7)
			assert.ErrorIs(t, err, compat.ErrRevoked)
		}
		assert.True(t, d.Revoked())
		assert.ErrorIs(t, compat.Send(d, buf, 1, compat.Int64, (c.Rank()+1)%5, 0), compat.ErrRevoked)
		_, err = d.Probe(compat.AnySource, compat.AnyTag)
		assert.ErrorIs(t, err, compat.ErrRevoked)
		s, err := d.Shrink()
		require.NoError(t, err)
		require.Equal(t, 5, s.Size())
		out := []int64{0}
		require.NoError(t, compat.Allreduce(s, []int64{int64(s.Rank() + 1)}, out, 1, compat.Int64, compat.OpSum))
		assert.Equal(t, int64(15), out[0])
		require.NoError(t, d.Free())
		require.NoError(t, s.Free())
		require.NoError(t, c.Barrier())
	})
}
