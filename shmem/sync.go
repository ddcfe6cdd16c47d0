package shmem

import (
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

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
// any PE before the barrier is visible.
func (w *World) BarrierAll() error {
	if err := w.Quiet(); err != nil {
		return err
	}
	return w.SyncAll()
}

// SyncAll waits until every PE has entered it, without completing
// outstanding operations (shmem_sync_all).
//
// It is a dissemination barrier: in round k each PE increments a counter on
// PE me+2^k and waits for its own round-k counter to reach the barrier's
// epoch. Counters only grow, so nothing is reset and a fast PE may run into
// the next barrier early without confusing a slow one.
func (w *World) SyncAll() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	w.barrierEpoch++
	epoch := w.barrierEpoch
	for k, d := 0, 1; d < w.npes; k, d = k+1, d*2 {
		off := uint64(barrierOff + 64*k)
		if _, err := w.tr.Atomic((w.pe+d)%w.npes, off, 8, transport.OpAdd|transport.OpRuntime, 1, 0); err != nil {
			return err
		}
		if err := w.waitFor(func() bool { return loadLocal[uint64](w.heap, off) >= epoch }); err != nil {
			return err
		}
	}
	return nil
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
	if m == nil {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&m[s.off])), s.n)
}
