//go:build cuda

package cudadrv

// #include <stddef.h>
// #include <cuda.h>
// void gs_pointer_info(CUdeviceptr p, unsigned *type, unsigned long long *start, unsigned long long *size, unsigned long long *id);
// CUresult gs_copy_dtoh_sync(CUcontext c, void *h, CUdeviceptr d, size_t n);
// CUresult gs_copy_htod_sync(CUcontext c, CUdeviceptr d, const void *h, size_t n);
import "C"

import "unsafe"

// Memory types (CUmemorytype) PointerInfo reports; 0 is memory the driver
// does not know (pageable host memory).
const (
	MemoryHost   = C.CU_MEMORYTYPE_HOST
	MemoryDevice = C.CU_MEMORYTYPE_DEVICE
)

// Pointer is what the driver knows of an address.
type Pointer struct {
	Type int     // MemoryDevice, MemoryHost (pinned or registered), or 0
	Base uintptr // the allocation holding the address (0 if not said)
	Size uintptr // its length
	ID   uint64  // the allocation's buffer id, unique for the process's life
}

// PointerInfo asks the driver about p, in one call where it can: the
// memory type and, for memory the driver allocated or registered, the
// allocation's range and buffer id. Without a driver, everything is 0.
func PointerInfo(p uintptr) Pointer {
	if p == 0 || Load() != nil {
		return Pointer{}
	}
	var t C.uint
	var st, sz, id C.ulonglong
	C.gs_pointer_info(C.CUdeviceptr(p), &t, &st, &sz, &id)
	return Pointer{Type: int(t), Base: uintptr(st), Size: uintptr(sz), ID: uint64(id)}
}

// CopyDtoHLegacy copies n bytes of device memory to pinned (or C) memory on
// the legacy default stream, after the work queued there, and returns when
// they are there.
func (c Context) CopyDtoHLegacy(dst unsafe.Pointer, src DevPtr, n uint64) error {
	return check(C.gs_copy_dtoh_sync(c.c(), dst, src.c(), C.size_t(n)))
}

// CopyHtoDLegacy copies n bytes of pinned (or C) memory to device memory on
// the legacy default stream, after the work queued there. From pinned
// memory it returns when they are there (from pageable memory the driver
// may return before the copy lands: use it with pinned memory).
func (c Context) CopyHtoDLegacy(dst DevPtr, src unsafe.Pointer, n uint64) error {
	return check(C.gs_copy_htod_sync(c.c(), dst.c(), src, C.size_t(n)))
}
