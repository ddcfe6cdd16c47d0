package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
)

// Distributed graph topologies (MPI_Dist_graph_create_adjacent) and the
// neighborhood collectives over them and over Cartesian topologies, as
// schedules (nbc.go). On a Cartesian communicator the neighbors are, per
// dimension, the one below then the one above (MPI_PROC_NULL off a
// non-periodic edge, whose blocks are left alone); each message's tag
// says which way it travels, so that with two ranks along a periodic
// dimension, where the rank below is also the rank above, each block
// still lands in its place.

type distGraph struct {
	in, out   []int
	inW, outW []int
	weighted  bool
	std       *graphTopo // the whole graph of an MPI_Graph_create communicator (graph.go), or nil
}

//export abigo_Dist_graph_create_adjacent
func abigo_Dist_graph_create_adjacent(comm C.uintptr_t, indeg C.int, sources *C.int, sweights C.uintptr_t, outdeg C.int, dests *C.int, dweights C.uintptr_t, info C.uintptr_t, reorder C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Dist_graph_create_adjacent"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if indeg < 0 || outdeg < 0 || out == nil || (indeg > 0 && sources == nil) || (outdeg > 0 && dests == nil) {
		return failCode(comm, call, C.MPI_ERR_ARG, "degrees %d and %d with NULL arrays", int(indeg), int(outdeg))
	}
	if _, ok := infoOf(info); !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	g := &distGraph{in: intsIn(sources, indeg), out: intsIn(dests, outdeg)}
	for _, r := range append(append([]int{}, g.in...), g.out...) {
		if r < 0 || r >= o.c.Size() {
			return failCode(comm, call, C.MPI_ERR_RANK, "neighbor %d of %d", r, o.c.Size())
		}
	}
	var okIn, okOut bool
	var kIn, kOut int
	g.inW, kIn, okIn = weightsArg(sweights, int(indeg))
	g.outW, kOut, okOut = weightsArg(dweights, int(outdeg))
	if !okIn || !okOut || (kIn != weightsUnknown && kOut != weightsUnknown && kIn != kOut) {
		return failCode(comm, call, C.MPI_ERR_ARG, "weights: both MPI_UNWEIGHTED or both given (MPI_WEIGHTS_EMPTY for a degree 0)")
	}
	g.weighted = kIn != weightsUnweighted && kOut != weightsUnweighted
	if g.inW == nil {
		g.inW = make([]int, indeg)
	}
	if g.outW == nil {
		g.outW = make([]int, outdeg)
	}
	var sw, dw []int // nil: unweighted
	if g.weighted {
		sw, dw = g.inW, g.outW
	}
	d, err := o.c.DistGraphCreateAdjacent(g.in, sw, g.out, dw, reorder != 0)
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, d, out)
	n, _ := lookup(uintptr(*out), C.ABI_KIND_COMM)
	n.val.(*commObj).graph = g
	return C.MPI_SUCCESS
}

//export abigo_Dist_graph_neighbors_count
func abigo_Dist_graph_neighbors_count(comm C.uintptr_t, indeg, outdeg, weighted *C.int) C.int {
	o, rc := commOf(comm, "MPI_Dist_graph_neighbors_count")
	if o == nil {
		return rc
	}
	if o.graph == nil || o.graph.std != nil || indeg == nil || outdeg == nil || weighted == nil {
		return failCode(comm, "MPI_Dist_graph_neighbors_count", C.MPI_ERR_TOPOLOGY, "not a distributed graph communicator, or a NULL argument")
	}
	*indeg, *outdeg, *weighted = C.int(len(o.graph.in)), C.int(len(o.graph.out)), 0
	if o.graph.weighted {
		*weighted = 1
	}
	return C.MPI_SUCCESS
}

//export abigo_Dist_graph_neighbors
func abigo_Dist_graph_neighbors(comm C.uintptr_t, maxin C.int, sources *C.int, sweights C.uintptr_t, maxout C.int, dests *C.int, dweights C.uintptr_t) C.int {
	const call = "MPI_Dist_graph_neighbors"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	g := o.graph
	if g == nil || g.std != nil || int(maxin) < len(g.in) || int(maxout) < len(g.out) {
		return failCode(comm, call, C.MPI_ERR_TOPOLOGY, "not a distributed graph communicator, or arrays too short")
	}
	putInts(sources, g.in)
	putInts(dests, g.out)
	if g.weighted && sweights >= minAddr {
		putInts((*C.int)(cptr(sweights)), g.inW)
	}
	if g.weighted && dweights >= minAddr {
		putInts((*C.int)(cptr(dweights)), g.outW)
	}
	return C.MPI_SUCCESS
}

