// Package kernels is stage 4 of gshmem's migration path: communication
// issued from inside kernels. A kernel is a function run once by every
// thread of a grid of blocks, as in CUDA; its threads call the device-side
// API (put, get, atomics, signals, waits, quiet, barriers) themselves,
// instead of returning to the host to communicate. On the host backend a
// kernel is a Go function and its threads are goroutines; with the cuda
// build tag the same program structure is CUDA C against gshmem's device
// header (kernels/cuda/*.cuh), launched the same ways.
//
// # Walk-through
//
// At stage 3 a halo exchange is issued on a stream between two kernel
// launches (see package streams). At stage 4 the kernel does it: one
// collective launch runs every sweep, and the blocks at the edges put
// their edge cells into the neighbours and wait for theirs:
//
//	kernels.CollectiveLaunchOnStream(s, kernels.Dim(4), kernels.Dim(128), func(t *kernels.Thread) {
//		for k := range sweeps {
//			for i := t.GlobalRank(); i < n; i += t.GridThreads() {
//				next[i+1] = 0.5 * (cur[i] + cur[i+2])
//			}
//			t.SyncGrid()
//			if t.BlockRank() == 0 {
//				kernels.PutSignal(t.Block(), halo, next[1:2], sig, uint64(k+1), shmem.SignalSet, left)
//				kernels.SignalWaitUntil(t.Block(), mySig, shmem.CmpGE, uint64(k+1))
//			}
//			t.SyncGrid()
//		}
//	})
//
// (examples/halo-stream has the whole program, with the host and stage-3
// forms, and a test that the three agree bit for bit.)
//
// # Launching
//
//	Launch(grid, block, fn, opts...)            kernel<<<grid, block>>> and wait for it
//	LaunchOnStream(s, grid, block, fn, ...)     kernel<<<grid, block, 0, s>>>
//	Launch(..., Cooperative())                  cudaLaunchCooperativeKernel: SyncGrid allowed
//	CollectiveLaunch(w, grid, block, fn, ...)   nvshmemx_collective_launch: also BarrierAll,
//	CollectiveLaunchOnStream(s, ...)            SyncAll and team collectives across PEs
//
// A Thread gives the indices (ThreadIdx, BlockIdx, BlockDim, GridDim, and
// the linear ThreadRank, BlockRank, GlobalRank, WarpRank, Lane; a warp is
// WarpSize consecutive threads of a block), the barriers (SyncThreads,
// SyncWarp, SyncGrid; a thread that has returned no longer holds them) and
// the scopes of the device calls.
//
// # Device calls and scopes
//
// Every device call takes a Scope first, which says which threads make the
// call together, as NVSHMEM's name suffixes do:
//
//	kernels.Put(t, dst, src, pe)          nvshmem_put          one thread
//	kernels.Put(t.Warp(), dst, src, pe)   nvshmemx_put_warp    every thread of the warp
//	kernels.Put(t.Block(), dst, src, pe)  nvshmemx_put_block   every thread of the block
//	kernels.Put(t.Grid(), dst, src, pe)   (no NVSHMEM form)    every thread of a cooperative grid
//
// At warp, block or grid scope every thread of the group makes the same
// call with the same arguments. Transfers (Put, Get, PutSignal and their
// NBI forms) are split across the group: each thread moves its share. The
// blocking forms return in every thread once the whole transfer is done,
// which costs one barrier of the group; the NBI forms return as soon as the
// thread's own share is issued (PutSignalNBI's signal is sent by whichever
// thread finishes last, after every share) and cost no barrier; Quiet at
// the group's scope completes them. The other calls (P, G, the atomics,
// SignalOp, SignalWaitUntil, WaitUntil, WaitUntilAll, Quiet, Fence, the
// barriers across PEs and the team collectives) are made once for the
// group, by the last thread to arrive, and every thread gets the result.
//
// BarrierAll, SyncAll and the team collectives (Barrier, TeamSync,
// Broadcast, FCollect, Alltoall, Reduce, ReduceScatter) need a collective
// launch and are made once per PE: by one thread, one warp, one block or
// the whole grid, per their scope; every PE must make them in the same
// order.
//
// # Errors and cancellation
//
// Device calls return no error: a call that fails (bad PE, out of bounds,
// misuse such as SyncGrid in an ordinary launch) aborts the kernel, as a
// device-side trap does. Every thread stops at its next device call or
// barrier, and the launch returns a *KernelError naming the kernel, the
// block and thread, and the call; on a stream, the stream fails with it.
// Thread.Trap aborts on purpose; a panic in a thread is reported the same
// way.
//
// A thread waiting for a signal nobody sends would hold the kernel for
// ever: device waits end when the launch's stream is canceled
// (Stream.Cancel), when the context given WithContext ends, or when the
// World stops, and the kernel then fails with the wait named. Barriers
// across PEs and team collectives already under way end only when they
// complete or the World stops, as on the host.
//
// # How the host emulation runs a grid
//
// Each thread is a goroutine. This is the faithful choice: every thread can
// block on its own (at a barrier, in a wait, in a group call) exactly where
// the kernel says, as under CUDA's independent thread scheduling, and the
// race detector sees each thread as a separate goroutine, so a data race
// between two threads of a kernel is reported like one between goroutines.
// Running a warp's lanes in a loop on one goroutine instead would serialize
// them between barriers and hide their races.
//
// Goroutine counts stay bounded as a GPU bounds resident threads: a block
// has at most MaxThreadsPerBlock (1024) threads; an ordinary launch keeps
// at most 1024 threads resident and starts further blocks as earlier ones
// finish (blocks must not wait for one another, as on a GPU); a cooperative
// or collective launch runs all its blocks at once and may have at most
// MaxCooperativeThreads threads. Eight PEs each running a collective grid of
// 4 blocks of 128 threads are 4096 goroutines, well within the race
// detector's limit of 8128 live goroutines.
//
// What it costs, roughly, on a current x86 core: a launch 0.3 to 0.5 us per
// thread; a barrier (SyncThreads, or a blocking group call) about 0.6 us
// per thread of the group; a thread-scope put the cost of the host put.
// Bandwidth-bound code should use the NBI forms at block scope, which split
// the copy across the threads without a barrier per transfer (and so copy on
// several cores at once), or warp-sized blocks; porting-guide/04-kernels.md
// has measurements.
// Waits poll as on-stream waits do (see package streams).
package kernels
