package kernels_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

func right(w *shmem.World) int { return (w.MyPE() + 1) % w.NPEs() }
func left(w *shmem.World) int  { return (w.MyPE() + w.NPEs() - 1) % w.NPEs() }

func calloc[T any](t require.TestingT, w *shmem.World, n int) shmem.Sym[T] {
	x, err := shmem.Calloc[T](w, n)
	require.NoError(t, err)
	return x
}

func val(pe, i int) int64 { return int64(pe)<<32 | int64(i) }

// Device calls at thread, warp and block scope from a kernel on a stream,
// checked against what the host forms would have left, as goroutine PEs
// and as processes.
func TestScopedDeviceCalls(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const blocks, threads = 3, 80 // warps of 32, 32, 16
		const nthreads = blocks * threads
		const big = 10007 // per block, split across the block's threads
		me, r, l := w.MyPE(), right(w), left(w)
		perThread := calloc[int64](t, w, nthreads)
		perWarp := calloc[int64](t, w, blocks*3*100)
		perBlock := calloc[int64](t, w, blocks*big)
		perBlockNBI := calloc[int64](t, w, blocks*big)
		perWarpNBI := calloc[int64](t, w, blocks*3*100)
		sigNBI := calloc[uint64](t, w, blocks)
		ctr := calloc[int64](t, w, 4)
		sig := calloc[uint64](t, w, blocks)
		gotBlock := make([][]int64, blocks)
		for i := range gotBlock {
			gotBlock[i] = make([]int64, big)
		}
		gotG := make([]int64, nthreads)
		fetched := make([]int64, nthreads)
		blockFetched := make([]int64, nthreads)
		src := make([]int64, blocks*big)
		for i := range src {
			src[i] = val(me, i)
		}

		s, err := streams.New(w, streams.WithName(fmt.Sprintf("pe%d", me)))
		require.NoError(t, err)
		kernels.LaunchOnStream(s, kernels.Dim(blocks), kernels.Dim(threads), func(th *kernels.Thread) {
			g, b := th.GlobalRank(), th.BlockRank()
			// Thread scope: one element each, P and Put alike.
			if g%2 == 0 {
				kernels.P(th, perThread.At(g), val(me, g), r)
			} else {
				kernels.Put(th, perThread.Slice(g, g+1), []int64{val(me, g)}, r)
			}
			// Warp scope: 100 elements per warp, split over its lanes.
			wbase := (b*3 + th.WarpRank()) * 100
			kernels.Put(th.Warp(), perWarp.Slice(wbase, wbase+100), src[wbase:wbase+100], r)
			// Block scope: a put with signal split over the block.
			kernels.PutSignal(th.Block(), perBlock.Slice(b*big, (b+1)*big), src[b*big:(b+1)*big], sig.At(b), 1, shmem.SignalAdd, r)
			// Non-blocking forms: no group barrier; the signal goes after the
			// last share, and Quiet completes them.
			kernels.PutSignalNBI(th.Block(), perBlockNBI.Slice(b*big, (b+1)*big), src[b*big:(b+1)*big], sigNBI.At(b), uint64(b+1), shmem.SignalSet, r)
			kernels.PutNBI(th.Warp(), perWarpNBI.Slice(wbase, wbase+100), src[wbase:wbase+100], r)
			// Atomics: every thread, then once per block and once per warp.
			fetched[g] = kernels.FetchAdd(th, ctr.At(0), 1, 0)
			blockFetched[g] = kernels.FetchAdd(th.Block(), ctr.At(1), 1, 0)
			kernels.Inc(th.Warp(), ctr.At(2), 0)
			kernels.Quiet(th.Block())
		})
		require.NoError(t, s.Synchronize())
		require.NoError(t, w.BarrierAll())

		// What the left neighbour sent is here.
		for g := range nthreads {
			require.Equal(t, val(l, g), perThread.Local()[g], "thread %d", g)
		}
		for i := range blocks * 3 * 100 {
			require.Equal(t, val(l, i), perWarp.Local()[i], "warp element %d", i)
		}
		for i := range blocks * big {
			require.Equal(t, val(l, i), perBlock.Local()[i], "block element %d", i)
		}
		for i := range blocks * big {
			require.Equal(t, val(l, i), perBlockNBI.Local()[i], "nbi block element %d", i)
		}
		for i := range blocks * 3 * 100 {
			require.Equal(t, val(l, i), perWarpNBI.Local()[i], "nbi warp element %d", i)
		}
		for b := range blocks {
			assert.Equal(t, uint64(1), sig.Local()[b], "one signal per block put")
			assert.Equal(t, uint64(b+1), sigNBI.Local()[b])
		}
		// Block-scope fetches: every thread of a block got the same value.
		for b := range blocks {
			for i := 1; i < threads; i++ {
				require.Equal(t, blockFetched[b*threads], blockFetched[b*threads+i])
			}
		}
		if me == 0 {
			assert.Equal(t, int64(nthreads*w.NPEs()), ctr.Local()[0])
			assert.Equal(t, int64(blocks*w.NPEs()), ctr.Local()[1])
			assert.Equal(t, int64(blocks*3*w.NPEs()), ctr.Local()[2])
		}
		seen := map[int64]bool{}
		for _, v := range fetched {
			assert.False(t, seen[v], "fetch-add results are distinct")
			seen[v] = true
		}
		require.NoError(t, w.BarrierAll())

		// Gets at every scope, from the right neighbour (which holds ours),
		// plus G, waits and signal ops.
		flag := calloc[int32](t, w, 1)
		kernels.LaunchOnStream(s, kernels.Dim(blocks), kernels.Dim(threads), func(th *kernels.Thread) {
			g, b := th.GlobalRank(), th.BlockRank()
			kernels.Get(th.Block(), gotBlock[b], perBlock.Slice(b*big, (b+1)*big), r)
			gotG[g] = kernels.G(th.Warp(), perThread.At(g-th.Lane()), r)
			if g == 0 {
				kernels.SignalOp(th, sig.At(0), 100, shmem.SignalSet, l)
				kernels.Store(th, flag, 7, r)
			}
			v := kernels.SignalWaitUntil(th.Block(), sig.At(0), shmem.CmpEQ, 100)
			if v != 100 {
				th.Trap(fmt.Errorf("signal %d", v))
			}
			kernels.WaitUntil(th, flag, shmem.CmpEQ, 7)
			kernels.WaitUntilAll(th.Warp(), flag, nil, shmem.CmpGE, 7)
			kernels.Fence(th)
			kernels.Quiet(th.Warp())
		})
		require.NoError(t, s.Synchronize())
		for b := range blocks {
			for i := range big {
				require.Equal(t, val(me, b*big+i), gotBlock[b][i])
			}
		}
		for g := range nthreads {
			require.Equal(t, val(me, g-(g%threads)%32), gotG[g], "G at warp scope, thread %d", g)
		}
		require.NoError(t, s.Close())
		require.NoError(t, w.BarrierAll())
	})
}

