package kernels_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
)

// Every thread sees consistent indices; blocks whose size is not a multiple
// of the warp size have a short last warp.
func TestIndices(t *testing.T) {
	grid, block := kernels.Dim(2, 3), kernels.Dim(5, 4, 5) // 6 blocks of 100
	type rec struct {
		blk, thr, bdim, gdim kernels.Dim3
		rank, brank, warp    int
		lane, wthreads       int
	}
	n := grid.Count() * block.Count()
	recs := make([]rec, n)
	seen := make([]atomic.Int32, n)
	require.NoError(t, kernels.Launch(grid, block, func(th *kernels.Thread) {
		g := th.GlobalRank()
		seen[g].Add(1)
		recs[g] = rec{th.BlockIdx(), th.ThreadIdx(), th.BlockDim(), th.GridDim(), th.ThreadRank(), th.BlockRank(), th.WarpRank(), th.Lane(), th.WarpThreads()}
		assert.Equal(t, n, th.GridThreads())
		assert.Equal(t, 100, th.BlockThreads())
		assert.Nil(t, th.World())
	}))
	for g, r := range recs {
		require.Equal(t, int32(1), seen[g].Load(), "thread %d ran once", g)
		assert.Equal(t, g/100, r.brank)
		assert.Equal(t, g%100, r.rank)
		assert.Equal(t, kernels.Dim3{X: r.brank % 2, Y: r.brank / 2, Z: 0}, r.blk)
		assert.Equal(t, kernels.Dim3{X: r.rank % 5, Y: r.rank / 5 % 4, Z: r.rank / 20}, r.thr)
		assert.Equal(t, kernels.Dim(5, 4, 5), r.bdim)
		assert.Equal(t, kernels.Dim(2, 3), r.gdim)
		assert.Equal(t, r.rank/32, r.warp)
		assert.Equal(t, r.rank%32, r.lane)
		if r.warp == 3 {
			assert.Equal(t, 4, r.wthreads)
		} else {
			assert.Equal(t, 32, r.wthreads)
		}
	}
	assert.Equal(t, 128, kernels.Dim(128).Count())
	assert.Equal(t, "(4,1,1)", kernels.Dim(4).String())
}

// Block, warp and grid barriers are reusable and order the threads' plain
// memory accesses (the race detector checks the happens-before edges).
func TestBarriers(t *testing.T) {
	const rounds = 40
	grid, block := kernels.Dim(3), kernels.Dim(70) // warps of 32, 32, 6
	blockMem := make([][]int, 3)
	for i := range blockMem {
		blockMem[i] = make([]int, 70)
	}
	gridMem := make([]int, 210)
	err := kernels.Launch(grid, block, func(th *kernels.Thread) {
		mem := blockMem[th.BlockRank()]
		me, n := th.ThreadRank(), th.BlockThreads()
		for r := range rounds {
			mem[me] = r*1000 + me
			th.SyncThreads()
			if got := mem[(me+1)%n]; got != r*1000+(me+1)%n {
				th.Trap(errors.New("block barrier let a thread through early"))
			}
			th.SyncThreads()
			// Warp: neighbours within the warp.
			base := th.WarpRank() * kernels.WarpSize
			mem[me] = -r
			th.SyncWarp()
			if got := mem[base+(th.Lane()+1)%th.WarpThreads()]; got != -r {
				th.Trap(errors.New("warp barrier let a thread through early"))
			}
			th.SyncWarp()
			// Grid: neighbours across blocks.
			g := th.GlobalRank()
			gridMem[g] = r + g
			th.SyncGrid()
			if got := gridMem[(g+70)%210]; got != r+(g+70)%210 {
				th.Trap(errors.New("grid barrier let a thread through early"))
			}
			th.SyncGrid()
		}
	}, kernels.Cooperative())
	require.NoError(t, err)

	// Threads that return early do not hold the others.
	require.NoError(t, kernels.Launch(kernels.Dim(2), kernels.Dim(64), func(th *kernels.Thread) {
		if th.ThreadRank()%3 == 0 {
			return
		}
		for range 5 {
			th.SyncThreads()
			th.SyncWarp()
		}
	}))
}

