package main

/*
#include "abi.h"
*/
import "C"

import (
	"sort"
	"unsafe"
)

// Cartesian topologies: a communicator made by MPI_Cart_create (compat's
// CartCreate: the first ranks of the old one, in the old order, as
// reorder allows) carries its dimensions and periods, here as in compat;
// ranks map to coordinates in row-major order. Graph topologies are in
// graph.go.

type cart struct {
	dims    []int
	periods []bool
}

// coords returns the coordinates of rank r.
func (t *cart) coords(r int) []int {
	c := make([]int, len(t.dims))
	for i := len(t.dims) - 1; i >= 0; i-- {
		c[i] = r % t.dims[i]
		r /= t.dims[i]
	}
	return c
}

// rank returns the rank at coordinates c, wrapping periodic dimensions;
// ok is false for a coordinate outside a non-periodic one.
func (t *cart) rank(c []int) (int, bool) {
	r := 0
	for i, d := range t.dims {
		x := c[i]
		if x < 0 || x >= d {
			if !t.periods[i] {
				return 0, false
			}
			x = ((x % d) + d) % d
		}
		r = r*d + x
	}
	return r, true
}

func (t *cart) size() int {
	n := 1
	for _, d := range t.dims {
		n *= d
	}
	return n
}

// cartOf returns the Cartesian communicator behind h.
func cartOf(h C.uintptr_t, call string) (*commObj, C.int) {
	o, rc := commOf(h, call)
	if o == nil {
		return nil, rc
	}
	if o.cart == nil {
		return nil, failCode(h, call, C.MPI_ERR_TOPOLOGY, "not a Cartesian communicator")
	}
	return o, C.MPI_SUCCESS
}

//export abigo_Cart_create
func abigo_Cart_create(comm C.uintptr_t, ndims C.int, dims, periods *C.int, reorder C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Cart_create"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if ndims < 0 || (ndims > 0 && (dims == nil || periods == nil)) || out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "ndims %d with NULL arrays", int(ndims))
	}
	t := &cart{dims: intsIn(dims, ndims), periods: make([]bool, ndims)}
	for i, p := range intsIn(periods, ndims) {
		t.periods[i] = p != 0
	}
	for _, d := range t.dims {
		if d <= 0 {
			return failCode(comm, call, C.MPI_ERR_DIMS, "dimension %d", d)
		}
	}
	if t.size() > o.c.Size() {
		return failCode(comm, call, C.MPI_ERR_DIMS, "a grid of %d ranks over %d", t.size(), o.c.Size())
	}
	d, err := o.c.CartCreate(t.dims, t.periods, reorder != 0)
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, d, out)
	if d != nil {
		n, _ := lookup(uintptr(*out), C.ABI_KIND_COMM)
		n.val.(*commObj).cart = t
	}
	return C.MPI_SUCCESS
}

//export abigo_Cart_sub
func abigo_Cart_sub(comm C.uintptr_t, remain *C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Cart_sub"
	o, rc := cartOf(comm, call)
	if o == nil {
		return rc
	}
	nd := len(o.cart.dims)
	if (nd > 0 && remain == nil) || out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "NULL argument")
	}
	rem := make([]bool, nd)
	for i, k := range intsIn(remain, C.int(nd)) {
		rem[i] = k != 0
	}
	d, err := o.c.CartSub(rem)
	if err != nil {
		return fail(comm, call, err)
	}
	sub := &cart{dims: d.Cart().Dims, periods: d.Cart().Periods}
	newComm(o, d, out)
	n, _ := lookup(uintptr(*out), C.ABI_KIND_COMM)
	n.val.(*commObj).cart = sub
	return C.MPI_SUCCESS
}

//export abigo_Cartdim_get
func abigo_Cartdim_get(comm C.uintptr_t, ndims *C.int) C.int {
	o, rc := cartOf(comm, "MPI_Cartdim_get")
	if o == nil {
		return rc
	}
	if ndims == nil {
		return failCode(comm, "MPI_Cartdim_get", C.MPI_ERR_ARG, "ndims is NULL")
	}
	*ndims = C.int(len(o.cart.dims))
	return C.MPI_SUCCESS
}

//export abigo_Topo_test
func abigo_Topo_test(comm C.uintptr_t, status *C.int) C.int {
	o, rc := commOf(comm, "MPI_Topo_test")
	if o == nil {
		return rc
	}
	if status == nil {
		return failCode(comm, "MPI_Topo_test", C.MPI_ERR_ARG, "status is NULL")
	}
	switch {
	case o.cart != nil:
		*status = C.MPI_CART
	case o.graph != nil && o.graph.std != nil:
		*status = C.MPI_GRAPH
	case o.graph != nil:
		*status = C.MPI_DIST_GRAPH
	default:
		*status = C.MPI_UNDEFINED
	}
	return C.MPI_SUCCESS
}

// putInts writes vs into the C array p of at least len(vs) ints.
func putInts(p *C.int, vs []int) {
	if len(vs) == 0 {
		return
	}
	s := unsafe.Slice(p, len(vs))
	for i, v := range vs {
		s[i] = C.int(v)
	}
}

