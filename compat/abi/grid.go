package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// MPI_Type_create_subarray and MPI_Type_create_darray: both pick, in each
// dimension of an array of old elements, ranges of indices (one for a
// subarray; a process's blocks for a darray), and the type is their
// product, with lower bound 0 and the whole array's extent (MPI-4.1
// 5.1.3, 5.1.4).

// span1 is a range of indices of one dimension.
type span1 struct{ start, n int }

// gridType is the product of ranges[d] over an array of sizes[d] old
// elements in C (last dimension fastest) or Fortran order.
func gridType(sizes []int, ranges [][]span1, fortran bool, old compat.Datatype) compat.Datatype {
	nd := len(sizes)
	t := old
	ext := old.Extent()
	stride := ext // bytes of one index of the current dimension
	for k := range nd {
		d := nd - 1 - k // C: last dimension first
		if fortran {
			d = k
		}
		bs := make([]mpitype.Block, 0, len(ranges[d]))
		for _, r := range ranges[d] {
			bs = append(bs, mpitype.Block{Disp: r.start * stride, Count: r.n, Old: t})
		}
		t = mpitype.BlocksOf(bs)
		if t.Err() != nil {
			return t
		}
		stride *= sizes[d]
		// The next dimension steps over whole rows of this one.
		t = mpitype.ResizedOf(t, 0, stride)
	}
	return mpitype.ResizedOf(t, 0, stride)
}

func orderOK(order int) (fortran, ok bool) {
	return order == C.MPI_ORDER_FORTRAN, order == C.MPI_ORDER_C || order == C.MPI_ORDER_FORTRAN
}

func subarrayBody(large bool, ndims int, sizes, subs, starts []int, order int, old C.uintptr_t, out *C.uintptr_t) C.int {
	call := callName("MPI_Type_create_subarray", large)
	o, rc := oldArg(call, old)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	fortran, ok := orderOK(order)
	switch {
	case ndims <= 0:
		return failCode(0, call, C.MPI_ERR_DIMS, "ndims %d", ndims)
	case sizes == nil || subs == nil || starts == nil:
		return failCode(0, call, C.MPI_ERR_ARG, "NULL array")
	case !ok:
		return failCode(0, call, C.MPI_ERR_ARG, "order %d", order)
	}
	ranges := make([][]span1, ndims)
	for d := range ndims {
		if sizes[d] <= 0 || subs[d] <= 0 || subs[d] > sizes[d] || starts[d] < 0 || starts[d] > sizes[d]-subs[d] {
			return failCode(0, call, C.MPI_ERR_ARG, "dimension %d: size %d, subsize %d, start %d", d, sizes[d], subs[d], starts[d])
		}
		ranges[d] = []span1{{starts[d], subs[d]}}
	}
	a := args{large: large, ints: []int{ndims}}
	a.put(sizes...)
	a.put(subs...)
	a.put(starts...)
	a.ints = append(a.ints, order)
	if large { // ints: ndims, order; large counts: sizes, subsizes, starts
		a.ints = []int{ndims, order}
	}
	return finishType(call, gridType(sizes, ranges, fortran, o), out, C.MPI_COMBINER_SUBARRAY, a, old)
}

//export abigo_Type_create_subarray
func abigo_Type_create_subarray(ndims C.int, sizes, subs, starts *C.int, order C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	n := int(ndims)
	return subarrayBody(false, n, arr(sizes, n), arr(subs, n), arr(starts, n), int(order), old, out)
}

//export abigo_Type_create_subarray_c
func abigo_Type_create_subarray_c(ndims C.int, sizes, subs, starts *C.MPI_Count, order C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	n := int(ndims)
	return subarrayBody(true, n, arr(sizes, n), arr(subs, n), arr(starts, n), int(order), old, out)
}