// A failing device call aborts the kernel: threads waiting at barriers are
// released, and the launch names the call, the block and the thread.
func TestKernelErrors(t *testing.T) {
	err := shmem.Run(2, func(w *shmem.World) error {
		buf, err := shmem.Calloc[int64](w, 16)
		if err != nil {
			return err
		}
		err = kernels.Launch(kernels.Dim(4), kernels.Dim(64), func(th *kernels.Thread) {
			if th.BlockRank() == 2 && th.ThreadRank() == 33 {
				kernels.Put(th, buf, []int64{1}, 7) // bad PE
			}
			for range 3 {
				th.SyncThreads()
			}
		}, kernels.WithName("bad"))
		var ke *kernels.KernelError
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "bad", ke.Kernel)
		assert.Equal(t, "Put", ke.Op)
		assert.Equal(t, kernels.Dim3{X: 2, Y: 0, Z: 0}, ke.Block)
		assert.Equal(t, kernels.Dim3{X: 33, Y: 0, Z: 0}, ke.Thread)
		assert.ErrorIs(t, err, shmem.ErrBadPE)
		assert.Contains(t, err.Error(), `kernel "bad", block (2,0,0), thread (33,0,0): Put:`)

		// A block put out of the object's bounds: the failing share names it.
		err = kernels.Launch(kernels.Dim(1), kernels.Dim(32), func(th *kernels.Thread) {
			kernels.Put(th.Block(), buf, make([]int64, 20), w.MyPE())
		})
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "PutBlock", ke.Op)
		assert.ErrorIs(t, err, shmem.ErrOutOfBounds)

		// A panic.
		err = kernels.Launch(kernels.Dim(2), kernels.Dim(8), func(th *kernels.Thread) {
			if th.GlobalRank() == 9 {
				panic("boom")
			}
			th.SyncThreads()
		})
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "panic", ke.Op)
		assert.Contains(t, err.Error(), "boom")

		// Grid barrier, grid scope and device barriers need the right launch.
		err = kernels.Launch(kernels.Dim(2), kernels.Dim(8), func(th *kernels.Thread) { th.SyncGrid() })
		assert.ErrorIs(t, err, kernels.ErrNotCooperative)
		err = kernels.Launch(kernels.Dim(1), kernels.Dim(8), func(th *kernels.Thread) {
			kernels.Put(th.Grid(), buf, []int64{1}, 0)
		})
		assert.ErrorIs(t, err, kernels.ErrNotCooperative)
		err = kernels.Launch(kernels.Dim(1), kernels.Dim(8), func(th *kernels.Thread) { kernels.BarrierAll(th) }, kernels.WithWorld(w))
		assert.ErrorIs(t, err, kernels.ErrNotCollective)
		err = kernels.Launch(kernels.Dim(1), kernels.Dim(8), func(th *kernels.Thread) { kernels.Quiet(th) })
		assert.ErrorIs(t, err, kernels.ErrNoWorld)

		// Bad shapes.
		for _, c := range [][2]kernels.Dim3{{kernels.Dim(0), kernels.Dim(1)}, {kernels.Dim(1), kernels.Dim(2048)}, {kernels.Dim(1), kernels.Dim(-1)}} {
			assert.ErrorIs(t, kernels.Launch(c[0], c[1], func(*kernels.Thread) {}), kernels.ErrBadLaunch)
		}
		assert.ErrorIs(t, kernels.Launch(kernels.Dim(100), kernels.Dim(1024), func(*kernels.Thread) {}, kernels.Cooperative()), kernels.ErrBadLaunch)

		// A wait nothing satisfies, bounded by WithContext.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		start := time.Now()
		err = kernels.Launch(kernels.Dim(2), kernels.Dim(32), func(th *kernels.Thread) {
			kernels.WaitUntil(th.Block(), buf.At(3), shmem.CmpEQ, 99)
		}, kernels.WithContext(ctx))
		require.ErrorAs(t, err, &ke)
		assert.Equal(t, "WaitUntilBlock", ke.Op)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 2*time.Second)
		return w.BarrierAll()
	}, shmem.WithSymmetricSize(1<<20))
	require.NoError(t, err)
}
