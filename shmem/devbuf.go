package shmem

import "github.com/gshmem/gshmem/shmem/internal/heap"

// Device buffers by address. A CUDA-aware layer above shmem (compat's
// collectives, the C ABI) receives buffers as addresses: these calls tell
// device memory from host memory, find the symmetric object a device
// address lies in, and copy between any device memory and a symmetric
// object on the GPU, ordered with the PE's other device work (puts, the
// collectives' kernels), never through the host.

// objRef names a live object in the object table.
type objRef struct{ slot, gen uint32 }

// noteDeviceObject records an object of the device heap (allocated from a)
// so that DeviceSym finds it.
func (w *World) noteDeviceObject(a *heap.Allocator, off uint64, slot, gen uint32) {
	if a != w.alloc {
		return
	}
	if w.objsByOff == nil {
		w.objsByOff = map[uint64]objRef{}
	}
	w.objsByOff[off] = objRef{slot, gen}
}

// IsDeviceMemory reports whether address p of this process is device
// memory (cudaMalloc memory, the device heap, a mapped IPC handle, managed
// memory). It is false on a World whose heap is host memory, without
// asking the driver, and for pinned host memory. The driver is asked once
// per allocation or host page and its answer kept (internal/memkind says
// for how long and what invalidates it), so a buffer used again costs a
// lookup.
func (w *World) IsDeviceMemory(p uintptr) bool {
	return w != nil && w.dev != nil && w.dev.isDevice(p)
}

// DeviceSym returns the symmetric object of nbytes bytes at device address
// p, when [p, p+nbytes) lies inside one live object of this PE's device
// heap: the same bytes, which the other PEs reach at the same offset. ok is
// false for any other memory. The object is a byte view of its allocation:
// use it while that allocation lives.
func DeviceSym(w *World, p uintptr, nbytes int) (s Sym[byte], ok bool) {
	if w == nil || w.dev == nil || nbytes < 0 || w.closed.Load() {
		return s, false
	}
	base := w.dev.base(w.pe)
	if p < base || uint64(p-base) >= w.opts.SymmetricSize {
		return s, false
	}
	off := uint64(p - base)
	start, ok := w.alloc.Block(off, uint64(nbytes))
	if !ok {
		return s, false
	}
	r, ok := w.objsByOff[start]
	if !ok || !w.objs.live(r.slot, r.gen) {
		return s, false
	}
	return Sym[byte]{w: w, off: off, n: nbytes, slot: r.slot, gen: r.gen}, true
}

// CopyFromDevice copies len(dst) bytes from device address src into this
// PE's copy of dst, a device-to-device copy on the PE's stream: it is
// ordered before the PE's later puts and collectives, and returns without
// waiting for it (Quiet waits; a collective on dst reads what it copied).
// src must not change until then. The heap must be device memory.
func CopyFromDevice(dst Sym[byte], src uintptr) error {
	n, err := dst.remote(mustPE(dst), dst.Len())
	if err != nil {
		return err
	}
	w := dst.w
	if w.dev == nil || w.inHostArea(dst.off) {
		return errf(ErrUnsupported, "CopyFromDevice into host memory")
	}
	return w.dev.copyAddr(w.dev.stream(), uintptr(w.dev.base(w.pe))+uintptr(dst.off), src, n)
}

// CopyToDevice copies this PE's copy of src to device address dst on the
// PE's stream, after its earlier work there (a collective that wrote src),
// and returns without waiting: Quiet waits.
func CopyToDevice(dst uintptr, src Sym[byte]) error {
	n, err := src.remote(mustPE(src), src.Len())
	if err != nil {
		return err
	}
	w := src.w
	if w.dev == nil || w.inHostArea(src.off) {
		return errf(ErrUnsupported, "CopyToDevice from host memory")
	}
	return w.dev.copyAddr(w.dev.stream(), dst, w.dev.base(w.pe)+uintptr(src.off), n)
}

// CopyDeviceToHost copies len(dst) bytes from device address src into dst
// after the PE's earlier device work, and returns when dst holds them: for
// a layer that must fold on the host what has no kernel.
func (w *World) CopyDeviceToHost(dst []byte, src uintptr) error {
	if w == nil || w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return w.dev.copyToHost(dst, src)
}

// CopyHostToDevice copies src to device address dst after the PE's earlier
// device work, and returns when it is there.
func (w *World) CopyHostToDevice(dst uintptr, src []byte) error {
	if w == nil || w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	if len(src) == 0 {
		return nil
	}
	return w.dev.copyFromHost(dst, src)
}

// DeviceAfterDefaultStream orders the PE's device work from now on (its
// copies, puts and collectives' kernels) after the work issued so far on
// the CUDA legacy default stream: a cudaMemcpy from pageable memory may
// return before its data lands, and the PE's stream does not otherwise
// wait for it. A CUDA-aware layer calls it before it reads a caller's
// device buffers. The host does not wait. Work on the caller's own streams
// is the caller's to synchronize, as with any CUDA-aware MPI.
func (w *World) DeviceAfterDefaultStream() error {
	if w == nil || w.dev == nil {
		return errf(ErrUnsupported, "the symmetric heap is host memory")
	}
	return w.dev.afterLegacy()
}