// A collective launch: kernels on every PE synchronize with each other
// (device-side barrier at thread, block and grid scope), with 8 PEs and a
// grid of 4x128 threads each, more goroutines than the machine has cores
// by far.
func TestCollectiveLaunchBarriers(t *testing.T) {
	start := time.Now()
	petest.RunConfig(t, petest.Config{N: 8, HeapSize: 4 << 20}, func(t *petest.T, w *shmem.World) {
		const rounds, blocks, threads = 6, 4, 128
		me, n := w.MyPE(), w.NPEs()
		slots := calloc[int64](t, w, rounds*n)
		var bad [rounds]int64
		err := kernels.CollectiveLaunch(w, kernels.Dim(blocks), kernels.Dim(threads), func(th *kernels.Thread) {
			for r := range rounds {
				// Block 0 puts this PE's round value into every PE; then
				// every PE's kernel passes a barrier; then every thread
				// checks that all PEs' values of the round are here.
				if th.BlockRank() == 0 {
					for pe := range n {
						kernels.P(th.Block(), slots.At(r*n+me), int64(r*100+me), pe)
					}
				}
				switch r % 3 {
				case 0:
					kernels.BarrierAll(th.Grid())
				case 1:
					th.SyncGrid()
					if th.GlobalRank() == 0 {
						kernels.BarrierAll(th)
					}
					th.SyncGrid()
				case 2:
					if th.BlockRank() == 0 {
						kernels.Quiet(th.Block())
					}
					th.SyncGrid()
					if th.BlockRank() == 1 {
						kernels.SyncAll(th.Block())
					}
					th.SyncGrid()
				}
				pe := th.GlobalRank() % n
				if got := slots.Local()[r*n+pe]; got != int64(r*100+pe) && th.ThreadRank() == 0 {
					bad[r] = got - int64(r*100+pe) + 1
				}
				th.SyncGrid()
			}
		})
		require.NoError(t, err)
		assert.Equal(t, [rounds]int64{}, bad)
		require.NoError(t, w.BarrierAll())
	})
	t.Logf("8 PEs x 4x128 threads, 6 rounds, both modes: %v", time.Since(start))
}

// A kernel on a stream that waits for a signal nobody sends is ended by
// Stream.Cancel, and the stream names the kernel and the call.
func TestKernelOnStreamCancel(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		sig := calloc[uint64](t, w, 1)
		s, err := streams.New(w, streams.WithName("k"))
		require.NoError(t, err)
		kernels.LaunchOnStream(s, kernels.Dim(2), kernels.Dim(64), func(th *kernels.Thread) {
			kernels.SignalWaitUntil(th.Block(), sig, shmem.CmpEQ, 12345)
		}, kernels.WithName("stuck"))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, s.SynchronizeContext(ctx), context.DeadlineExceeded)
		s.Cancel()
		err = s.Synchronize()
		require.ErrorIs(t, err, streams.ErrCanceled)
		var oe *streams.OpError
		require.ErrorAs(t, err, &oe)
		assert.Equal(t, "Launch stuck", oe.Op)
		assert.Error(t, s.Close()) // waits for the kernel's threads to unwind
		require.NoError(t, w.BarrierAll())

		// A kernel failure on a stream: the stream's error wraps the kernel's.
		s, err = streams.New(w)
		require.NoError(t, err)
		kernels.LaunchOnStream(s, kernels.Dim(1), kernels.Dim(4), func(th *kernels.Thread) {
			kernels.Get(th, make([]uint64, 2), sig, 0) // out of bounds
		}, kernels.WithName("oob"))
		err = s.Synchronize()
		var ke *kernels.KernelError
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "Get", ke.Op)
		assert.ErrorIs(t, err, shmem.ErrOutOfBounds)
		_ = s.Close()
		require.NoError(t, w.BarrierAll())
	})
}
