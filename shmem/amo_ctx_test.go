package shmem_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// amoStep applies one atomic to t at pe through a context (c non-nil) or
// through the default context's calls (c nil), blocking or nonblocking,
// and returns what it fetched (0 for the non-fetching ones). The two
// paths must agree step by step.
func amoStep(t *petest.T, c *shmem.Ctx, op int, x shmem.Sym[uint64], v, cmp uint64, pe int, nbi bool) uint64 {
	var got uint64
	var err error
	fetchNBI := func(ctxf func() error, plain func() error) {
		if c != nil {
			err = ctxf()
			require.NoError(t, err)
			require.NoError(t, c.Quiet())
		} else {
			err = plain()
			require.NoError(t, err)
			require.NoError(t, x.World().Quiet())
		}
	}
	switch op {
	case 0: // store
		if c != nil {
			err = shmem.CtxStore(c, x, v, pe)
		} else {
			err = shmem.Store(x, v, pe)
		}
	case 1: // swap
		if nbi {
			fetchNBI(func() error { return shmem.CtxSwapNBI(c, &got, x, v, pe) }, func() error { return shmem.SwapNBI(&got, x, v, pe) })
		} else if c != nil {
			got, err = shmem.CtxSwap(c, x, v, pe)
		} else {
			got, err = shmem.Swap(x, v, pe)
		}
	case 2: // compare and swap
		if nbi {
			fetchNBI(func() error { return shmem.CtxCompareAndSwapNBI(c, &got, x, cmp, v, pe) },
				func() error { return shmem.CompareAndSwapNBI(&got, x, cmp, v, pe) })
		} else if c != nil {
			got, err = shmem.CtxCompareAndSwap(c, x, cmp, v, pe)
		} else {
			got, err = shmem.CompareAndSwap(x, cmp, v, pe)
		}
	case 3: // fetch-add
		if nbi {
			fetchNBI(func() error { return shmem.CtxFetchAddNBI(c, &got, x, v, pe) }, func() error { return shmem.FetchAddNBI(&got, x, v, pe) })
		} else if c != nil {
			got, err = shmem.CtxFetchAdd(c, x, v, pe)
		} else {
			got, err = shmem.FetchAdd(x, v, pe)
		}
	case 4: // fetch-inc
		if nbi {
			fetchNBI(func() error { return shmem.CtxFetchIncNBI(c, &got, x, pe) }, func() error { return shmem.FetchIncNBI(&got, x, pe) })
		} else if c != nil {
			got, err = shmem.CtxFetchInc(c, x, pe)
		} else {
			got, err = shmem.FetchInc(x, pe)
		}
	case 5: // and
		if nbi {
			fetchNBI(func() error { return shmem.CtxFetchAndNBI(c, &got, x, v, pe) }, func() error { return shmem.FetchAndNBI(&got, x, v, pe) })
		} else if c != nil {
			got, err = shmem.CtxFetchAnd(c, x, v, pe)
			if err == nil {
				err = shmem.CtxAnd(c, x, v, pe) // idempotent: and twice is and once
			}
		} else {
			got, err = shmem.FetchAnd(x, v, pe)
			if err == nil {
				err = shmem.And(x, v, pe)
			}
		}
	case 6: // or
		if nbi {
			fetchNBI(func() error { return shmem.CtxFetchOrNBI(c, &got, x, v, pe) }, func() error { return shmem.FetchOrNBI(&got, x, v, pe) })
		} else if c != nil {
			got, err = shmem.CtxFetchOr(c, x, v, pe)
		} else {
			got, err = shmem.FetchOr(x, v, pe)
		}
	case 7: // xor
		if nbi {
			fetchNBI(func() error { return shmem.CtxFetchXorNBI(c, &got, x, v, pe) }, func() error { return shmem.FetchXorNBI(&got, x, v, pe) })
		} else if c != nil {
			got, err = shmem.CtxFetchXor(c, x, v, pe)
			if err == nil {
				err = shmem.CtxXor(c, x, v^1, pe)
			}
		} else {
			got, err = shmem.FetchXor(x, v, pe)
			if err == nil {
				err = shmem.Xor(x, v^1, pe)
			}
		}
	case 8: // fetch (the NBI form), or a load
		if nbi {
			fetchNBI(func() error { return shmem.CtxFetchNBI(c, &got, x, pe) }, func() error { return shmem.FetchNBI(&got, x, pe) })
		} else if c != nil {
			got, err = shmem.CtxLoad(c, x, pe)
		} else {
			got, err = shmem.Load(x, pe)
		}
	}
	require.NoError(t, err)
	return got
}

// TestCtxAtomicsMatchDefault runs one random sequence of atomics twice,
// on two words at the right neighbour: through a created context and
// through the default context's calls. Every fetched value and the words
// themselves must agree at every step.
func TestCtxAtomicsMatchDefault(t *testing.T) {
	petest.RunConfig(t, allModes(2), func(t *petest.T, w *shmem.World) {
		words, err := shmem.Calloc[uint64](w, 2)
		require.NoError(t, err)
		c, err := w.CtxCreate(0)
		require.NoError(t, err)
		viaCtx, viaDefault := words.Slice(0, 1), words.Slice(1, 2)
		rng := rand.New(rand.NewPCG(uint64(w.MyPE()), 35))
		pe := right(w)
		for step := range 300 {
			op, nbi := rng.IntN(9), rng.IntN(2) == 0
			v := rng.Uint64() >> rng.IntN(64)
			cmp := v
			if rng.IntN(2) == 0 {
				cmp, err = shmem.Load(viaDefault, pe) // a compare that matches
				require.NoError(t, err)
			}
			a := amoStep(t, c, op, viaCtx, v, cmp, pe, nbi)
			b := amoStep(t, nil, op, viaDefault, v, cmp, pe, nbi)
			require.Equal(t, b, a, "step %d op %d nbi %v", step, op, nbi)
			x, err := shmem.Load(viaCtx, pe)
			require.NoError(t, err)
			y, err := shmem.Load(viaDefault, pe)
			require.NoError(t, err)
			require.Equal(t, y, x, "step %d op %d nbi %v", step, op, nbi)
		}
		require.NoError(t, c.Destroy())
		require.NoError(t, w.BarrierAll())
	})
}
