package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/internal/mpitype"
)

// MPI_Pack and MPI_Unpack: the packed form is the data bytes of count
// instances in type-map order, with no header, as compat sends them.
// Either buffer may be device memory in a CUDA-aware job: the type map is
// walked on the host, over host copies (only the packed bytes this call
// writes or reads, not the whole packed buffer).

//export abigo_Pack_size
func abigo_Pack_size(count C.int, dtype, comm C.uintptr_t, size *C.int) C.int {
	if o, rc := commOf(comm, "MPI_Pack_size"); o == nil {
		return rc
	}
	dt, ok := typeOf(dtype, true)
	if !ok || size == nil || count < 0 {
		return failCode(comm, "MPI_Pack_size", C.MPI_ERR_ARG, "invalid datatype, count or NULL size")
	}
	*size = C.int(int(count) * dt.Size())
	return C.MPI_SUCCESS
}

//export abigo_Pack
func abigo_Pack(in C.uintptr_t, count C.int, dtype C.uintptr_t, out C.uintptr_t, outsize C.int, pos *C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Pack"
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	src, dt, rc := msgBuf(comm, call, in, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n := int(count) * dt.Size()
	if pos == nil || *pos < 0 || int(*pos)+n > int(outsize) {
		return failCode(comm, call, C.MPI_ERR_TRUNCATE, "%d bytes at position %v of an output buffer of %d", n, pos, int(outsize))
	}
	dst, ok := cbuf(out, int(outsize))
	if !ok {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "output buffer")
	}
	hs, err := hostView(src)
	if err != nil {
		return fail(comm, call, err)
	}
	to := dst[*pos : int(*pos)+n]
	if onDevice(to) {
		h := make([]byte, n)
		mpitype.MapOf(dt).Pack(h, hs, int(count))
		if err := writeOut(to, h); err != nil {
			return fail(comm, call, err)
		}
	} else {
		mpitype.MapOf(dt).Pack(to, hs, int(count))
	}
	*pos += C.int(n)
	return C.MPI_SUCCESS
}

//export abigo_Unpack
func abigo_Unpack(in C.uintptr_t, insize C.int, pos *C.int, out C.uintptr_t, count C.int, dtype, comm C.uintptr_t) C.int {
	const call = "MPI_Unpack"
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	dst, dt, rc := msgBuf(comm, call, out, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n := int(count) * dt.Size()
	if pos == nil || *pos < 0 || int(*pos)+n > int(insize) {
		return failCode(comm, call, C.MPI_ERR_TRUNCATE, "%d bytes at position %v of an input buffer of %d", n, pos, int(insize))
	}
	src, ok := cbuf(in, int(insize))
	if !ok {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "input buffer")
	}
	from, err := hostView(src[*pos : int(*pos)+n])
	if err != nil {
		return fail(comm, call, err)
	}
	if err := viaHost(nil, dst, func(_, dst []byte) error {
		mpitype.MapOf(dt).Unpack(dst, from, int(count))
		return nil
	}); err != nil {
		return fail(comm, call, err)
	}
	*pos += C.int(n)
	return C.MPI_SUCCESS
}
