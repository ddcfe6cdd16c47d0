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
	if rc := hostOnly(comm, "MPI_Pack", in, out); rc != C.MPI_SUCCESS {
		return rc
	}
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
	mpitype.MapOf(dt).Pack(dst[*pos:int(*pos)+n], src, int(count))
	*pos += C.int(n)
	return C.MPI_SUCCESS
}

//export abigo_Unpack
func abigo_Unpack(in C.uintptr_t, insize C.int, pos *C.int, out C.uintptr_t, count C.int, dtype, comm C.uintptr_t) C.int {
	if rc := hostOnly(comm, "MPI_Unpack", in, out); rc != C.MPI_SUCCESS {
		return rc
	}
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
	mpitype.MapOf(dt).Unpack(dst, src[*pos:int(*pos)+n], int(count))
	*pos += C.int(n)
	return C.MPI_SUCCESS
}
