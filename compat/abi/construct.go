package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// The datatype constructors. Each has one body over Go ints, which its
// int form and its large-count (_c) form call after reading their own
// argument widths; the envelope records the arguments in the form's own
// arrays (a _c form's counts as large counts), as MPI_Type_get_contents
// returns them.

// arr reads n C integers of any width at p; nil when p is NULL.
func arr[T C.int | C.MPI_Aint](p *T, n int) []int {
	if p == nil || n <= 0 {
		return nil
	}
	out := make([]int, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int(v)
	}
	return out
}

// args is a constructor's arguments in the envelope's arrays: ints
// holds what the int form passes as int, counts what a _c form passes as
// MPI_Count.
type args struct {
	large bool
	ints  []int
	aints []int
	cnt   []int
}

// put files the count-like values v as ints (int form) or large counts.
func (a *args) put(v ...int) {
	if a.large {
		a.cnt = append(a.cnt, v...)
	} else {
		a.ints = append(a.ints, v...)
	}
}

// addr files byte displacements: MPI_Aint in the int form, large counts
// in the _c form.
func (a *args) addr(v ...int) {
	if a.large {
		a.cnt = append(a.cnt, v...)
	} else {
		a.aints = append(a.aints, v...)
	}
}

func callName(base string, large bool) string {
	if large {
		return base + "_c"
	}
	return base
}

// oldArg checks a constructor's old datatype.
func oldArg(call string, old C.uintptr_t) (compat.Datatype, C.int) {
	o, ok := typeOf(old, false)
	if !ok {
		return o, failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	return o, C.MPI_SUCCESS
}

// finish files a built datatype under a new handle with its envelope.
func finishType(call string, dt compat.Datatype, out *C.uintptr_t, combiner C.int, a args, olds ...C.uintptr_t) C.int {
	e := envelope{combiner: combiner, ints: a.ints, aints: a.aints, counts: a.cnt, large: a.large}
	for _, o := range olds {
		e.olds = append(e.olds, refOf(o))
	}
	return withEnvelope(newType(0, call, dt, out), out, e)
}

func contiguousBody(large bool, count int, old C.uintptr_t, out *C.uintptr_t) C.int {
	call := callName("MPI_Type_contiguous", large)
	o, rc := oldArg(call, old)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if count < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	a := args{large: large}
	a.put(count)
	return finishType(call, compat.Contiguous(count, o), out, C.MPI_COMBINER_CONTIGUOUS, a, old)
}

//export abigo_Type_contiguous
func abigo_Type_contiguous(count C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	return contiguousBody(false, int(count), old, out)
}

//export abigo_Type_contiguous_c
func abigo_Type_contiguous_c(count C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	return contiguousBody(true, int(count), old, out)
}

// vectorBody is MPI_Type_vector (bytes false: stride in old extents) and
// MPI_Type_create_hvector (stride in bytes).
func vectorBody(large, bytes bool, count, blocklen, stride int, old C.uintptr_t, out *C.uintptr_t) C.int {
	base, comb := "MPI_Type_vector", C.int(C.MPI_COMBINER_VECTOR)
	if bytes {
		base, comb = "MPI_Type_create_hvector", C.MPI_COMBINER_HVECTOR
	}
	call := callName(base, large)
	o, rc := oldArg(call, old)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if count < 0 || blocklen < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d, blocklength %d", count, blocklen)
	}
	a := args{large: large}
	a.put(count, blocklen)
	var dt compat.Datatype
	if bytes {
		a.addr(stride)
		dt = mpitype.HVectorOf(count, blocklen, stride, o)
	} else {
		a.put(stride)
		dt = compat.Vector(count, blocklen, stride, o)
	}
	return finishType(call, dt, out, comb, a, old)
}

//export abigo_Type_vector
func abigo_Type_vector(count, blocklen, stride C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	return vectorBody(false, false, int(count), int(blocklen), int(stride), old, out)
}

//export abigo_Type_vector_c
func abigo_Type_vector_c(count, blocklen, stride C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	return vectorBody(true, false, int(count), int(blocklen), int(stride), old, out)
}

