package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

func TestAtomicHammer(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const iters = 2000
		c, err := shmem.Calloc[int64](w, 2)
		require.NoError(t, err)
		seen := make(map[int64]bool, iters)
		for range iters {
			old, err := shmem.FetchAdd(c.At(0), 1, 0)
			require.NoError(t, err)
			require.False(t, seen[old], "FetchAdd returned %d twice", old)
			seen[old] = true
			// A CAS loop: increments are never lost.
			for {
				v, err := shmem.Load(c.At(1), 0)
				require.NoError(t, err)
				prev, err := shmem.CompareAndSwap(c.At(1), v, v+1, 0)
				require.NoError(t, err)
				if prev == v {
					break
				}
			}
		}
		require.NoError(t, w.BarrierAll())
		if w.MyPE() == 0 {
			assert.Equal(t, []int64{iters * int64(w.NPEs()), iters * int64(w.NPEs())}, c.Local())
		}
	})
}

func testIntAtomics[T shmem.Integer](t *petest.T, w *shmem.World) {
	s, err := shmem.Calloc[T](w, w.NPEs())
	require.NoError(t, err)
	me := T(w.MyPE())
	// Each PE owns slot me on its right neighbour.
	x := s.At(w.MyPE())
	pe := right(w)
	require.NoError(t, shmem.Store(x, 0b1100, pe))
	v, err := shmem.Load(x, pe)
	require.NoError(t, err)
	require.Equal(t, T(0b1100), v)
	old, err := shmem.FetchAnd(x, 0b0110, pe)
	require.NoError(t, err)
	require.Equal(t, T(0b1100), old)
	require.NoError(t, shmem.And(x, 0b0111, pe)) // 0100
	old, err = shmem.FetchOr(x, 0b0001, pe)
	require.NoError(t, err)
	require.Equal(t, T(0b0100), old)
	require.NoError(t, shmem.Or(x, 0b1000, pe)) // 1101
	old, err = shmem.FetchXor(x, 0b0011, pe)
	require.NoError(t, err)
	require.Equal(t, T(0b1101), old)
	require.NoError(t, shmem.Xor(x, 0b1111, pe)) // 1110 ^ 1111 = 0001
	require.NoError(t, shmem.Inc(x, pe))         // 2
	old, err = shmem.FetchInc(x, pe)
	require.NoError(t, err)
	require.Equal(t, T(2), old)
	require.NoError(t, shmem.Add(x, 10+me, pe)) // 13+me
	old, err = shmem.FetchAdd(x, 1, pe)
	require.NoError(t, err)
	require.Equal(t, 13+me, old)
	old, err = shmem.Swap(x, 42, pe)
	require.NoError(t, err)
	require.Equal(t, 14+me, old)
	old, err = shmem.CompareAndSwap(x, 41, 7, pe)
	require.NoError(t, err)
	require.Equal(t, T(42), old, "failed CAS returns the current value")
	old, err = shmem.CompareAndSwap(x, 42, 7, pe)
	require.NoError(t, err)
	require.Equal(t, T(42), old)
	require.NoError(t, w.BarrierAll())
	require.Equal(t, T(7), s.Local()[left(w)])
}

func TestAtomicOps(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		testIntAtomics[int32](t, w)
		testIntAtomics[int64](t, w)
		testIntAtomics[uint32](t, w)
		testIntAtomics[uint64](t, w)

		f, err := shmem.Calloc[float32](w, 1)
		require.NoError(t, err)
		d, err := shmem.Calloc[float64](w, 1)
		require.NoError(t, err)
		require.NoError(t, shmem.Store(f, float32(w.MyPE())+0.5, right(w)))
		require.NoError(t, shmem.Store(d, float64(w.MyPE())+0.25, right(w)))
		require.NoError(t, w.BarrierAll())
		old, err := shmem.Swap(f, -1, w.MyPE())
		require.NoError(t, err)
		assert.Equal(t, float32(left(w))+0.5, old)
		dv, err := shmem.Load(d, w.MyPE())
		require.NoError(t, err)
		assert.Equal(t, float64(left(w))+0.25, dv)
		assert.Equal(t, float32(-1), f.Local()[0])
	})
}

