package main

/*
#include <stdlib.h>
#include "abi.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// MPI_Alloc_mem and MPI_Free_mem: memory from compat's symmetric pool,
// which large messages leave without a copy (the receiver reads it
// directly), or from malloc when the pool is full.

var allocs = struct {
	sync.Mutex
	pool map[uintptr][]byte // pool memory by base address
}{pool: map[uintptr][]byte{}}

//export abigo_Alloc_mem
func abigo_Alloc_mem(size C.MPI_Aint, info C.uintptr_t, baseptr C.uintptr_t) C.int {
	const call = "MPI_Alloc_mem"
	if global.Initialized == 0 || global.Finalized != 0 {
		return failCode(0, call, C.MPI_ERR_OTHER, "MPI is not initialized (or finalized)")
	}
	if _, ok := infoOf(info); !ok {
		return failCode(0, call, C.MPI_ERR_INFO, "invalid info")
	}
	if size < 0 || baseptr < minAddr {
		return failCode(0, call, C.MPI_ERR_ARG, "size %d, baseptr %#x", int(size), uintptr(baseptr))
	}
	n := max(int(size), 1) // a distinct address even for 0 bytes
	var p unsafe.Pointer
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
	b, ok := allocs.pool[uintptr(base)]
	delete(allocs.pool, uintptr(base))
	allocs.Unlock()
	if !ok {
		C.free(cptr(base))
		return C.MPI_SUCCESS
	}
	if err := compat.FreeMem(env.e, b); err != nil {
		return fail(0, "MPI_Free_mem", err)
	}
	return C.MPI_SUCCESS
}