//export abigo_Type_create_hvector
func abigo_Type_create_hvector(count, blocklen C.int, stride C.MPI_Aint, old C.uintptr_t, out *C.uintptr_t) C.int {
	return vectorBody(false, true, int(count), int(blocklen), int(stride), old, out)
}

//export abigo_Type_create_hvector_c
func abigo_Type_create_hvector_c(count, blocklen, stride C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	return vectorBody(true, true, int(count), int(blocklen), int(stride), old, out)
}

// blocksBody builds the indexed types and structs: block i is lens[i]
// copies of olds[i] at disps[i] bytes.
func blocksBody(call string, lens, disps []int, olds []C.uintptr_t, strct bool, out *C.uintptr_t) (compat.Datatype, C.int) {
	bs := make([]mpitype.Block, len(lens))
	for i := range bs {
		o, ok := typeOf(olds[i], false)
		if !ok {
			return o, failCode(0, call, C.MPI_ERR_TYPE, "block %d: invalid datatype", i)
		}
		if lens[i] < 0 {
			return o, failCode(0, call, C.MPI_ERR_COUNT, "block %d: length %d", i, lens[i])
		}
		bs[i] = mpitype.Block{Disp: disps[i], Count: lens[i], Old: o}
	}
	if out == nil {
		return compat.Datatype{}, failCode(0, call, C.MPI_ERR_ARG, "newtype is NULL")
	}
	if strct {
		return mpitype.StructOf(bs), C.MPI_SUCCESS
	}
	return mpitype.BlocksOf(bs), C.MPI_SUCCESS
}