func TestSignalsAndWaits(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		sig, err := shmem.Calloc[uint64](w, 1)
		require.NoError(t, err)
		flags, err := shmem.Calloc[int32](w, w.NPEs())
		require.NoError(t, err)
		// Everyone adds to PE 0's signal; PE 0 waits for the total.
		require.NoError(t, shmem.SignalOpAt(sig, uint64(w.MyPE()+1), shmem.SignalAdd, 0))
		if w.MyPE() == 0 {
			n := uint64(w.NPEs())
			v, err := shmem.SignalWaitUntil(sig, shmem.CmpEQ, n*(n+1)/2)
			require.NoError(t, err)
			assert.Equal(t, n*(n+1)/2, v)
			got, err := shmem.SignalFetch(sig)
			require.NoError(t, err)
			assert.Equal(t, v, got)
		}
		// Each PE raises its flag on every peer.
		for pe := range w.NPEs() {
			require.NoError(t, shmem.P(flags.At(w.MyPE()), int32(w.MyPE()+1), pe))
		}
		require.NoError(t, shmem.WaitUntilAll(flags, nil, shmem.CmpGT, 0))
		i, err := shmem.WaitUntilAny(flags, nil, shmem.CmpEQ, int32(w.NPEs()))
		require.NoError(t, err)
		assert.Equal(t, w.NPEs()-1, i)
		status := make([]int, w.NPEs())
		status[0] = 1
		some, err := shmem.WaitUntilSome(flags, status, shmem.CmpLE, 2)
		require.NoError(t, err)
		assert.Equal(t, []int{1}, some)
		for c, want := range map[shmem.Cmp]bool{shmem.CmpEQ: true, shmem.CmpNE: false, shmem.CmpGT: false,
			shmem.CmpGE: true, shmem.CmpLT: false, shmem.CmpLE: true} {
			ok, err := shmem.Test(flags.At(1), c, 2)
			require.NoError(t, err)
			assert.Equal(t, want, ok, "flag %s 2", c)
		}
		ok, err := shmem.TestAll(flags, nil, shmem.CmpGE, 1)
		require.NoError(t, err)
		assert.True(t, ok)
		ok, err = shmem.TestAll(flags, nil, shmem.CmpGE, 2)
		require.NoError(t, err)
		assert.False(t, ok)
		idx, err := shmem.TestAny(flags, status, shmem.CmpLT, 2)
		require.NoError(t, err)
		assert.Equal(t, -1, idx, "flag 0 (the only one below 2) is excluded")
		all, err := shmem.TestSome(flags, nil, shmem.CmpNE, 2)
		require.NoError(t, err)
		assert.Len(t, all, w.NPEs()-1)
		excluded := make([]int, w.NPEs())
		for k := range excluded {
			excluded[k] = 1
		}
		idx, err = shmem.WaitUntilAny(flags, excluded, shmem.CmpEQ, 99)
		require.NoError(t, err)
		assert.Equal(t, -1, idx, "every element excluded returns at once")
		vals := make([]int32, w.NPEs())
		for k := range vals {
			vals[k] = int32(k + 1)
		}
		require.NoError(t, shmem.WaitUntilAllVector(flags, nil, shmem.CmpEQ, vals))
	})
}

// TestPutSignalOrdering checks, over thousands of rounds, that a PE that sees
// a signal always sees the whole block put before it.
func TestPutSignalOrdering(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const rounds, n = 3000, 512
		data, err := shmem.Calloc[uint64](w, n)
		require.NoError(t, err)
		sig, err := shmem.Calloc[uint64](w, 2) // [0] data ready, [1] ack
		require.NoError(t, err)
		src := make([]uint64, n)
		for r := uint64(1); r <= rounds; r++ {
			for i := range src {
				src[i] = r*1_000_000 + uint64(i)
			}
			// Wait until the right neighbour consumed the previous round.
			_, err := shmem.SignalWaitUntil(sig.At(1), shmem.CmpGE, r-1)
			require.NoError(t, err)
			if r%2 == 0 {
				require.NoError(t, shmem.PutSignal(data, src, sig.At(0), r, shmem.SignalSet, right(w)))
			} else {
				require.NoError(t, shmem.PutSignalNBI(data, src, sig.At(0), 1, shmem.SignalAdd, right(w)))
			}
			_, err = shmem.SignalWaitUntil(sig.At(0), shmem.CmpGE, r)
			require.NoError(t, err)
			for i, v := range data.Local() {
				if v != r*1_000_000+uint64(i) {
					require.Failf(t, "torn put", "round %d element %d = %d", r, i, v)
				}
			}
			require.NoError(t, shmem.SignalOpAt(sig.At(1), r, shmem.SignalSet, left(w)))
			require.NoError(t, w.Quiet())
		}
	})
}

func TestBarrierRepeated(t *testing.T) {
	for _, n := range []int{1, 3, 5, 8} {
		t.Run("", func(t *testing.T) {
			petest.Run(t, n, func(t *petest.T, w *shmem.World) {
				c, err := shmem.Calloc[int64](w, 1)
				require.NoError(t, err)
				for i := range 200 {
					require.NoError(t, shmem.Add(c, 1, (w.MyPE()+i)%w.NPEs()))
					require.NoError(t, w.BarrierAll())
					// In round j PE p adds to (p+j)%n: every PE receives one
					// add per round, and after the barrier everyone sees them.
					v, err := shmem.Load(c, 0)
					require.NoError(t, err)
					require.Equal(t, int64(i+1), v)
					require.NoError(t, w.SyncAll())
				}
			})
		})
	}
}
