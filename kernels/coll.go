package kernels

import "github.com/gshmem/gshmem/shmem"

// Device-side team collectives (nvshmem_barrier, nvshmem_TYPE_reduce,
// nvshmemx_TYPE_broadcast_block, ...). Like BarrierAll they need a
// collective launch and are made once per PE: by one thread, by every
// thread of one block or warp, or by every thread of the grid, according to
// the scope; every member of the team must make the same collectives in
// the same order. The collective runs once for the scope's group and every
// thread of the group returns when it is complete on this PE.

func teamCall(sc Scope, name string, fn func() error) {
	w := collectiveWorld(sc, name)
	single(sc, name, func(*Thread) (struct{}, error) {
		return struct{}{}, lockedCollective(w, fn)
	})
}

// Barrier is Team.Barrier from a kernel (nvshmem_barrier).
func Barrier(sc Scope, t *shmem.Team) { teamCall(sc, "Barrier", t.Barrier) }

// TeamSync is Team.Sync from a kernel (nvshmem_team_sync).
func TeamSync(sc Scope, t *shmem.Team) { teamCall(sc, "TeamSync", t.Sync) }

// Broadcast is shmem.Broadcast from a kernel.
func Broadcast[T any](sc Scope, t *shmem.Team, dst, src shmem.Sym[T], n, root int) {
	teamCall(sc, "Broadcast", func() error { return shmem.Broadcast(t, dst, src, n, root) })
}

// FCollect is shmem.FCollect from a kernel.
func FCollect[T any](sc Scope, t *shmem.Team, dst, src shmem.Sym[T], n int) {
	teamCall(sc, "FCollect", func() error { return shmem.FCollect(t, dst, src, n) })
}

// Alltoall is shmem.Alltoall from a kernel.
func Alltoall[T any](sc Scope, t *shmem.Team, dst, src shmem.Sym[T], n int) {
	teamCall(sc, "Alltoall", func() error { return shmem.Alltoall(t, dst, src, n) })
}

// Reduce is shmem.Reduce (an all-reduce) from a kernel.
func Reduce[T shmem.Reducible](sc Scope, t *shmem.Team, op shmem.ReduceOp, dst, src shmem.Sym[T], n int) {
	teamCall(sc, "Reduce", func() error { return shmem.Reduce(t, op, dst, src, n) })
}

// ReduceScatter is shmem.ReduceScatter from a kernel.
func ReduceScatter[T shmem.Reducible](sc Scope, t *shmem.Team, op shmem.ReduceOp, dst, src shmem.Sym[T], n int) {
	teamCall(sc, "ReduceScatter", func() error { return shmem.ReduceScatter(t, op, dst, src, n) })
}
