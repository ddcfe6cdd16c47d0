//go:build cuda

package streams

import "github.com/gshmem/gshmem/shmem"

// On-stream team collectives of a CUDA stream (nvshmemx_<op>_on_stream):
// each enqueues the collective's kernels on the stream and returns at once;
// the result is in dst when the stream gets past it (Synchronize, an event,
// or later work on the stream). They read the members' device heaps
// directly (package shmem, coll_device.go). Every member of the team must
// issue the same collectives in the same order; the arguments are checked
// on this PE only. A team whose heaps are not all mapped here (or a host
// heap) gives ErrUnsupported.

// TeamSyncOnCUDAStream is a barrier of the team's members in stream order
// (nvshmemx_team_sync_on_stream, nvshmemx_barrier_on_stream).
func TeamSyncOnCUDAStream(s *CUDAStream, t *shmem.Team) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return t.SyncOnDeviceStream(s.Handle())
}

// ReduceOnCUDAStream is shmem.Reduce, an all-reduce, in stream order
// (nvshmemx_<type>_<op>_reduce_on_stream).
func ReduceOnCUDAStream[T shmem.Reducible](s *CUDAStream, t *shmem.Team, op shmem.ReduceOp, dst, src shmem.Sym[T], n int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return shmem.ReduceOnDeviceStream(s.Handle(), t, op, dst, src, n)
}

// ReduceScatterOnCUDAStream is shmem.ReduceScatter in stream order.
func ReduceScatterOnCUDAStream[T shmem.Reducible](s *CUDAStream, t *shmem.Team, op shmem.ReduceOp, dst, src shmem.Sym[T], n int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return shmem.ReduceScatterOnDeviceStream(s.Handle(), t, op, dst, src, n)
}

// BroadcastOnCUDAStream is shmem.Broadcast in stream order.
func BroadcastOnCUDAStream[T any](s *CUDAStream, t *shmem.Team, dst, src shmem.Sym[T], n, root int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return shmem.BroadcastOnDeviceStream(s.Handle(), t, dst, src, n, root)
}

// FCollectOnCUDAStream is shmem.FCollect in stream order.
func FCollectOnCUDAStream[T any](s *CUDAStream, t *shmem.Team, dst, src shmem.Sym[T], n int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return shmem.FCollectOnDeviceStream(s.Handle(), t, dst, src, n)
}

// AlltoallOnCUDAStream is shmem.Alltoall in stream order.
func AlltoallOnCUDAStream[T any](s *CUDAStream, t *shmem.Team, dst, src shmem.Sym[T], n int) error {
	if s.closed.Load() {
		return ErrClosed
	}
	return shmem.AlltoallOnDeviceStream(s.Handle(), t, dst, src, n)
}
