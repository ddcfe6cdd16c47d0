package streams

import (
	"context"
	"fmt"

	"github.com/gshmem/gshmem/shmem"
)

// On-stream team collectives (nvshmemx_barrier_on_stream,
// nvshmemx_TYPE_broadcast_on_stream, ...). Each runs the team collective of
// package shmem in stream order; every member of the team must issue the
// same collectives in the same order, each PE on one stream (or on several
// ordered by events), and must not run host collectives of the same World
// while the stream's are pending. A collective under way is not interrupted
// by Cancel (the other members would be left waiting); it ends when it
// completes or when the World stops.

func teamOp(s *Stream, name string, t *shmem.Team, fn func() error) {
	s.submit(op{kind: opCollective, name: name, run: func(context.Context) error {
		if t == nil {
			return fmt.Errorf("%w: nil team", shmem.ErrInvalid)
		}
		return collective(s.w, fn)
	}})
}

// BarrierOnStream is Team.Barrier on a stream (nvshmemx_barrier_on_stream).
func BarrierOnStream(s *Stream, t *shmem.Team) {
	teamOp(s, "BarrierOnStream", t, func() error { return t.Barrier() })
}

// TeamSyncOnStream is Team.Sync on a stream (nvshmemx_team_sync_on_stream).
func TeamSyncOnStream(s *Stream, t *shmem.Team) {
	teamOp(s, "TeamSyncOnStream", t, func() error { return t.Sync() })
}

// BroadcastOnStream is shmem.Broadcast on a stream.
func BroadcastOnStream[T any](s *Stream, t *shmem.Team, dst, src shmem.Sym[T], n, root int) {
	teamOp(s, "BroadcastOnStream", t, func() error { return shmem.Broadcast(t, dst, src, n, root) })
}

// FCollectOnStream is shmem.FCollect on a stream.
func FCollectOnStream[T any](s *Stream, t *shmem.Team, dst, src shmem.Sym[T], n int) {
	teamOp(s, "FCollectOnStream", t, func() error { return shmem.FCollect(t, dst, src, n) })
}

// CollectOnStream is shmem.Collect on a stream.
func CollectOnStream[T any](s *Stream, t *shmem.Team, dst, src shmem.Sym[T], n int) {
	teamOp(s, "CollectOnStream", t, func() error { return shmem.Collect(t, dst, src, n) })
}

// AlltoallOnStream is shmem.Alltoall on a stream.
func AlltoallOnStream[T any](s *Stream, t *shmem.Team, dst, src shmem.Sym[T], n int) {
	teamOp(s, "AlltoallOnStream", t, func() error { return shmem.Alltoall(t, dst, src, n) })
}

// ReduceOnStream is shmem.Reduce (an all-reduce) on a stream
// (nvshmemx_TYPE_OP_reduce_on_stream).
func ReduceOnStream[T shmem.Reducible](s *Stream, t *shmem.Team, rop shmem.ReduceOp, dst, src shmem.Sym[T], n int) {
	teamOp(s, "ReduceOnStream", t, func() error { return shmem.Reduce(t, rop, dst, src, n) })
}

// ReduceScatterOnStream is shmem.ReduceScatter on a stream.
func ReduceScatterOnStream[T shmem.Reducible](s *Stream, t *shmem.Team, rop shmem.ReduceOp, dst, src shmem.Sym[T], n int) {
	teamOp(s, "ReduceScatterOnStream", t, func() error { return shmem.ReduceScatter(t, rop, dst, src, n) })
}
