package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// Groups: user handles over *compat.Group; MPI_GROUP_EMPTY is a
// predefined handle defined at MPI_Init.

// defineEmptyGroup publishes MPI_GROUP_EMPTY; called by MPI_Init.
func defineEmptyGroup(world *compat.Comm) error {
	g, err := world.Group()
	if err != nil {
		return err
	}
	empty, err := g.Incl(nil)
	if err != nil {
		return err
	}
	definePredef(0x109, C.ABI_KIND_GROUP, empty, nil)
	return nil
}

func groupOf(h C.uintptr_t) (*compat.Group, bool) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_GROUP)
	if !ok {
		return nil, false
	}
	return o.val.(*compat.Group), true
}

func newGroupHandle(g *compat.Group) C.uintptr_t {
	if g.Size() == 0 {
		return 0x109 // MPI_GROUP_EMPTY
	}
	h, _ := newHandle(C.ABI_KIND_GROUP, g)
	return C.uintptr_t(h)
}

// groupArgs checks a group argument and an output pointer.
func groupArgs(h C.uintptr_t, out unsafe.Pointer, call string) (*compat.Group, C.int) {
	g, ok := groupOf(h)
	if !ok {
		return nil, failCode(0, call, C.MPI_ERR_GROUP, "invalid group")
	}
	if out == nil {
		return nil, failCode(0, call, C.MPI_ERR_ARG, "NULL output argument")
	}
	return g, C.MPI_SUCCESS
}

//export abigo_Comm_group
func abigo_Comm_group(comm C.uintptr_t, group *C.uintptr_t) C.int {
	o, rc := commOf(comm, "MPI_Comm_group")
	if o == nil {
		return rc
	}
	if group == nil {
		return failCode(comm, "MPI_Comm_group", C.MPI_ERR_ARG, "group is NULL")
	}
	g, err := o.c.Group()
	if err != nil {
		return fail(comm, "MPI_Comm_group", err)
	}
	*group = newGroupHandle(g)
	return C.MPI_SUCCESS
}

//export abigo_Group_size
func abigo_Group_size(group C.uintptr_t, size *C.int) C.int {
	g, rc := groupArgs(group, unsafe.Pointer(size), "MPI_Group_size")
	if g == nil {
		return rc
	}
	*size = C.int(g.Size())
	return C.MPI_SUCCESS
}

//export abigo_Group_rank
func abigo_Group_rank(group C.uintptr_t, rank *C.int) C.int {
	g, rc := groupArgs(group, unsafe.Pointer(rank), "MPI_Group_rank")
	if g == nil {
		return rc
	}
	*rank = rankOut(g.Rank())
	return C.MPI_SUCCESS
}

func intsIn(p *C.int, n C.int) []int {
	if n <= 0 || p == nil {
		return nil
	}
	s := unsafe.Slice(p, int(n))
	out := make([]int, n)
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

func groupRanks(call string, group C.uintptr_t, n C.int, ranks *C.int, out *C.uintptr_t, f func(*compat.Group, []int) (*compat.Group, error)) C.int {
	g, rc := groupArgs(group, unsafe.Pointer(out), call)
	if g == nil {
		return rc
	}
	if n < 0 || (n > 0 && ranks == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "n %d with ranks %p", int(n), ranks)
	}
	h, err := f(g, intsIn(ranks, n))
	if err != nil {
		return fail(0, call, err)
	}
	*out = newGroupHandle(h)
	return C.MPI_SUCCESS
}

//export abigo_Group_incl
func abigo_Group_incl(group C.uintptr_t, n C.int, ranks *C.int, out *C.uintptr_t) C.int {
	return groupRanks("MPI_Group_incl", group, n, ranks, out, (*compat.Group).Incl)
}

//export abigo_Group_excl
func abigo_Group_excl(group C.uintptr_t, n C.int, ranks *C.int, out *C.uintptr_t) C.int {
	return groupRanks("MPI_Group_excl", group, n, ranks, out, (*compat.Group).Excl)
}

func groupPair(call string, a, b C.uintptr_t, out *C.uintptr_t, f func(*compat.Group, *compat.Group) (*compat.Group, error)) C.int {
	ga, rc := groupArgs(a, unsafe.Pointer(out), call)
	if ga == nil {
		return rc
	}
	gb, rc := groupArgs(b, unsafe.Pointer(out), call)
	if gb == nil {
		return rc
	}
	g, err := f(ga, gb)
	if err != nil {
		return fail(0, call, err)
	}
	*out = newGroupHandle(g)
	return C.MPI_SUCCESS
}

