package shmem

import "unsafe"

// Quiet returns when every put, get, atomic and signal this PE issued is
// complete and visible at its target (shmem_quiet).
func (w *World) Quiet() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	return w.tr.Quiet()
}

// Fence orders this PE's puts, atomics and signals to each target: those
// issued before Fence are delivered before those issued after it
// (shmem_fence).
func (w *World) Fence() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	return w.tr.Fence()
}

// BarrierAll completes this PE's operations (Quiet) and waits until every PE
// has entered the barrier (shmem_barrier_all): after it, every put issued by
// any PE before the barrier is visible. It is the world team's Barrier.
func (w *World) BarrierAll() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	return w.teams.world.Barrier()
}

// SyncAll waits until every PE has entered it, without completing
// outstanding operations (shmem_sync_all). It is the world team's Sync.
func (w *World) SyncAll() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	return w.teams.world.Sync()
}

// Ptr returns direct load/store access to the object's memory on PE pe
// (shmem_ptr), or nil when that PE's heap is not mapped in this process.
// Writes through it are plain stores: follow them with Quiet or a barrier
// before a peer reads them, and use atomics for words a peer waits on.
func Ptr[T any](s Sym[T], pe int) []T {
	if _, err := s.remote(pe, 0); err != nil || s.n == 0 {
		return nil
	}
	m := s.w.tr.Mapped(pe)
	if m == nil && s.w.inHostArea(s.off) {
		m = s.w.hostTr.Mapped(pe)
	}
	if m == nil {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&m[s.off])), s.n)
}
