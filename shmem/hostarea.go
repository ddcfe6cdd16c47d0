package shmem

import (
	"fmt"

	"github.com/gshmem/gshmem/shmem/internal/heap"
)

// The host area of a device World. A World whose heap is GPU memory keeps
// a part of its symmetric heap in host memory, next to the control page
// and the team slots: AllocHost hands it out. It is for what the host
// reads and writes with loads and stores at high rates and the GPU never
// touches, such as an MPI layer's mailboxes and control words: Local and
// Ptr work on it as on a host heap, RMA and atomics reach it through the
// host transport, and waits on it sleep on the doorbell. On a host World,
// AllocHost is Alloc.

// defaultHostArea is the host area's size when GSHMEM_HOST_AREA is unset:
// an eighth of the heap, at most 64 MiB (host pages are touched only when
// used, and the GPU memory under the area goes unused).
func defaultHostArea(heapSize uint64) uint64 { return min(heapSize/8, 64<<20) }

// reserveHostArea takes the host area from the heap before device memory
// begins (attachDevice).
func (w *World) reserveHostArea() error {
	n := w.opts.Device.HostArea
	if n == 0 {
		n = defaultHostArea(w.opts.SymmetricSize)
	}
	n = (n + heap.MinAlign - 1) &^ (heap.MinAlign - 1)
	if n == 0 {
		return nil
	}
	off, err := w.alloc.Alloc(n, heap.MinAlign)
	if err != nil {
		return fmt.Errorf("%w: GSHMEM_HOST_AREA=%d does not fit the heap: %v", ErrHeapExhausted, n, err)
	}
	w.hostArea = heap.New(off, n)
	return nil
}

// inHostArea reports whether heap offset off lies in a device World's host
// area.
func (w *World) inHostArea(off uint64) bool {
	if w.hostArea == nil {
		return false
	}
	base, size := w.hostArea.Range()
	return off >= base && off-base < size
}

// AllocHost is Alloc in host memory on a World whose heap is GPU memory:
// the object lives in the host area (GSHMEM_HOST_AREA), so Local and Ptr
// give it to the host. On a host heap it is Alloc. Collective, as Alloc;
// free it with Free.
func AllocHost[T any](w *World, n int) (Sym[T], error) {
	return allocateIn[T](w, n, 0, false, 0, true)
}

// CallocHost is AllocHost with the memory set to zero on every PE.
func CallocHost[T any](w *World, n int) (Sym[T], error) {
	return allocateIn[T](w, n, 0, true, 0, true)
}

// HostAreaFree returns the bytes of the host area not in use (0 on a host
// heap, where AllocHost takes from the heap itself).
func (w *World) HostAreaFree() uint64 {
	if w.hostArea == nil {
		return 0
	}
	return w.hostArea.Available()
}