//export abigo_Group_union
func abigo_Group_union(a, b C.uintptr_t, out *C.uintptr_t) C.int {
	return groupPair("MPI_Group_union", a, b, out, (*compat.Group).Union)
}

//export abigo_Group_intersection
func abigo_Group_intersection(a, b C.uintptr_t, out *C.uintptr_t) C.int {
	return groupPair("MPI_Group_intersection", a, b, out, (*compat.Group).Intersection)
}

//export abigo_Group_difference
func abigo_Group_difference(a, b C.uintptr_t, out *C.uintptr_t) C.int {
	return groupPair("MPI_Group_difference", a, b, out, (*compat.Group).Difference)
}

//export abigo_Group_compare
func abigo_Group_compare(a, b C.uintptr_t, result *C.int) C.int {
	ga, rc := groupArgs(a, unsafe.Pointer(result), "MPI_Group_compare")
	if ga == nil {
		return rc
	}
	gb, rc := groupArgs(b, unsafe.Pointer(result), "MPI_Group_compare")
	if gb == nil {
		return rc
	}
	r, err := ga.Compare(gb)
	if err != nil {
		return fail(0, "MPI_Group_compare", err)
	}
	*result = compareOut[r]
	return C.MPI_SUCCESS
}

//export abigo_Group_translate_ranks
func abigo_Group_translate_ranks(a C.uintptr_t, n C.int, ranks *C.int, b C.uintptr_t, out *C.int) C.int {
	const call = "MPI_Group_translate_ranks"
	ga, rc := groupArgs(a, unsafe.Pointer(out), call)
	if ga == nil {
		return rc
	}
	gb, rc := groupArgs(b, unsafe.Pointer(out), call)
	if gb == nil {
		return rc
	}
	if n < 0 || (n > 0 && ranks == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "n %d", int(n))
	}
	in := intsIn(ranks, n)
	for i, r := range in {
		in[i] = rankIn(C.int(r))
	}
	tr, err := compat.TranslateRanks(ga, in, gb)
	if err != nil {
		return fail(0, call, err)
	}
	o := unsafe.Slice(out, int(n))
	for i, r := range tr {
		o[i] = rankOut(r)
	}
	return C.MPI_SUCCESS
}

//export abigo_Group_free
func abigo_Group_free(group *C.uintptr_t) C.int {
	if group == nil {
		return failCode(0, "MPI_Group_free", C.MPI_ERR_ARG, "group is NULL")
	}
	if *group == 0x109 { // freeing MPI_GROUP_EMPTY is allowed and a no-op
		*group = 0x108
		return C.MPI_SUCCESS
	}
	if _, ok := groupOf(*group); !ok || *group < C.ABI_ID_BASE {
		return failCode(0, "MPI_Group_free", C.MPI_ERR_GROUP, "invalid group")
	}
	release(uintptr(*group))
	*group = 0x108
	return C.MPI_SUCCESS
}

// ranges expands n (first, last, stride) triples into ranks.
func ranges(p *C.int, n C.int) ([]int, bool) {
	t := intsIn(p, 3*n)
	var out []int
	for i := 0; i+2 < len(t); i += 3 {
		first, last, stride := t[i], t[i+1], t[i+2]
		if stride == 0 || (last-first)/stride < 0 {
			return nil, false
		}
		for r := first; (stride > 0 && r <= last) || (stride < 0 && r >= last); r += stride {
			out = append(out, r)
		}
	}
	return out, true
}

func groupRange(call string, group C.uintptr_t, n C.int, rs *C.int, out *C.uintptr_t, f func(*compat.Group, []int) (*compat.Group, error)) C.int {
	g, rc := groupArgs(group, unsafe.Pointer(out), call)
	if g == nil {
		return rc
	}
	if n < 0 || (n > 0 && rs == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "n %d", int(n))
	}
	ranks, ok := ranges(rs, n)
	if !ok {
		return failCode(0, call, C.MPI_ERR_ARG, "a range with stride 0 or pointing away from its end")
	}
	h, err := f(g, ranks)
	if err != nil {
		return fail(0, call, err)
	}
	*out = newGroupHandle(h)
	return C.MPI_SUCCESS
}

//export abigo_Group_range_incl
func abigo_Group_range_incl(group C.uintptr_t, n C.int, rs *C.int, out *C.uintptr_t) C.int {
	return groupRange("MPI_Group_range_incl", group, n, rs, out, (*compat.Group).Incl)
}

//export abigo_Group_range_excl
func abigo_Group_range_excl(group C.uintptr_t, n C.int, rs *C.int, out *C.uintptr_t) C.int {
	return groupRange("MPI_Group_range_excl", group, n, rs, out, (*compat.Group).Excl)
}