// darrayRanges is what process coordinate p of np owns of a dimension of
// g elements distributed as distrib with argument darg.
func darrayRanges(g, distrib, darg, np, p int) ([]span1, bool) {
	switch distrib {
	case C.MPI_DISTRIBUTE_NONE:
		if np != 1 {
			return nil, false
		}
		return []span1{{0, g}}, true
	case C.MPI_DISTRIBUTE_BLOCK:
		b := (g + np - 1) / np
		if darg != C.MPI_DISTRIBUTE_DFLT_DARG {
			if darg <= 0 || darg*np < g {
				return nil, false
			}
			b = darg
		}
		start := p * b
		n := min(b, g-start)
		if n <= 0 {
			return nil, true
		}
		return []span1{{start, n}}, true
	case C.MPI_DISTRIBUTE_CYCLIC:
		b := 1
		if darg != C.MPI_DISTRIBUTE_DFLT_DARG {
			if darg <= 0 {
				return nil, false
			}
			b = darg
		}
		var rs []span1
		for start := p * b; start < g; start += b * np {
			rs = append(rs, span1{start, min(b, g-start)})
		}
		return rs, true
	}
	return nil, false
}

func darrayBody(large bool, size, rank, ndims int, gsizes, distribs, dargs, psizes []int, order int, old C.uintptr_t, out *C.uintptr_t) C.int {
	call := callName("MPI_Type_create_darray", large)
	o, rc := oldArg(call, old)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	fortran, ok := orderOK(order)
	switch {
	case ndims <= 0:
		return failCode(0, call, C.MPI_ERR_DIMS, "ndims %d", ndims)
	case gsizes == nil || distribs == nil || dargs == nil || psizes == nil:
		return failCode(0, call, C.MPI_ERR_ARG, "NULL array")
	case !ok:
		return failCode(0, call, C.MPI_ERR_ARG, "order %d", order)
	case size <= 0 || rank < 0 || rank >= size:
		return failCode(0, call, C.MPI_ERR_ARG, "rank %d of %d", rank, size)
	}
	procs := 1
	for _, p := range psizes {
		if p <= 0 {
			return failCode(0, call, C.MPI_ERR_ARG, "process grid dimension %d", p)
		}
		procs *= p
	}
	if procs != size {
		return failCode(0, call, C.MPI_ERR_ARG, "a process grid of %d for %d processes", procs, size)
	}
	// The process grid is in row-major order whatever the array's order.
	coords := make([]int, ndims)
	r := rank
	for d := ndims - 1; d >= 0; d-- {
		coords[d] = r % psizes[d]
		r /= psizes[d]
	}
	ranges := make([][]span1, ndims)
	for d := range ndims {
		if gsizes[d] <= 0 {
			return failCode(0, call, C.MPI_ERR_ARG, "dimension %d of size %d", d, gsizes[d])
		}
		var ok bool
		if ranges[d], ok = darrayRanges(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d]); !ok {
			return failCode(0, call, C.MPI_ERR_ARG, "dimension %d: distribution %d, argument %d over %d processes", d, distribs[d], dargs[d], psizes[d])
		}
	}
	a := args{large: large, ints: []int{size, rank, ndims}}
	if large {
		a.cnt = gsizes
	} else {
		a.ints = append(a.ints, gsizes...)
	}
	a.ints = append(append(append(append(a.ints, distribs...), dargs...), psizes...), order)
	return finishType(call, gridType(gsizes, ranges, fortran, o), out, C.MPI_COMBINER_DARRAY, a, old)
}

//export abigo_Type_create_darray
func abigo_Type_create_darray(size, rank, ndims C.int, gsizes, distribs, dargs, psizes *C.int, order C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	n := int(ndims)
	return darrayBody(false, int(size), int(rank), n, arr(gsizes, n), arr(distribs, n), arr(dargs, n), arr(psizes, n), int(order), old, out)
}

//export abigo_Type_create_darray_c
func abigo_Type_create_darray_c(size, rank, ndims C.int, gsizes *C.MPI_Count, distribs, dargs, psizes *C.int, order C.int, old C.uintptr_t, out *C.uintptr_t) C.int {
	n := int(ndims)
	return darrayBody(true, int(size), int(rank), n, arr(gsizes, n), arr(distribs, n), arr(dargs, n), arr(psizes, n), int(order), old, out)
}
