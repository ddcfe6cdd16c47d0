package shmem_test

import (
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func allModes(n int) petest.Config { return petest.Config{N: n, Modes: petest.AllModes} }

func TestContexts(t *testing.T) {
	petest.RunConfig(t, allModes(4), func(t *petest.T, w *shmem.World) {
		const n = 512
		dst, err := shmem.Calloc[int64](w, 2*n)
		require.NoError(t, err)
		// Two goroutines, each with its own context, stream puts and quiet.
		var wg sync.WaitGroup
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := w.CtxCreate(shmem.CtxPrivate | shmem.CtxSerialized)
				if !assert.NoError(t, err) {
					return
				}
				src := make([]int64, n)
				for i := range src {
					src[i] = int64(w.MyPE()*100000 + g*10000 + i)
				}
				for i := 0; i < n; i += 64 {
					assert.NoError(t, shmem.CtxPutNBI(c, dst.Slice(g*n+i, g*n+i+64), src[i:i+64], right(w)))
				}
				assert.NoError(t, c.Quiet())
				assert.Equal(t, shmem.CtxPrivate|shmem.CtxSerialized, c.Options())
				assert.NoError(t, c.Destroy())
				assert.ErrorIs(t, c.Destroy(), shmem.ErrInvalid)
				assert.ErrorIs(t, shmem.CtxPut(c, dst, src, right(w)), shmem.ErrInvalid, "a destroyed context")
			}()
		}
		wg.Wait()
		require.NoError(t, w.BarrierAll())
		for g := range 2 {
			for i := range n {
				require.Equal(t, int64(left(w)*100000+g*10000+i), dst.Local()[g*n+i])
			}
		}

		// Every call on a context.
		c, err := w.CtxCreate(0)
		require.NoError(t, err)
		ctr, err := shmem.Calloc[uint64](w, 4)
		require.NoError(t, err)
		sig, err := shmem.Calloc[uint64](w, 1)
		require.NoError(t, err)
		require.NoError(t, shmem.CtxP(c, ctr.At(0), 7, right(w)))
		require.NoError(t, shmem.CtxAdd(c, ctr.At(1), 1, 0))
		require.NoError(t, shmem.CtxInc(c, ctr.At(1), 0))
		_, err = shmem.CtxFetchInc(c, ctr.At(1), 0)
		require.NoError(t, err)
		require.NoError(t, shmem.CtxOr(c, ctr.At(2), 1<<w.MyPE(), 0))
		require.NoError(t, shmem.CtxPutSignal(c, dst.Slice(0, 1), []int64{-1}, sig, 1, shmem.SignalAdd, right(w)))
		require.NoError(t, c.Fence())
		require.NoError(t, c.Quiet())
		require.NoError(t, w.BarrierAll())
		v, err := shmem.CtxG(c, ctr.At(0), w.MyPE())
		require.NoError(t, err)
		assert.Equal(t, uint64(7), v)
		got, err := shmem.CtxLoad(c, ctr.At(1), 0)
		require.NoError(t, err)
		assert.Equal(t, uint64(3*w.NPEs()), got)
		got, err = shmem.CtxFetchXor(c, ctr.At(2), 0, 0)
		require.NoError(t, err)
		assert.Equal(t, uint64(1<<w.NPEs()-1), got)
		s, err := shmem.SignalWaitUntil(sig, shmem.CmpGE, 1)
		require.NoError(t, err)
		assert.Equal(t, uint64(1), s)
		buf := make([]int64, 2)
		require.NoError(t, shmem.CtxGet(c, buf, dst.Slice(0, 2), right(w)))
		assert.Equal(t, int64(-1), buf[0])
		require.NoError(t, shmem.CtxIGet(c, buf, dst, 1, 2, 2, w.MyPE()))
		assert.Equal(t, []int64{-1, int64(left(w)*100000 + 2)}, buf)
		require.NoError(t, c.Destroy())

		// NOSTORE contexts read only.
		ro, err := w.CtxCreate(shmem.CtxNoStore)
		require.NoError(t, err)
		assert.ErrorIs(t, shmem.CtxPut(ro, dst, buf, right(w)), shmem.ErrInvalid)
		assert.ErrorIs(t, shmem.CtxAdd(ro, ctr.At(1), 1, 0), shmem.ErrInvalid)
		_, err = shmem.CtxLoad(ro, ctr.At(1), 0)
		assert.NoError(t, err)
		require.NoError(t, ro.Destroy())
		_, err = w.CtxCreate(1 << 10)
		assert.ErrorIs(t, err, shmem.ErrInvalid)
		assert.ErrorIs(t, w.CtxDefault().Destroy(), shmem.ErrInvalid)
		require.NoError(t, w.BarrierAll())
	})
}

