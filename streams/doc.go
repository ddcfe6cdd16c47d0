// Package streams is stage 3 of gshmem's migration path: communication
// issued in stream order. A Stream is an ordered queue of work belonging to
// one PE; the goroutine that issues an operation returns at once, the
// operations run one after the other in issue order, and Synchronize waits
// for them. It is the model of a CUDA stream and of NVSHMEM's *_on_stream
// calls, and the same code runs on the host backend (a goroutine draining a
// queue, always built) and, with the cuda build tag, on CUDA streams.
//
// # Walk-through
//
// A stage-2 code exchanges a halo with host calls and waits on the host:
//
//	shmem.PutSignal(halo, edge, sig, k, shmem.SignalSet, right)
//	shmem.SignalWaitUntil(mySig, shmem.CmpGE, k)
//	compute(...)
//
// At stage 3 the same calls are issued on a stream, behind the kernel that
// produces the edge and in front of the one that consumes the halo, and the
// host thread moves on (to issue the next sweep, say) without waiting:
//
//	s, err := streams.New(w, streams.WithName("halo"))
//	...
//	kernels.LaunchOnStream(s, grid, block, computeEdges)
//	streams.PutSignalOnStream(s, halo, edge, sig, k, shmem.SignalSet, right)
//	streams.SignalWaitUntilOnStream(s, mySig, shmem.CmpGE, k)
//	kernels.LaunchOnStream(s, grid, block, computeInterior)
//	...
//	if err := s.Synchronize(); err != nil { ... } // names the failing operation
//	s.Close()
//
// Every host operation of package shmem has an on-stream form with the
// same arguments after the stream and the same meaning, named after
// NVSHMEM's nvshmemx_*_on_stream:
//
//	shmem.Put / PutNBI / P           PutOnStream / PutNBIOnStream / POnStream
//	shmem.Get / GetNBI               GetOnStream / GetNBIOnStream
//	shmem.IPut / IGet                IPutOnStream / IGetOnStream
//	shmem.PutSignal / PutSignalNBI   PutSignalOnStream / PutSignalNBIOnStream
//	shmem.SignalOpAt                 SignalOpOnStream
//	shmem.SignalWaitUntil            SignalWaitUntilOnStream
//	shmem.WaitUntil / WaitUntilAll   WaitUntilOnStream / WaitUntilAllOnStream (+Vector)
//	World.Quiet / Fence              QuietOnStream / FenceOnStream
//	World.BarrierAll / SyncAll       BarrierAllOnStream / SyncAllOnStream
//	Team.Barrier / Team.Sync         BarrierOnStream / TeamSyncOnStream
//	shmem.Broadcast, FCollect,       BroadcastOnStream, FCollectOnStream,
//	Collect, Alltoall, Reduce,       CollectOnStream, AlltoallOnStream, ReduceOnStream,
//	ReduceScatter                    ReduceScatterOnStream
//
// # Ordering rules
//
//   - Operations issued on one stream run in issue order, each after the
//     previous one has completed in its host form's sense (a put when its
//     source may be reused, a wait when its condition held, a barrier when
//     every PE arrived). Operations issued by several goroutines onto one
//     stream run in the order the calls were made.
//   - Different streams run concurrently. Order them with events: Record an
//     Event on one stream and WaitEvent on another; what the second stream
//     issues after WaitEvent runs after everything the first issued before
//     the Record. Event.Synchronize and Event.Query let the host wait or poll.
//   - Buffers given to an operation (the source of a put, the destination of
//     a get, a WaitUntilAll status) are read or written when it runs, not when
//     it is issued: leave them alone until Synchronize or an event after the
//     operation. This is the rule of CUDA's async copies.
//   - Remote visibility follows OpenSHMEM: QuietOnStream completes this PE's
//     operations; a signal arrives after the data of its put.
//   - Collectives (barriers and team collectives) must be issued in the same
//     order on every member PE, and a PE's collectives must not overlap: issue
//     them on one stream, or order the streams with events, and Synchronize
//     before calling a host collective. The streams and kernels of a PE share
//     a lock (CollectiveLock) so that overlapping collectives cannot corrupt
//     the World's state, but only the issue order makes the PEs agree.
//
// # Errors
//
// A failing operation (bad PE, out of bounds, a panic in an Enqueue
// function, a kernel that trapped) stops the stream: the operations behind
// it are dropped and Synchronize, from then on, returns an *OpError naming
// the stream, the operation and its position; errors.Is sees through it to
// the shmem sentinel (shmem.ErrBadPE, ...). The error is sticky: make a new
// stream to go on. An Event recorded behind the failure completes with the
// error, and a stream waiting for it fails too, so no stream waits forever
// for a dead one.
//
// # Waiting and cancellation
//
// An on-stream wait (signal wait, wait-until, event wait, a kernel's wait)
// on a condition that nothing will satisfy would hold the stream forever.
// Every such wait ends when the stream is canceled (Stream.Cancel: the wait
// fails with ErrCanceled, named in the OpError) or when the World's context
// ends (Finalize, job abort: shmem.ErrAborted); Finalize then returns an
// error wrapping ErrBusyAtFinalize naming each stream that still had work
// queued, rather than ending it silently. SynchronizeContext bounds
// the host's wait without touching the stream. A collective already under
// way is not interrupted by Cancel: the other PEs would be left in it; it
// ends when it completes or the World stops.
//
// On-stream waits follow the World's one wait policy (shmem.WaitPolicy):
// they poll, then sleep on the futex that every write into this PE's heap
// rings, so a signal that arrives while a stream sleeps wakes it at once;
// Cancel wakes it too.
//
// # Other layers
//
// Enqueue puts any function on a stream in order, with the stream's context
// and error handling: kernels.LaunchOnStream runs host-emulated kernels this
// way, and RMA windows can issue their on-stream put, get, accumulate and
// flush the same way.
//
// # Backends
//
// New picks a backend by name (WithBackend; "host" by default; Backends
// lists them). The host backend runs each stream on one goroutine that
// takes queued operations in batches: issuing costs a lock and an append
// (a few hundred nanoseconds with the allocation of the operation), and the
// worker sleeps only when its queue is empty. A CUDA backend registers
// itself from a file built with the cuda tag and receives the same
// operations, tagged by kind and described byte-wise, to turn into CUDA
// stream operations (async copies, stream memory operations, events), with
// the host form as a fallback. On a CUDAStream, puts and gets of up to 256
// KiB within the PE's GPU are launched through a one-copy CUDA graph the PE
// keeps for the stream (a graph launch costs the host less than a copy:
// test/gpu/RESULTS.md); CUDAStream.Close releases it. The team collectives
// of a CUDAStream (ReduceOnCUDAStream, BroadcastOnCUDAStream, ...,
// TeamSyncOnCUDAStream) enqueue the kernels of shmem's device collectives
// and return without waiting on the host.
package streams
