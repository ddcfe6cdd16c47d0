package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// Cancel takes back a receive no message matched, and the message then
// goes to the next receive; a matched receive, a delivered eager send and
// a completed request are not cancelled; a generalized request's cancel
// function learns whether it completed.
func TestCancel(t *testing.T) {
	run(t, 2, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, peer := c.Rank(), 1-c.Rank()
		buf := []int32{-1}
		r, err := compat.Irecv(c, buf, 1, compat.Int32, peer, 5)
		require.NoError(t, err)
		require.NoError(t, r.Cancel())
		st, err := r.Wait()
		require.NoError(t, err)
		require.True(t, st.Cancelled())
		require.Equal(t, 0, st.Bytes())
		require.NoError(t, r.Cancel(), "cancelling a completed request does nothing")
		require.NoError(t, c.Barrier())

		require.NoError(t, compat.Send(c, []int32{int32(10 + me)}, 1, compat.Int32, peer, 5))
		st, err = compat.Recv(c, buf, 1, compat.Int32, peer, 5)
		require.NoError(t, err)
		require.False(t, st.Cancelled())
		require.Equal(t, int32(10+peer), buf[0])

		s, err := compat.Isend(c, []int32{int32(me)}, 1, compat.Int32, peer, 6)
		require.NoError(t, err)
		require.NoError(t, s.Cancel())
		st, err = s.Wait()
		require.NoError(t, err)
		require.False(t, st.Cancelled(), "an eager send already delivered")
		r, err = compat.Irecv(c, buf, 1, compat.Int32, peer, 6)
		require.NoError(t, err)
		for {
			ok, _, err := r.Test()
			require.NoError(t, err)
			if ok {
				break
			}
		}
		require.NoError(t, r.Cancel())
		st, err = r.Wait()
		require.NoError(t, err)
		require.False(t, st.Cancelled())
		require.Equal(t, int32(peer), buf[0])

		var saw []bool
		g, err := e.GrequestStartCancel(nil, func(completed bool) error { saw = append(saw, completed); return nil })
		require.NoError(t, err)
		require.NoError(t, g.Cancel())
		require.NoError(t, g.GrequestComplete())
		require.NoError(t, g.Cancel())
		require.Equal(t, []bool{false, true}, saw)
		require.Error(t, (*compat.Request)(nil).Cancel())
	})
}
