package kernels_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
)

// Team collectives made from a collective kernel, at grid, block and
// thread scope, leave what the host forms leave.
func TestDeviceCollectives(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const n = 200
		team := w.TeamWorld()
		np := w.NPEs()
		src := calloc[int64](t, w, n*np)
		for i := range src.Local() {
			src.Local()[i] = int64(w.MyPE()*1000 + i)
		}
		pair := func(k int) (shmem.Sym[int64], shmem.Sym[int64]) {
			return calloc[int64](t, w, k), calloc[int64](t, w, k)
		}
		hr, kr := pair(n)
		hb, kb := pair(n)
		hf, kf := pair(n * np)
		ha, ka := pair(n * np)
		hs, ks := pair(n)
		require.NoError(t, w.BarrierAll())

		require.NoError(t, shmem.Reduce(team, shmem.ReduceSum, hr, src.Slice(0, n), n))
		require.NoError(t, shmem.Broadcast(team, hb, src.Slice(0, n), n, 2))
		require.NoError(t, shmem.FCollect(team, hf, src.Slice(0, n), n))
		require.NoError(t, shmem.Alltoall(team, ha, src, n))
		require.NoError(t, shmem.ReduceScatter(team, shmem.ReduceMin, hs, src, n))

		err := kernels.CollectiveLaunch(w, kernels.Dim(2), kernels.Dim(64), func(th *kernels.Thread) {
			kernels.Reduce(th.Grid(), team, shmem.ReduceSum, kr, src.Slice(0, n), n)
			if th.BlockRank() == 1 {
				kernels.Broadcast(th.Block(), team, kb, src.Slice(0, n), n, 2)
			}
			th.SyncGrid()
			if th.GlobalRank() == 0 {
				kernels.FCollect(th, team, kf, src.Slice(0, n), n)
				kernels.Barrier(th, team)
			}
			// A PE's collectives must come in the same order on every PE:
			// the grid barrier orders the thread's and the warp's.
			th.SyncGrid()
			if th.WarpRank() == 1 && th.BlockRank() == 0 {
				kernels.Alltoall(th.Warp(), team, ka, src, n)
				kernels.ReduceScatter(th.Warp(), team, shmem.ReduceMin, ks, src, n)
				kernels.TeamSync(th.Warp(), team)
			}
		})
		require.NoError(t, err)
		assert.Equal(t, hr.Local(), kr.Local(), "reduce")
		assert.Equal(t, hb.Local(), kb.Local(), "broadcast")
		assert.Equal(t, hf.Local(), kf.Local(), "fcollect")
		assert.Equal(t, ha.Local(), ka.Local(), "alltoall")
		assert.Equal(t, hs.Local(), ks.Local(), "reducescatter")

		// Outside a collective launch they are refused.
		err = kernels.Launch(kernels.Dim(1), kernels.Dim(1), func(th *kernels.Thread) { kernels.Barrier(th, team) }, kernels.WithWorld(w))
		assert.ErrorIs(t, err, kernels.ErrNotCollective)
		require.NoError(t, w.BarrierAll())
	})
}
