package streams_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// Every on-stream team collective leaves the same result as its host form,
// on the world team and on a split team, as goroutine PEs and as processes.
func TestCollectivesOnStreamMatchHost(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		evens, err := w.TeamWorld().SplitStrided(0, 2, 2)
		require.NoError(t, err)
		// Every PE takes part in the world team's round (allocations
		// included); only the even ones in the second's collectives.
		s := newStream(t, w)
		for round, team := range []*shmem.Team{w.TeamWorld(), evens} {
			np := w.NPEs() // the team's size, known to members and others alike
			if round == 1 {
				np = w.NPEs() / 2
			}
			me := team.MyPE() // -1 when not a member
			const n = 300     // above the collectives' scratch size for int64s
			alloc := func(k int) (shmem.Sym[int64], shmem.Sym[int64]) {
				// allocation is collective over the world: do it on every PE
				a, err := shmem.Calloc[int64](w, k)
				require.NoError(t, err)
				b, err := shmem.Calloc[int64](w, k)
				require.NoError(t, err)
				return a, b
			}
			src, _ := alloc(n * np)
			for i := range src.Local() {
				src.Local()[i] = int64(w.MyPE()*10000 + i)
			}
			hb, sb := alloc(n)
			hf, sf := alloc(n * np)
			ha, sa := alloc(n * np)
			hr, sr := alloc(n)
			hs, ss := alloc(n)
			hc, sc := alloc(n * np)
			fsrc, err := shmem.Calloc[float64](w, n)
			require.NoError(t, err)
			hfr, err := shmem.Calloc[float64](w, n)
			require.NoError(t, err)
			sfr, err := shmem.Calloc[float64](w, n)
			require.NoError(t, err)
			for i := range fsrc.Local() {
				fsrc.Local()[i] = float64(w.MyPE()) + 0.1*float64(i)
			}
			require.NoError(t, w.BarrierAll())
			if team == nil {
				continue
			}
			cnt := me + 1 // Collect: a different count per member
			require.NoError(t, shmem.Broadcast(team, hb, src.Slice(0, n), n, np-1))
			require.NoError(t, shmem.FCollect(team, hf, src.Slice(0, n), n))
			require.NoError(t, shmem.Collect(team, hc, src.Slice(0, n), cnt))
			require.NoError(t, shmem.Alltoall(team, ha, src, n))
			require.NoError(t, shmem.Reduce(team, shmem.ReduceSum, hr, src.Slice(0, n), n))
			require.NoError(t, shmem.ReduceScatter(team, shmem.ReduceMax, hs, src.Slice(0, n*np), n))
			require.NoError(t, shmem.Reduce(team, shmem.ReduceSum, hfr, fsrc, n))
			require.NoError(t, team.Barrier())

			streams.BroadcastOnStream(s, team, sb, src.Slice(0, n), n, np-1)
			streams.FCollectOnStream(s, team, sf, src.Slice(0, n), n)
			streams.CollectOnStream(s, team, sc, src.Slice(0, n), cnt)
			streams.AlltoallOnStream(s, team, sa, src, n)
			streams.ReduceOnStream(s, team, shmem.ReduceSum, sr, src.Slice(0, n), n)
			streams.ReduceScatterOnStream(s, team, shmem.ReduceMax, ss, src.Slice(0, n*np), n)
			streams.ReduceOnStream(s, team, shmem.ReduceSum, sfr, fsrc, n)
			streams.BarrierOnStream(s, team)
			streams.TeamSyncOnStream(s, team)
			require.NoError(t, s.Synchronize())

			assert.Equal(t, hb.Local(), sb.Local(), "broadcast")
			assert.Equal(t, hf.Local(), sf.Local(), "fcollect")
			assert.Equal(t, hc.Local(), sc.Local(), "collect")
			assert.Equal(t, ha.Local(), sa.Local(), "alltoall")
			assert.Equal(t, hr.Local(), sr.Local(), "reduce")
			assert.Equal(t, hs.Local(), ss.Local(), "reducescatter")
			assert.Equal(t, hfr.Local(), sfr.Local(), "float reduce, bitwise")
			require.NoError(t, team.Barrier())
		}
		// A bad argument is named.
		streams.BroadcastOnStream(s, nil, shmem.Sym[int64]{}, shmem.Sym[int64]{}, 1, 0)
		err = s.Synchronize()
		var oe *streams.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "BroadcastOnStream", oe.Op)
		assert.ErrorIs(t, err, shmem.ErrInvalid)
		_ = s.Close()
		require.NoError(t, w.BarrierAll())
	})
}
