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

		// A rendezvous send and a synchronous one nobody matched are
		// taken back: the receiver never sees them, and the next message
		// of the same tag is the one it receives.
		big := make([]byte, 1<<20)
		for i := range big {
			big[i] = byte(me + 1)
		}
		s, err = compat.Isend(c, big, len(big), compat.Byte, peer, 7)
		require.NoError(t, err)
		ss, err := compat.Issend(c, []int32{99}, 1, compat.Int32, peer, 7)
		require.NoError(t, err)
		require.NoError(t, s.Cancel())
		require.NoError(t, ss.Cancel())
		require.NoError(t, s.Cancel(), "a second Cancel does nothing more")
		st, err = s.Wait()
		require.NoError(t, err)
		require.True(t, st.Cancelled(), "an unmatched rendezvous send")
		st, err = ss.Wait()
		require.NoError(t, err)
		require.True(t, st.Cancelled(), "an unmatched synchronous send")
		// The peer answers the withdrawals in its point-to-point progress:
		// a barrier over the rings makes it, Barrier on a team need not.
		require.NoError(t, c.BarrierP2P())
		flag, _, err := c.Iprobe(peer, 7)
		require.NoError(t, err)
		require.False(t, flag, "a cancelled send is never seen")
		require.NoError(t, c.Barrier())
		require.NoError(t, compat.Send(c, []int32{int32(20 + me)}, 1, compat.Int32, peer, 7))
		st, err = compat.Recv(c, buf, 1, compat.Int32, peer, 7)
		require.NoError(t, err)
		require.Equal(t, int32(20+peer), buf[0])
		require.Equal(t, 4, st.Bytes())

		// A rendezvous send its receive matched already completes normally.
		got := make([]byte, len(big))
		r, err = compat.Irecv(c, got, len(got), compat.Byte, peer, 8)
		require.NoError(t, err)
		require.NoError(t, c.Barrier())
		s, err = compat.Isend(c, big, len(big), compat.Byte, peer, 8)
		require.NoError(t, err)
		require.NoError(t, s.Cancel())
		st, err = s.Wait()
		require.NoError(t, err)
		require.False(t, st.Cancelled(), "a matched send")
		st, err = r.Wait()
		require.NoError(t, err)
		require.Equal(t, len(big), st.Bytes())
		require.Equal(t, byte(peer+1), got[len(got)-1])

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