func TestTeamContexts(t *testing.T) {
	petest.RunConfig(t, allModes(4), func(t *petest.T, w *shmem.World) {
		x, err := shmem.Calloc[int32](w, 1)
		require.NoError(t, err)
		// The odd PEs, in a team configured for one context.
		odd, err := w.TeamWorld().SplitStrided(1, 2, 2, shmem.TeamConfig{NumContexts: 1})
		require.NoError(t, err)
		if w.MyPE()%2 == 0 {
			assert.Nil(t, odd)
		} else {
			require.NotNil(t, odd)
			assert.Equal(t, shmem.TeamConfig{NumContexts: 1}, odd.Config())
			c, err := odd.CreateCtx(0)
			require.NoError(t, err)
			assert.Same(t, odd, c.Team())
			_, err = odd.CreateCtx(0)
			assert.ErrorIs(t, err, shmem.ErrInvalid, "one context was configured")
			// PE 1 of the team is world PE 3.
			require.NoError(t, shmem.CtxAdd(c, x, int32(w.MyPE()), 1))
			assert.ErrorIs(t, shmem.CtxAdd(c, x, 1, 2), shmem.ErrBadPE)
			require.NoError(t, c.Quiet())
			require.NoError(t, c.Destroy())
			c, err = odd.CreateCtx(0)
			require.NoError(t, err, "a destroyed context frees its place")
			require.NoError(t, c.Destroy())
			require.NoError(t, odd.Destroy())
		}
		require.NoError(t, w.BarrierAll())
		if w.MyPE() == 3 {
			assert.Equal(t, int32(1+3), x.Local()[0])
		}
		assert.Equal(t, shmem.TeamConfig{}, w.TeamWorld().Config())
	})
}

func TestFetchingAtomicsNBI(t *testing.T) {
	petest.RunConfig(t, allModes(4), func(t *petest.T, w *shmem.World) {
		ctr, err := shmem.Calloc[int64](w, 4)
		require.NoError(t, err)
		u, err := shmem.Calloc[uint32](w, 2)
		require.NoError(t, err)
		c, err := w.CtxCreate(0)
		require.NoError(t, err)
		const k = 50
		got := make([]int64, k)
		for i := range k {
			if i%2 == 0 {
				require.NoError(t, shmem.FetchAddNBI(&got[i], ctr.At(0), 1, 0))
			} else {
				require.NoError(t, shmem.CtxFetchIncNBI(c, &got[i], ctr.At(0), 0))
			}
		}
		require.NoError(t, w.Quiet())
		require.NoError(t, c.Quiet())
		require.NoError(t, w.BarrierAll())
		all := make([]int64, k*w.NPEs())
		tmp, err := shmem.Calloc[int64](w, k*w.NPEs())
		require.NoError(t, err)
		require.NoError(t, shmem.Put(tmp.Slice(w.MyPE()*k, (w.MyPE()+1)*k), got, 0))
		require.NoError(t, w.BarrierAll())
		if w.MyPE() == 0 {
			copy(all, tmp.Local())
			sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
			for i, v := range all {
				require.Equal(t, int64(i), v, "every old value seen once")
			}
		}
		require.NoError(t, w.BarrierAll())
		if w.MyPE() == 1 {
			var f, s, cas, cas2 int64
			var a, o, x uint32
			require.NoError(t, shmem.FetchNBI(&f, ctr.At(0), 0))
			require.NoError(t, shmem.SwapNBI(&s, ctr.At(1), 5, 0))
			require.NoError(t, shmem.CompareAndSwapNBI(&cas, ctr.At(1), 5, 6, 0))
			require.NoError(t, shmem.CtxCompareAndSwapNBI(c, &cas2, ctr.At(2), 1, 9, 0))
			require.NoError(t, shmem.FetchOrNBI(&o, u.At(0), 0xf0, 0))
			require.NoError(t, shmem.FetchAndNBI(&a, u.At(0), 0x30, 0))
			require.NoError(t, shmem.FetchXorNBI(&x, u.At(0), 0x11, 0))
			require.NoError(t, w.Quiet())
			require.NoError(t, c.Quiet())
			assert.Equal(t, int64(k*w.NPEs()), f)
			assert.Equal(t, []int64{0, 5, 0}, []int64{s, cas, cas2})
			assert.Equal(t, []uint32{0, 0xf0, 0x30}, []uint32{o, a, x})
			v, err := shmem.Load(u.At(0), 0)
			require.NoError(t, err)
			assert.Equal(t, uint32(0x21), v)
			v6, err := shmem.Load(ctr.At(1), 0)
			require.NoError(t, err)
			assert.Equal(t, int64(6), v6)
			assert.ErrorIs(t, shmem.FetchAddNBI(nil, ctr.At(0), 1, 0), shmem.ErrInvalid)
			assert.ErrorIs(t, shmem.FetchAddNBI(&f, ctr.At(0), 1, 9), shmem.ErrBadPE)
		}
		require.NoError(t, c.Destroy())
		require.NoError(t, w.BarrierAll())
	})
}