// edges are a topology's neighbors in MPI's order, with the tag offset of
// the message each edge carries.
type edges struct {
	in, out       []int // ranks, or compat.ProcNull
	inTag, outTag []int
}

func neighborsOf(o *commObj) (edges, bool) {
	switch {
	case o.graph != nil:
		e := edges{in: o.graph.in, out: o.graph.out, inTag: make([]int, len(o.graph.in)), outTag: make([]int, len(o.graph.out))}
		return e, true
	case o.cart != nil:
		var e edges
		me := o.cart.coords(o.c.Rank())
		for d := range o.cart.dims {
			for _, step := range []int{-1, 1} {
				c := append([]int(nil), me...)
				c[d] += step
				r, ok := o.cart.rank(c)
				if !ok {
					r = compat.ProcNull
				}
				e.in = append(e.in, r)
				e.out = append(e.out, r)
				// A message sent downward travels -d (tag 2d), upward +d
				// (2d+1); the one from below travels up.
				down := 2 * d
				if step < 0 {
					e.outTag = append(e.outTag, down)
					e.inTag = append(e.inTag, down+1)
				} else {
					e.outTag = append(e.outTag, down+1)
					e.inTag = append(e.inTag, down)
				}
			}
		}
		return e, true
	}
	return edges{}, false
}

// block is one neighbor's part of a buffer: count instances of dt at
// addr.
type block struct {
	addr  C.uintptr_t
	count int
	dt    compat.Datatype
}

// region is the bytes every block with data reaches, from the lowest
// block's address, and the blocks' offsets in it; ok is false for a
// block with data at no address.
func region(bs []block) (b []byte, offs []int, ok bool) {
	offs = make([]int, len(bs))
	lo, hi, any := C.uintptr_t(0), C.uintptr_t(0), false
	for _, x := range bs {
		n := span(x.dt, x.count)
		if n == 0 {
			continue
		}
		if x.addr < minAddr {
			return nil, nil, false
		}
		end := x.addr + C.uintptr_t(n)
		if !any || x.addr < lo {
			lo = x.addr
		}
		if !any || end > hi {
			hi = end
		}
		any = true
	}
	if !any {
		return []byte{}, offs, true
	}
	for i, x := range bs {
		if span(x.dt, x.count) > 0 {
			offs[i] = int(x.addr - lo)
		}
	}
	b, ok = cbuf(lo, int(hi-lo))
	return b, offs, ok
}

// neighborSchedule builds the schedule of a neighborhood collective: block
// j of sends goes to out-neighbor j, block i of recvs comes from
// in-neighbor i (the blocks of MPI_PROC_NULL neighbors are left alone).
func neighborSchedule(call string, comm C.uintptr_t, o *commObj, e edges, sends, recvs []block) (*schedule, C.int) {
	s, soff, ok := region(sends)
	if !ok {
		return nil, failCode(comm, call, C.MPI_ERR_BUFFER, "a send block with data at no address")
	}
	r, roff, ok := region(recvs)
	if !ok {
		return nil, failCode(comm, call, C.MPI_ERR_BUFFER, "a receive block with data at no address")
	}
	c, seq, err := nbcComm(o)
	if err != nil {
		return nil, fail(comm, call, err)
	}
	base := (seq % (1 << 22)) << 8
	sched := &schedule{}
	if s, r, err = sched.stage(s, r); err != nil {
		return nil, fail(comm, call, err)
	}
	at := func(b []byte, off int, x block) []byte { return b[off : off+span(x.dt, x.count)] }
	in := make([][]byte, len(recvs))
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
		var rs []*compat.Request
		for i, from := range e.in {
			if from == compat.ProcNull {
				continue
			}
			in[i] = make([]byte, recvs[i].count*recvs[i].dt.Size())
			q, err := nbRecv(c, in[i], from, base+e.inTag[i])
			if err != nil {
				return rs, err
			}
			rs = append(rs, q)
		}
		for j, to := range e.out {
			if to == compat.ProcNull {
				continue
			}
			x := sends[j]
			q, err := nbSend(c, packed(at(s, soff[j], x), x.dt, x.count), to, base+e.outTag[j])
			if err != nil {
				return rs, err
			}
			rs = append(rs, q)
		}
		return rs, nil
	})
	sched.finish = func() error {
		for i, x := range recvs {
			if in[i] != nil {
				unpack(at(r, roff[i], x), x.dt, x.count, in[i])
			}
		}
		return nil
	}
	return sched, C.MPI_SUCCESS
}

