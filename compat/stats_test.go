package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// TestCounters: the engine counts exactly the messages and bytes a Send
// and Recv pair moves, an eager and a rendezvous one, on the sender's
// side as sent and the receiver's as received.
func TestCounters(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		require.NoError(t, c.Barrier())
		before := e.Counters()
		small, big := make([]int32, 10), make([]int32, 1<<16)
		if c.Rank() == 0 {
			require.NoError(t, compat.Send(c, small, len(small), compat.Int32, 1, 0))
			require.NoError(t, compat.Send(c, big, len(big), compat.Int32, 1, 1))
		} else {
			_, err := compat.Recv(c, small, len(small), compat.Int32, 0, 0)
			require.NoError(t, err)
			_, err = compat.Recv(c, big, len(big), compat.Int32, 0, 1)
			require.NoError(t, err)
		}
		after := e.Counters()
		bytes := uint64(4 * (len(small) + len(big)))
		if c.Rank() == 0 {
			require.Equal(t, uint64(2), after.SentMessages-before.SentMessages)
			require.Equal(t, bytes, after.SentBytes-before.SentBytes)
			require.Equal(t, before.RecvMessages, after.RecvMessages)
		} else {
			require.Equal(t, uint64(2), after.RecvMessages-before.RecvMessages)
			require.Equal(t, bytes, after.RecvBytes-before.RecvBytes)
			require.Equal(t, before.SentMessages, after.SentMessages)
		}
		require.GreaterOrEqual(t, after.WaitTime, before.WaitTime)
		u, p := e.Unexpected()
		require.Zero(t, u)
		require.Zero(t, p)
	})
}
