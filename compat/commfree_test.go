package compat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// TestCommFreeLocal: MPI_Comm_free is local (MPICH's comm/cmfree and
// cmfree2): members free in any order, a receive posted before the free
// completes after it, a member sends on a communicator another freed, and
// dup/free loops keep a bounded number of shmem team slots.
func TestCommFreeLocal(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, w *compat.Comm) {
		me, n := w.Rank(), w.Size()

		// cmfree2: rank 1 frees with an Irecv pending and waits for an
		// Ssend that rank 0 starts only after rank 1 freed.
		d, err := w.Dup()
		require.NoError(t, err)
		switch me {
		case 0:
			require.NoError(t, w.Barrier())
			require.NoError(t, compat.Ssend(d, []int32{7}, 1, compat.Int32, 1, 0))
			require.NoError(t, d.Free())
		case 1:
			v := []int32{0}
			r, err := compat.Irecv(d, v, 1, compat.Int32, 0, 0)
			require.NoError(t, err)
			require.NoError(t, d.Free())
			require.NoError(t, w.Barrier())
			_, err = r.Wait()
			require.NoError(t, err)
			assert.Equal(t, int32(7), v[0])
		default:
			require.NoError(t, d.Free())
			require.NoError(t, w.Barrier())
		}
		require.Error(t, d.Barrier(), "a freed communicator refuses calls")

		// cmfree: the last rank frees first and makes communicators
		// (collectively with the others) before the first rank sends on
		// the one it freed; everyone frees in a different order.
		d, err = w.Dup()
		require.NoError(t, err)
		const many = 80 // past the team slots: the rest run over point-to-point
		tmp := make([]*compat.Comm, many)
		dest := n - 1
		if me == dest {
			v := make([]int32, 64)
			r, err := compat.Irecv(d, v, len(v), compat.Int32, 0, 0)
			require.NoError(t, err)
			require.NoError(t, d.Free())
			for i := range tmp {
				tmp[i], err = w.Split(0, n-me)
				require.NoError(t, err)
			}
			require.NoError(t, w.Barrier())
			_, err = r.Wait()
			require.NoError(t, err)
			for i := range v {
				require.Equal(t, int32(i), v[i])
			}
		} else {
			for i := range tmp {
				tmp[i], err = w.Split(0, n-me)
				require.NoError(t, err)
			}
			require.NoError(t, w.Barrier())
			if me == 0 {
				v := make([]int32, 64)
				for i := range v {
					v[i] = int32(i)
				}
				require.NoError(t, compat.Send(d, v, len(v), compat.Int32, dest, 0))
			}
		}
		for i := range tmp {
			out := []int64{0}
			require.NoError(t, compat.Allreduce(tmp[i], []int64{1}, out, 1, compat.Int64, compat.OpSum))
			require.Equal(t, int64(n), out[0])
		}
		for i := range tmp {
			if me%2 == 1 {
				i = len(tmp) - 1 - i
			}
			require.NoError(t, tmp[i].Free())
		}
		if me != dest {
			require.NoError(t, d.Free())
		}

		// Dup/free cycles: the teams of freed communicators are
		// recycled as the members' frees come in, so at most the last
		// two wait for them.
		cycles := 10000
		if testing.Short() {
			cycles = 500
		}
		for i := range cycles {
			c, err := w.Dup()
			require.NoError(t, err)
			if i%1000 == 0 {
				require.NoError(t, c.Barrier())
			}
			require.NoError(t, c.Free())
			require.LessOrEqual(t, e.World().ReleasedTeams(), 2, "cycle %d", i)
		}
		c, err := w.Dup()
		require.NoError(t, err)
		out := []int64{0}
		require.NoError(t, compat.Allreduce(c, []int64{int64(me)}, out, 1, compat.Int64, compat.OpSum))
		require.Equal(t, int64(n*(n-1)/2), out[0])
		require.NoError(t, c.Free())
	})
}