//export abigo_Cart_get
func abigo_Cart_get(comm C.uintptr_t, maxdims C.int, dims, periods, coords *C.int) C.int {
	const call = "MPI_Cart_get"
	o, rc := cartOf(comm, call)
	if o == nil {
		return rc
	}
	nd := len(o.cart.dims)
	if int(maxdims) < nd || (nd > 0 && (dims == nil || periods == nil || coords == nil)) {
		return failCode(comm, call, C.MPI_ERR_ARG, "maxdims %d for %d dimensions", int(maxdims), nd)
	}
	ps := make([]int, nd)
	for i, p := range o.cart.periods {
		if p {
			ps[i] = 1
		}
	}
	putInts(dims, o.cart.dims)
	putInts(periods, ps)
	putInts(coords, o.cart.coords(o.c.Rank()))
	return C.MPI_SUCCESS
}

//export abigo_Cart_coords
func abigo_Cart_coords(comm C.uintptr_t, rank, maxdims C.int, coords *C.int) C.int {
	const call = "MPI_Cart_coords"
	o, rc := cartOf(comm, call)
	if o == nil {
		return rc
	}
	nd := len(o.cart.dims)
	if rank < 0 || int(rank) >= o.c.Size() {
		return failCode(comm, call, C.MPI_ERR_RANK, "rank %d of %d", int(rank), o.c.Size())
	}
	if int(maxdims) < nd || (nd > 0 && coords == nil) {
		return failCode(comm, call, C.MPI_ERR_ARG, "maxdims %d for %d dimensions", int(maxdims), nd)
	}
	putInts(coords, o.cart.coords(int(rank)))
	return C.MPI_SUCCESS
}

//export abigo_Cart_rank
func abigo_Cart_rank(comm C.uintptr_t, coords *C.int, rank *C.int) C.int {
	const call = "MPI_Cart_rank"
	o, rc := cartOf(comm, call)
	if o == nil {
		return rc
	}
	nd := len(o.cart.dims)
	if rank == nil || (nd > 0 && coords == nil) {
		return failCode(comm, call, C.MPI_ERR_ARG, "NULL argument")
	}
	r, ok := o.cart.rank(intsIn(coords, C.int(nd)))
	if !ok {
		return failCode(comm, call, C.MPI_ERR_ARG, "coordinates outside a non-periodic dimension")
	}
	*rank = C.int(r)
	return C.MPI_SUCCESS
}

//export abigo_Cart_shift
func abigo_Cart_shift(comm C.uintptr_t, direction, disp C.int, src, dst *C.int) C.int {
	const call = "MPI_Cart_shift"
	o, rc := cartOf(comm, call)
	if o == nil {
		return rc
	}
	if direction < 0 || int(direction) >= len(o.cart.dims) || src == nil || dst == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "direction %d of %d dimensions", int(direction), len(o.cart.dims))
	}
	at := func(delta int) C.int {
		c := o.cart.coords(o.c.Rank())
		c[direction] += delta
		if r, ok := o.cart.rank(c); ok {
			return C.int(r)
		}
		return C.MPI_PROC_NULL
	}
	*dst = at(int(disp))
	*src = at(-int(disp))
	return C.MPI_SUCCESS
}

//export abigo_Dims_create
func abigo_Dims_create(nnodes, ndims C.int, dims *C.int) C.int {
	const call = "MPI_Dims_create"
	if nnodes <= 0 || ndims < 0 || (ndims > 0 && dims == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "nnodes %d, ndims %d", int(nnodes), int(ndims))
	}
	ds := intsIn(dims, ndims)
	rest := int(nnodes)
	var free []int
	for i, d := range ds {
		switch {
		case d < 0:
			return failCode(0, call, C.MPI_ERR_DIMS, "dims[%d] = %d", i, d)
		case d == 0:
			free = append(free, i)
		case rest%d != 0:
			return failCode(0, call, C.MPI_ERR_DIMS, "%d nodes do not divide by dims[%d] = %d", int(nnodes), i, d)
		default:
			rest /= d
		}
	}
	if len(free) == 0 {
		if rest != 1 {
			return failCode(0, call, C.MPI_ERR_DIMS, "the fixed dimensions do not multiply to %d", int(nnodes))
		}
		return C.MPI_SUCCESS
	}
	// Balance: give each prime factor, largest first, to the dimension
	// with the smallest product so far; then order them non-increasing.
	var primes []int
	for p := 2; p*p <= rest; p++ {
		for rest%p == 0 {
			primes = append(primes, p)
			rest /= p
		}
	}
	if rest > 1 {
		primes = append(primes, rest)
	}
	got := make([]int, len(free))
	for i := range got {
		got[i] = 1
	}
	for i := len(primes) - 1; i >= 0; i-- {
		min := 0
		for j := range got {
			if got[j] < got[min] {
				min = j
			}
		}
		got[min] *= primes[i]
	}
	sort.Sort(sort.Reverse(sort.IntSlice(got)))
	for j, i := range free {
		ds[i] = got[j]
	}
	putInts(dims, ds)
	return C.MPI_SUCCESS
}