// neighborComm returns the communicator behind comm and its edges.
func neighborComm(comm C.uintptr_t, call string) (*commObj, edges, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, edges{}, rc
	}
	e, ok := neighborsOf(o)
	if !ok {
		return nil, e, failCode(comm, call, C.MPI_ERR_TOPOLOGY, "a communicator without a Cartesian, graph or distributed graph topology")
	}
	return o, e, C.MPI_SUCCESS
}

// dtArg is a committed datatype argument.
func dtArg(comm C.uintptr_t, call string, h C.uintptr_t) (compat.Datatype, C.int) {
	dt, ok := typeOf(h, true)
	if !ok {
		return dt, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	return dt, C.MPI_SUCCESS
}

// nbrArgs describes one side of a neighborhood collective: n blocks of
// counts[i] instances of types[i] (one type for all when len(types) is
// 1) at buf plus displs[i] bytes.
func nbrArgs(comm C.uintptr_t, call string, buf C.uintptr_t, counts, displs []int, types []C.uintptr_t) ([]block, C.int) {
	if buf == 1 {
		return nil, failCode(comm, call, C.MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in a neighborhood collective")
	}
	bs := make([]block, len(counts))
	var dt compat.Datatype
	for i, n := range counts {
		if i < len(types) {
			var rc C.int
			if dt, rc = dtArg(comm, call, types[i]); rc != C.MPI_SUCCESS {
				return nil, rc
			}
		}
		if n < 0 {
			return nil, failCode(comm, call, C.MPI_ERR_COUNT, "count %d for neighbor %d", n, i)
		}
		bs[i] = block{addr: buf + C.uintptr_t(displs[i]), count: n, dt: dt}
	}
	return bs, C.MPI_SUCCESS
}

// The forms of a neighborhood collective, as the counts and byte
// displacements of each side's blocks.

// uniformBlocks: n blocks of count each, one after another (alltoall), or
// all at one place (allgather's send side, when same).
func uniformBlocks(comm C.uintptr_t, call string, buf C.uintptr_t, n int, count int64, dtype C.uintptr_t, same bool) ([]block, C.int) {
	dt, rc := dtArg(comm, call, dtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	if count < 0 || count > maxCount {
		return nil, failCode(comm, call, C.MPI_ERR_COUNT, "count %d", count)
	}
	cs, ds := make([]int, n), make([]int, n)
	for i := range n {
		cs[i] = int(count)
		if !same {
			ds[i] = i * int(count) * dt.Extent()
		}
	}
	return nbrArgs(comm, call, buf, cs, ds, []C.uintptr_t{dtype})
}

// maxCount bounds a count so that its bytes cannot overflow an int.
const maxCount = 1 << 40

// vBlocks: counts[i] at displs[i] extents of dtype.
func vBlocks(comm C.uintptr_t, call string, buf C.uintptr_t, counts, displs []int64, dtype C.uintptr_t) ([]block, C.int) {
	dt, rc := dtArg(comm, call, dtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	cs, ds := make([]int, len(counts)), make([]int, len(counts))
	for i := range counts {
		if counts[i] > maxCount || displs[i] > maxCount || displs[i] < -maxCount {
			return nil, failCode(comm, call, C.MPI_ERR_COUNT, "count %d at displacement %d", counts[i], displs[i])
		}
		cs[i], ds[i] = int(counts[i]), int(displs[i])*dt.Extent()
	}
	return nbrArgs(comm, call, buf, cs, ds, []C.uintptr_t{dtype})
}

// wBlocks: counts[i] of types[i] at displs[i] bytes.
func wBlocks(comm C.uintptr_t, call string, buf C.uintptr_t, counts, displs []int64, types []C.uintptr_t) ([]block, C.int) {
	cs, ds := make([]int, len(counts)), make([]int, len(counts))
	for i := range counts {
		if counts[i] > maxCount {
			return nil, failCode(comm, call, C.MPI_ERR_COUNT, "count %d", counts[i])
		}
		cs[i], ds[i] = int(counts[i]), int(displs[i])
	}
	if len(types) == 0 && len(counts) > 0 {
		return nil, failCode(comm, call, C.MPI_ERR_ARG, "datatypes are NULL")
	}
	return nbrArgs(comm, call, buf, cs, ds, types)
}