func sameN[T any](v T, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// indexedBody is the four indexed constructors: lens (nil: blocklen for
// every block), displacements in old extents (h false) or bytes.
func indexedBody(large, h bool, count, blocklen int, lens, displs []int, old C.uintptr_t, out *C.uintptr_t) C.int {
	base, comb := "MPI_Type_indexed", C.int(C.MPI_COMBINER_INDEXED)
	switch {
	case h && lens == nil:
		base, comb = "MPI_Type_create_hindexed_block", C.MPI_COMBINER_HINDEXED_BLOCK
	case h:
		base, comb = "MPI_Type_create_hindexed", C.MPI_COMBINER_HINDEXED
	case lens == nil:
		base, comb = "MPI_Type_create_indexed_block", C.MPI_COMBINER_INDEXED_BLOCK
	}
	call := callName(base, large)
	if count < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	if count > 0 && (displs == nil || (lens == nil && blocklen < 0)) {
		if blocklen < 0 {
			return failCode(0, call, C.MPI_ERR_COUNT, "blocklength %d", blocklen)
		}
		return failCode(0, call, C.MPI_ERR_ARG, "NULL array")
	}
	o, rc := oldArg(call, old)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	a := args{large: large}
	a.put(count)
	ls := lens
	if lens == nil {
		a.put(blocklen)
		ls = sameN(blocklen, count)
	} else {
		a.put(lens...)
	}
	bytes := displs
	if h {
		a.addr(displs...)
	} else {
		a.put(displs...)
		bytes = make([]int, count)
		for i, d := range displs {
			bytes[i] = d * o.Extent()
		}
	}
	dt, rc := blocksBody(call, ls, bytes, sameN(old, count), false, out)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return finishType(call, dt, out, comb, a, old)
}

//export abigo_Type_indexed
func abigo_Type_indexed(count C.int, lens, displs *C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	if count > 0 && lens == nil {
		return failCode(0, "MPI_Type_indexed", C.MPI_ERR_ARG, "NULL array")
	}
	return indexedBody(false, false, int(count), 0, arr(lens, int(count)), arr(displs, int(count)), old, out)
}

//export abigo_Type_indexed_c
func abigo_Type_indexed_c(count C.MPI_Count, lens, displs *C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	if count > 0 && lens == nil {
		return failCode(0, "MPI_Type_indexed_c", C.MPI_ERR_ARG, "NULL array")
	}
	return indexedBody(true, false, int(count), 0, arr(lens, int(count)), arr(displs, int(count)), old, out)
}

//export abigo_Type_create_hindexed
func abigo_Type_create_hindexed(count C.int, lens *C.int, displs *C.MPI_Aint, old C.uintptr_t, out *C.uintptr_t) C.int {
	if count > 0 && lens == nil {
		return failCode(0, "MPI_Type_create_hindexed", C.MPI_ERR_ARG, "NULL array")
	}
	return indexedBody(false, true, int(count), 0, arr(lens, int(count)), arr(displs, int(count)), old, out)
}

//export abigo_Type_create_hindexed_c
func abigo_Type_create_hindexed_c(count C.MPI_Count, lens, displs *C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	if count > 0 && lens == nil {
		return failCode(0, "MPI_Type_create_hindexed_c", C.MPI_ERR_ARG, "NULL array")
	}
	return indexedBody(true, true, int(count), 0, arr(lens, int(count)), arr(displs, int(count)), old, out)
}

//export abigo_Type_create_indexed_block
func abigo_Type_create_indexed_block(count, blocklen C.int, displs *C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	return indexedBody(false, false, int(count), int(blocklen), nil, arr(displs, int(count)), old, out)
}

//export abigo_Type_create_indexed_block_c
func abigo_Type_create_indexed_block_c(count, blocklen C.MPI_Count, displs *C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	return indexedBody(true, false, int(count), int(blocklen), nil, arr(displs, int(count)), old, out)
}

//export abigo_Type_create_hindexed_block
func abigo_Type_create_hindexed_block(count, blocklen C.int, displs *C.MPI_Aint, old C.uintptr_t, out *C.uintptr_t) C.int {
	return indexedBody(false, true, int(count), int(blocklen), nil, arr(displs, int(count)), old, out)
}

//export abigo_Type_create_hindexed_block_c
func abigo_Type_create_hindexed_block_c(count, blocklen C.MPI_Count, displs *C.MPI_Count, old C.uintptr_t, out *C.uintptr_t) C.int {
	return indexedBody(true, true, int(count), int(blocklen), nil, arr(displs, int(count)), old, out)
}

func structBody(large bool, count int, lens, displs []int, types *C.uintptr_t, out *C.uintptr_t) C.int {
	call := callName("MPI_Type_create_struct", large)
	if count < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	if count > 0 && (lens == nil || displs == nil || types == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL array")
	}
	var ts []C.uintptr_t
	if count > 0 {
		ts = unsafe.Slice(types, count)
	}
	dt, rc := blocksBody(call, lens, displs, ts, true, out)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	a := args{large: large}
	a.put(count)
	a.put(lens...)
	a.addr(displs...)
	return finishType(call, dt, out, C.MPI_COMBINER_STRUCT, a, ts...)
}

//export abigo_Type_create_struct
func abigo_Type_create_struct(count C.int, lens *C.int, displs *C.MPI_Aint, types *C.uintptr_t, out *C.uintptr_t) C.int {
	return structBody(false, int(count), arr(lens, int(count)), arr(displs, int(count)), types, out)
}

//export abigo_Type_create_struct_c
func abigo_Type_create_struct_c(count C.MPI_Count, lens, displs *C.MPI_Count, types *C.uintptr_t, out *C.uintptr_t) C.int {
	return structBody(true, int(count), arr(lens, int(count)), arr(displs, int(count)), types, out)
}

func resizedBody(large bool, old C.uintptr_t, lb, extent int, out *C.uintptr_t) C.int {
	call := callName("MPI_Type_create_resized", large)
	o, rc := oldArg(call, old)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	a := args{large: large}
	a.addr(lb, extent)
	return finishType(call, mpitype.ResizedOf(o, lb, extent), out, C.MPI_COMBINER_RESIZED, a, old)
}

//export abigo_Type_create_resized
func abigo_Type_create_resized(old C.uintptr_t, lb, extent C.MPI_Aint, out *C.uintptr_t) C.int {
	return resizedBody(false, old, int(lb), int(extent), out)
}

//export abigo_Type_create_resized_c
func abigo_Type_create_resized_c(old C.uintptr_t, lb, extent C.MPI_Count, out *C.uintptr_t) C.int {
	return resizedBody(true, old, int(lb), int(extent), out)
}
