package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/internal/mpitype"
)

// MPI_Pack and MPI_Unpack: the packed form is the data bytes of count
// instances in type-map order, with no header, as compat sends them;
// MPI_Pack_external and MPI_Unpack_external write and read external32
// (mpitype's PackExternal). Each call is one body over Go ints, which the
// int and _c forms share. Either buffer may be device memory in a
// CUDA-aware job: the type map is walked on the host, over host copies
// (only the packed bytes this call writes or reads).

func packSizeBody(call string, count int, dtype, comm C.uintptr_t, set func(int) bool) C.int {
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	dt, ok := typeOf(dtype, true)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return failCode(comm, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	if !set(count * dt.Size()) {
		return failCode(comm, call, C.MPI_ERR_ARG, "size is NULL")
	}
	return C.MPI_SUCCESS
}

//export abigo_Pack_size
func abigo_Pack_size(count C.int, dtype, comm C.uintptr_t, size *C.int) C.int {
	return packSizeBody("MPI_Pack_size", int(count), dtype, comm, intOut(size))
}

//export abigo_Pack_size_c
func abigo_Pack_size_c(count C.MPI_Count, dtype, comm C.uintptr_t, size *C.MPI_Count) C.int {
	return packSizeBody("MPI_Pack_size_c", int(count), dtype, comm, countOut(size))
}

// packedAt is the packed side of a pack call: n bytes at *pos of the
// buffer at u of size bytes.
func packedAt(comm C.uintptr_t, call string, u C.uintptr_t, size, pos, n int) ([]byte, C.int) {
	if pos < 0 || n > size-pos {
		return nil, failCode(comm, call, C.MPI_ERR_TRUNCATE, "%d bytes at position %d of a buffer of %d", n, pos, size)
	}
	b, ok := cbuf(u, size)
	if !ok {
		return nil, failCode(comm, call, C.MPI_ERR_BUFFER, "packed buffer %#x", uintptr(u))
	}
	return b[pos : pos+n], C.MPI_SUCCESS
}

// packBody packs count instances at in into out at *pos (external:
// external32), and returns the new position.
func packBody(call string, external bool, in C.uintptr_t, count int, dtype, out C.uintptr_t, outsize, pos int, comm C.uintptr_t) (int, C.int) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return pos, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return pos, failCode(comm, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	src, ok := tbuf(in, dt, count)
	if !ok {
		return pos, failCode(comm, call, C.MPI_ERR_BUFFER, "input buffer %#x", uintptr(in))
	}
	m := mpitype.MapOf(dt)
	n := count * m.Size()
	if external {
		n = m.ExternalSize(count)
	}
	to, rc := packedAt(comm, call, out, outsize, pos, n)
	if rc != C.MPI_SUCCESS {
		return pos, rc
	}
	hs, err := hostView(src)
	if err != nil {
		return pos, fail(comm, call, err)
	}
	h := to
	if onDevice(to) {
		h = make([]byte, n)
	}
	if external {
		m.PackExternal(h, hs, count)
	} else {
		m.Pack(h, hs, count)
	}
	if onDevice(to) {
		if err := writeOut(to, h); err != nil {
			return pos, fail(comm, call, err)
		}
	}
	return pos + n, C.MPI_SUCCESS
}

func unpackBody(call string, external bool, in C.uintptr_t, insize, pos int, out C.uintptr_t, count int, dtype, comm C.uintptr_t) (int, C.int) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return pos, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return pos, failCode(comm, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	dst, ok := tbuf(out, dt, count)
	if !ok {
		return pos, failCode(comm, call, C.MPI_ERR_BUFFER, "output buffer %#x", uintptr(out))
	}
	m := mpitype.MapOf(dt)
	n := count * m.Size()
	if external {
		n = m.ExternalSize(count)
	}
	src, rc := packedAt(comm, call, in, insize, pos, n)
	if rc != C.MPI_SUCCESS {
		return pos, rc
	}
	from, err := hostView(src)
	if err != nil {
		return pos, fail(comm, call, err)
	}
	if err := viaHost(nil, dst, func(_, dst []byte) error {
		if external {
			m.UnpackExternal(dst, from, count)
		} else {
			m.Unpack(dst, from, count)
		}
		return nil
	}); err != nil {
		return pos, fail(comm, call, err)
	}
	return pos + n, C.MPI_SUCCESS
}

func commOK(comm C.uintptr_t, call string) C.int {
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	return C.MPI_SUCCESS
}

//export abigo_Pack
func abigo_Pack(in C.uintptr_t, count C.int, dtype C.uintptr_t, out C.uintptr_t, outsize C.int, pos *C.int, comm C.uintptr_t) C.int {
	if rc := commOK(comm, "MPI_Pack"); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(comm, "MPI_Pack", C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := packBody("MPI_Pack", false, in, int(count), dtype, out, int(outsize), int(*pos), comm)
	*pos = C.int(p)
	return rc
}

//export abigo_Pack_c
func abigo_Pack_c(in C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, out C.uintptr_t, outsize C.MPI_Count, pos *C.MPI_Count, comm C.uintptr_t) C.int {
	if rc := commOK(comm, "MPI_Pack_c"); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(comm, "MPI_Pack_c", C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := packBody("MPI_Pack_c", false, in, int(count), dtype, out, int(outsize), int(*pos), comm)
	*pos = C.MPI_Count(p)
	return rc
}

//export abigo_Unpack
func abigo_Unpack(in C.uintptr_t, insize C.int, pos *C.int, out C.uintptr_t, count C.int, dtype, comm C.uintptr_t) C.int {
	if rc := commOK(comm, "MPI_Unpack"); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(comm, "MPI_Unpack", C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := unpackBody("MPI_Unpack", false, in, int(insize), int(*pos), out, int(count), dtype, comm)
	*pos = C.int(p)
	return rc
}

//export abigo_Unpack_c
func abigo_Unpack_c(in C.uintptr_t, insize C.MPI_Count, pos *C.MPI_Count, out C.uintptr_t, count C.MPI_Count, dtype, comm C.uintptr_t) C.int {
	if rc := commOK(comm, "MPI_Unpack_c"); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(comm, "MPI_Unpack_c", C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := unpackBody("MPI_Unpack_c", false, in, int(insize), int(*pos), out, int(count), dtype, comm)
	*pos = C.MPI_Count(p)
	return rc
}

// datarepOK checks a data representation name: only "external32".
func datarepOK(call string, rep *C.char) C.int {
	if rep == nil || C.GoString(rep) != "external32" {
		return failCode(0, call, C.MPI_ERR_ARG, "data representation %q: only external32", cstr(rep))
	}
	return C.MPI_SUCCESS
}

func cstr(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

func packExternalSizeBody(call string, rep *C.char, count int, dtype C.uintptr_t, set func(int) bool) C.int {
	if rc := datarepOK(call, rep); rc != C.MPI_SUCCESS {
		return rc
	}
	dt, ok := typeOf(dtype, false)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	if count < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	if !set(mpitype.MapOf(dt).ExternalSize(count)) {
		return failCode(0, call, C.MPI_ERR_ARG, "size is NULL")
	}
	return C.MPI_SUCCESS
}

func aintOut(p *C.MPI_Aint) func(int) bool {
	return func(v int) bool {
		if p == nil {
			return false
		}
		*p = C.MPI_Aint(v)
		return true
	}
}

//export abigo_Pack_external_size
func abigo_Pack_external_size(rep *C.char, count C.int, dtype C.uintptr_t, size *C.MPI_Aint) C.int {
	return packExternalSizeBody("MPI_Pack_external_size", rep, int(count), dtype, aintOut(size))
}

//export abigo_Pack_external_size_c
func abigo_Pack_external_size_c(rep *C.char, count C.MPI_Count, dtype C.uintptr_t, size *C.MPI_Count) C.int {
	return packExternalSizeBody("MPI_Pack_external_size_c", rep, int(count), dtype, countOut(size))
}

//export abigo_Pack_external
func abigo_Pack_external(rep *C.char, in C.uintptr_t, count C.int, dtype C.uintptr_t, out C.uintptr_t, outsize C.MPI_Aint, pos *C.MPI_Aint) C.int {
	const call = "MPI_Pack_external"
	if rc := datarepOK(call, rep); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := packBody(call, true, in, int(count), dtype, out, int(outsize), int(*pos), 0)
	*pos = C.MPI_Aint(p)
	return rc
}

//export abigo_Pack_external_c
func abigo_Pack_external_c(rep *C.char, in C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t, out C.uintptr_t, outsize C.MPI_Count, pos *C.MPI_Count) C.int {
	const call = "MPI_Pack_external_c"
	if rc := datarepOK(call, rep); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := packBody(call, true, in, int(count), dtype, out, int(outsize), int(*pos), 0)
	*pos = C.MPI_Count(p)
	return rc
}

//export abigo_Unpack_external
func abigo_Unpack_external(rep *C.char, in C.uintptr_t, insize C.MPI_Aint, pos *C.MPI_Aint, out C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	const call = "MPI_Unpack_external"
	if rc := datarepOK(call, rep); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := unpackBody(call, true, in, int(insize), int(*pos), out, int(count), dtype, 0)
	*pos = C.MPI_Aint(p)
	return rc
}

//export abigo_Unpack_external_c
func abigo_Unpack_external_c(rep *C.char, in C.uintptr_t, insize C.MPI_Count, pos *C.MPI_Count, out C.uintptr_t, count C.MPI_Count, dtype C.uintptr_t) C.int {
	const call = "MPI_Unpack_external_c"
	if rc := datarepOK(call, rep); rc != C.MPI_SUCCESS {
		return rc
	}
	if pos == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "position is NULL")
	}
	p, rc := unpackBody(call, true, in, int(insize), int(*pos), out, int(count), dtype, 0)
	*pos = C.MPI_Count(p)
	return rc
}
