package main

/*
#include "abi.h"
*/
import "C"

import (
	"math"
	"sync"
	"unsafe"
)

// The MPI tools interface (MPI-4.1 chapter 15): MPI_T_init_thread and
// MPI_T_finalize, the string and index conventions every MPI_T call
// shares, the one event source (the MPI_Wtime clock) and the event calls,
// of which there are no event types. Control variables are mpit_cvar.go,
// performance variables mpit_pvar.go, categories mpit_cat.go.
//
// MPI_T calls may come before MPI_Init and after MPI_Finalize and from any
// thread (MPI_T_init_thread provides MPI_THREAD_MULTIPLE): every one takes
// tools.mu. They never call error handlers; they return MPI_T_ERR_* codes.

// The datatype handles MPI_T variables have (mpi.h's values).
const (
	tInt              = 0x209 // MPI_INT
	tUnsignedLongLong = 0x20f // MPI_UNSIGNED_LONG_LONG
	tDouble           = 0x214 // MPI_DOUBLE
	tChar             = 0x243 // MPI_CHAR
	tInfoNull         = 0x130 // MPI_INFO_NULL
)

// tools is the interface's state: its reference count and the handles it
// gave out, which MPI_T_finalize's last call frees.
var tools struct {
	mu       sync.Mutex
	refs     int
	nextID   uintptr
	cvars    map[uintptr]*cvarHandle
	sessions map[uintptr]*pvarSession
}

// toolsLock locks the interface and reports MPI_T_ERR_NOT_INITIALIZED
// when it is not initialized; the caller unlocks when rc is success.
func toolsLock() C.int {
	tools.mu.Lock()
	if tools.refs == 0 {
		tools.mu.Unlock()
		return C.MPI_T_ERR_NOT_INITIALIZED
	}
	return C.MPI_SUCCESS
}

// newToolsID returns a handle value never given before: never 0 (the NULL
// handles) or 1 (MPI_T_PVAR_ALL_HANDLES).
func newToolsID() uintptr {
	if tools.nextID < 16 {
		tools.nextID = 16
	}
	tools.nextID++
	return tools.nextID
}

//export abigo_T_init_thread
func abigo_T_init_thread(required C.int, provided *C.int) C.int {
	switch required {
	case C.MPI_THREAD_SINGLE, C.MPI_THREAD_FUNNELED, C.MPI_THREAD_SERIALIZED, C.MPI_THREAD_MULTIPLE:
	default:
		return C.MPI_T_ERR_INVALID
	}
	if provided == nil {
		return C.MPI_T_ERR_INVALID
	}
	tools.mu.Lock()
	defer tools.mu.Unlock()
	if tools.refs == 0 {
		tools.cvars = map[uintptr]*cvarHandle{}
		tools.sessions = map[uintptr]*pvarSession{}
	}
	tools.refs++
	*provided = required // every MPI_T call takes tools.mu: any level holds
	return C.MPI_SUCCESS
}

//export abigo_T_finalize
func abigo_T_finalize() C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	tools.refs--
	if tools.refs == 0 {
		tools.cvars, tools.sessions = nil, nil
	}
	return C.MPI_SUCCESS
}

// tString returns s by MPI_T's convention (MPI-4.1 15.3.3): with n NULL
// nothing; with *n zero or buf NULL only the length s needs, its NUL
// included, in *n; else at most *n-1 bytes of s and a NUL into buf, and in
// *n the bytes written, the NUL included.
func tString(buf *C.char, n *C.int, s string) {
	if n == nil {
		return
	}
	if buf == nil || *n <= 0 {
		*n = C.int(len(s) + 1)
		return
	}
	*n = putString(buf, s, int(*n)) + 1
}

// tName returns a C string argument, ok false for NULL.
func tName(p *C.char) (string, bool) {
	if p == nil {
		return "", false
	}
	return C.GoString(p), true
}

// tIndices writes up to len of idx into the C array indices.
func tIndices(indices *C.int, n C.int, idx []int) C.int {
	if n < 0 || (n > 0 && indices == nil) {
		return C.MPI_T_ERR_INVALID
	}
	k := min(int(n), len(idx))
	out := unsafe.Slice((*C.int)(unsafe.Pointer(indices)), k)
	for i := range k {
		out[i] = C.int(idx[i])
	}
	return C.MPI_SUCCESS
}

func setInt(p *C.int, v int) {
	if p != nil {
		*p = C.int(v)
	}
}

// Sources: one, the clock MPI_Wtime reads, in nanoseconds.

//export abigo_T_source_get_num
func abigo_T_source_get_num(num *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if num == nil {
		return C.MPI_T_ERR_INVALID
	}
	*num = 1
	return C.MPI_SUCCESS
}

//export abigo_T_source_get_info
func abigo_T_source_get_info(index C.int, name *C.char, nameLen *C.int, desc *C.char, descLen *C.int,
	ordering *C.MPI_T_source_order, ticks *C.MPI_Count, maxTicks *C.MPI_Count, info *C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if index != 0 {
		return C.MPI_T_ERR_INVALID_INDEX
	}
	tString(name, nameLen, "gshmem_wtime")
	tString(desc, descLen, "the clock MPI_Wtime reads, in nanoseconds")
	if ordering != nil {
		*ordering = C.MPI_T_SOURCE_ORDERED
	}
	if ticks != nil {
		*ticks = 1e9
	}
	if maxTicks != nil {
		*maxTicks = math.MaxInt64
	}
	if info != nil {
		// A new empty info object, which the caller frees.
		if rc := abigo_Info_create(info); rc != C.MPI_SUCCESS {
			return C.MPI_T_ERR_MEMORY
		}
	}
	return C.MPI_SUCCESS
}

//export abigo_T_source_get_timestamp
func abigo_T_source_get_timestamp(index C.int, stamp *C.MPI_Count) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if index != 0 {
		return C.MPI_T_ERR_INVALID_INDEX
	}
	if stamp == nil {
		return C.MPI_T_ERR_INVALID
	}
	*stamp = C.MPI_Count(float64(C.abic_Wtime()) * 1e9)
	return C.MPI_SUCCESS
}
