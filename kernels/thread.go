package kernels

import (
	"context"

	"github.com/gshmem/gshmem/shmem"
)

// Thread is one thread of a running kernel: its indices, its barriers and
// the scope handles that device calls take. A *Thread is valid only inside
// the kernel call it was passed to, on that call's goroutine.
type Thread struct {
	l    *launch
	blk  *block
	rank int       // in the block
	idx  Dim3      // threadIdx
	seq  [4]uint64 // group calls counted by finish, per scope kind
}

// nextSeq numbers this thread's counted group calls at a scope; every
// thread of the group numbers the same call alike.
func (t *Thread) nextSeq(k scopeKind) uint64 {
	t.seq[k]++
	return t.seq[k]
}

// ThreadIdx returns the thread's index in its block (threadIdx).
func (t *Thread) ThreadIdx() Dim3 { return t.idx }

// BlockIdx returns the block's index in the grid (blockIdx).
func (t *Thread) BlockIdx() Dim3 { return t.blk.idx }

// BlockDim returns the block's shape (blockDim).
func (t *Thread) BlockDim() Dim3 { return t.l.block }

// GridDim returns the grid's shape (gridDim).
func (t *Thread) GridDim() Dim3 { return t.l.grid }

// ThreadRank returns the thread's linear index in its block, X fastest.
func (t *Thread) ThreadRank() int { return t.rank }

// BlockRank returns the block's linear index in the grid.
func (t *Thread) BlockRank() int { return t.blk.rank }

// BlockThreads returns the number of threads of a block.
func (t *Thread) BlockThreads() int { return t.l.blockThreads }

// GlobalRank returns the thread's linear index in the grid
// (BlockRank*BlockThreads + ThreadRank).
func (t *Thread) GlobalRank() int { return t.blk.rank*t.l.blockThreads + t.rank }

// GridThreads returns the number of threads of the grid.
func (t *Thread) GridThreads() int { return t.l.nblocks * t.l.blockThreads }

// WarpRank returns the warp's index in the block.
func (t *Thread) WarpRank() int { return t.rank / WarpSize }

// Lane returns the thread's index in its warp.
func (t *Thread) Lane() int { return t.rank % WarpSize }

// WarpThreads returns the number of threads of this thread's warp
// (WarpSize, or fewer in the last warp of a block whose size is not a
// multiple of WarpSize).
func (t *Thread) WarpThreads() int { return t.blk.warps[t.rank/WarpSize].size() }

// World returns the World the kernel runs on: the stream's, the collective
// launch's, or the one given WithWorld; nil if none.
func (t *Thread) World() *shmem.World { return t.l.cfg.world }

// Context ends when the launch stops: the stream was canceled, the World
// stopped, or another thread failed. Kernel code that waits by its own
// means should watch it.
func (t *Thread) Context() context.Context { return t.l.ctx }

// SyncThreads waits until every thread of the block has called it
// (__syncthreads). Threads that have returned do not hold it.
func (t *Thread) SyncThreads() {
	if !t.blk.bar.wait(nil) {
		t.aborted("SyncThreads")
	}
}

// SyncWarp waits until every thread of the warp has called it (__syncwarp).
func (t *Thread) SyncWarp() {
	if !t.blk.warps[t.rank/WarpSize].wait(nil) {
		t.aborted("SyncWarp")
	}
}

// SyncGrid waits until every thread of the grid has called it (a
// cooperative-groups grid sync). It needs a cooperative or collective
// launch.
func (t *Thread) SyncGrid() {
	if t.l.gridBar == nil {
		t.fail("SyncGrid", ErrNotCooperative)
	}
	if !t.l.gridBar.wait(nil) {
		t.aborted("SyncGrid")
	}
}

// Trap aborts the kernel with err, as a device-side trap or assert: every
// thread stops at its next device call or barrier and the launch reports
// err for this thread.
func (t *Thread) Trap(err error) { t.fail("Trap", err) }

// Scope is the set of threads that make a device call together: a single
// thread (*Thread), its warp (Thread.Warp), its block (Thread.Block) or
// the whole grid (Thread.Grid). With a warp, block or grid scope, every
// thread of the group must make the same call with the same arguments:
// RMA transfers are split across the group's threads, other calls are
// made once for the group and their result is given to every thread, and
// every thread returns when the call is complete (NVSHMEM's _warp and
// _block variants).
type Scope interface {
	scopeThread() *Thread
	scopeKind() scopeKind
}

type scopeKind uint8

const (
	threadScope scopeKind = iota
	warpScope
	blockScope
	gridScope
)

// Warp is the warp scope of a thread.
type Warp struct{ t *Thread }

// Block is the block scope of a thread.
type Block struct{ t *Thread }

// Grid is the grid scope of a thread (cooperative and collective launches).
type Grid struct{ t *Thread }

// Warp returns the thread's warp scope, for device calls made by the
// whole warp.
func (t *Thread) Warp() Warp { return Warp{t} }

// Block returns the thread's block scope, for device calls made by the
// whole block.
func (t *Thread) Block() Block { return Block{t} }

// Grid returns the grid scope, for device calls made by every thread of a
// cooperative or collective launch.
func (t *Thread) Grid() Grid { return Grid{t} }

func (t *Thread) scopeThread() *Thread { return t }
func (t *Thread) scopeKind() scopeKind { return threadScope }
func (w Warp) scopeThread() *Thread    { return w.t }
func (w Warp) scopeKind() scopeKind    { return warpScope }
func (b Block) scopeThread() *Thread   { return b.t }
func (b Block) scopeKind() scopeKind   { return blockScope }
func (g Grid) scopeThread() *Thread    { return g.t }
func (g Grid) scopeKind() scopeKind    { return gridScope }

var scopeSuffix = [...]string{"", "Warp", "Block", "Grid"}

// group returns the barrier of sc's group, the thread's rank in it and its
// size (nil barrier for thread scope).
func group(op string, sc Scope) (t *Thread, bar *barrier, rank, size int) {
	t = sc.scopeThread()
	switch sc.scopeKind() {
	case warpScope:
		return t, t.blk.warps[t.rank/WarpSize], t.rank % WarpSize, t.WarpThreads()
	case blockScope:
		return t, t.blk.bar, t.rank, t.l.blockThreads
	case gridScope:
		if t.l.gridBar == nil {
			t.fail(op+"Grid", ErrNotCooperative)
		}
		return t, t.l.gridBar, t.GlobalRank(), t.GridThreads()
	}
	return t, nil, 0, 1
}
