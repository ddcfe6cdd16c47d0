package compat_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// Generalized requests complete through Wait, Test and Waitall like any
// other, mixed with point-to-point requests; a query's Status and error
// are what the completing call returns.
func TestGeneralizedRequests(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		c := env.CommWorld()
		me, peer := c.Rank(), 1-c.Rank()

		g, err := env.GrequestStart(func(st *compat.Status) error { st.Source, st.Tag = 7, 42; return nil })
		require.NoError(t, err)
		done, _, err := g.Test()
		require.NoError(t, err)
		require.False(t, done, "not complete before GrequestComplete")
		go func() {
			time.Sleep(10 * time.Millisecond)
			_ = g.GrequestComplete()
		}()
		in := make([]int64, 1)
		rr, err := compat.Irecv(c, in, 1, compat.Int64, peer, 0)
		require.NoError(t, err)
		sr, err := compat.Isend(c, []int64{int64(me)}, 1, compat.Int64, peer, 0)
		require.NoError(t, err)
		sts := make([]compat.Status, 3)
		require.NoError(t, compat.Waitall([]*compat.Request{g, rr, sr}, sts))
		require.Equal(t, 7, sts[0].Source)
		require.Equal(t, 42, sts[0].Tag)
		require.Equal(t, int64(peer), in[0])
		require.ErrorIs(t, g.GrequestComplete(), compat.ErrRequest, "twice")
		require.ErrorIs(t, rr.GrequestComplete(), compat.ErrRequest, "not a generalized request")

		bad := errors.New("the work failed")
		f, err := env.GrequestStart(func(*compat.Status) error { return bad })
		require.NoError(t, err)
		require.NoError(t, f.GrequestComplete())
		_, err = f.Wait()
		require.ErrorIs(t, err, bad)
		require.NoError(t, env.Finalize())
		_, err = env.GrequestStart(nil)
		require.ErrorIs(t, err, compat.ErrOther, "finalized Env")
	})
}
