package main

/*
#include <stdlib.h>
#include "abi.h"
*/
import "C"

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// MPI_Alloc_mem and MPI_Free_mem. Host memory comes from compat's
// symmetric pool, which large messages leave without a copy (the receiver
// reads it directly), or from malloc when the pool is full.
//
// In the CUDA build, on a job whose heap is GPU memory (the jobs where
// device buffers are supported), MPI_Alloc_mem returns device memory
// (cuMemAlloc in the PE's context) when info asks for it:
//
//   - gshmem_memory=device, the key MPI_Win_allocate takes (host asks for
//     host memory, the default here);
//   - or, with no gshmem_memory, mpi_assert_memory_alloc_kinds (MPI-4.1
//     12.4.3) naming only cuda:device kinds: the caller asserts it will use
//     the memory as CUDA device memory, so device memory is what it gets.
//     MPI-4.1 defines no key that selects the kind MPI_Alloc_mem allocates
//     (mpi_memory_alloc_kinds, it says, does not affect it); this reading
//     of the assertion is gshmem's.
//
// Such memory is a device buffer like any cudaMalloc buffer: every
// CUDA-aware call takes it, and large messages from it to another
// process go by CUDA IPC of the allocation. MPI_Free_mem frees either
// kind. Elsewhere (a host build, a host heap) the keys are ignored and the
// memory is host memory, as a window's is there.

// Info keys and values MPI_Alloc_mem reads.
const (
	infoMemory        = "gshmem_memory"
	infoAssertKinds   = "mpi_assert_memory_alloc_kinds"
	memoryDevice      = "device"
	memoryHost        = "host"
	kindCUDADevice    = "cuda:device"
	kindCUDADevicePfx = "cuda:device:" // with restrictors
)

var allocs = struct {
	sync.Mutex
	pool map[uintptr][]byte // pool memory by base address
	dev  map[uintptr]int    // device memory by base address: its size
}{pool: map[uintptr][]byte{}, dev: map[uintptr]int{}}

// wantsDevice reads the kind MPI_Alloc_mem's info asks for; ok is false
// for a gshmem_memory value that is neither device nor host.
func wantsDevice(info compat.Info) (dev, ok bool) {
	if v, set := info[infoMemory]; set {
		switch strings.TrimSpace(v) {
		case memoryDevice:
			return true, true
		case memoryHost:
			return false, true
		}
		return false, false
	}
	kinds, set := info[infoAssertKinds]
	if !set || strings.TrimSpace(kinds) == "" {
		return false, true
	}
	for _, k := range strings.Split(kinds, ",") {
		k = strings.TrimSpace(k)
		if k != kindCUDADevice && !strings.HasPrefix(k, kindCUDADevicePfx) {
			return false, true
		}
	}
	return true, true
}

//export abigo_Alloc_mem
func abigo_Alloc_mem(size C.MPI_Aint, info C.uintptr_t, baseptr C.uintptr_t) C.int {
	const call = "MPI_Alloc_mem"
	if global.Initialized == 0 || global.Finalized != 0 {
		return failCode(0, call, C.MPI_ERR_OTHER, "MPI is not initialized (or finalized)")
	}
	in, ok := infoOf(info)
	if !ok {
		return failCode(0, call, C.MPI_ERR_INFO, "invalid info")
	}
	if size < 0 || baseptr < minAddr {
		return failCode(0, call, C.MPI_ERR_ARG, "size %d, baseptr %#x", int(size), uintptr(baseptr))
	}
	dev, ok := wantsDevice(in)
	if !ok {
		return failCode(0, call, C.MPI_ERR_INFO_VALUE, "info %s=%q: device or host", infoMemory, in[infoMemory])
	}
	n := max(int(size), 1) // a distinct address even for 0 bytes
	var p unsafe.Pointer
	if w := env.e.World(); dev && w.HeapOnDevice() {
		a, err := devAlloc(w, n)
		if err != nil {
			return failCode(0, call, C.MPI_ERR_NO_MEM, "%d bytes of device memory: %v", n, err)
		}
		allocs.Lock()
		allocs.dev[a] = n
		allocs.Unlock()
		*(*uintptr)(cptr(baseptr)) = a
		return C.MPI_SUCCESS
	}
	if b, err := env.e.AllocMem(n); err == nil {
		p = unsafe.Pointer(&b[0])
		allocs.Lock()
		allocs.pool[uintptr(p)] = b
		allocs.Unlock()
	} else if p = C.malloc(C.size_t(n)); p == nil {
		return failCode(0, call, C.MPI_ERR_NO_MEM, "%d bytes", n)
	}
	*(*unsafe.Pointer)(cptr(baseptr)) = p
	return C.MPI_SUCCESS
}

//export abigo_Free_mem
func abigo_Free_mem(base C.uintptr_t) C.int {
	if base == 0 {
		return C.MPI_SUCCESS
	}
	allocs.Lock()
	b, inPool := allocs.pool[uintptr(base)]
	delete(allocs.pool, uintptr(base))
	n, onDev := allocs.dev[uintptr(base)]
	delete(allocs.dev, uintptr(base))
	allocs.Unlock()
	switch {
	case onDev:
		// Forgotten first: the range may be handed out again at once.
		shmem.ForgetDeviceMemory(uintptr(base), n)
		if err := devFree(env.e.World(), uintptr(base)); err != nil {
			return failCode(0, "MPI_Free_mem", C.MPI_ERR_OTHER, "freeing device memory: %v", err)
		}
	case inPool:
		if err := compat.FreeMem(env.e, b); err != nil {
			return fail(0, "MPI_Free_mem", err)
		}
	default:
		C.free(cptr(base))
	}
	return C.MPI_SUCCESS
}
