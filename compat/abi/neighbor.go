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
	g := &distGraph{in: intsIn(sources, indeg), out: intsIn(dests, outdeg), weighted: sweights != 10 && dweights != 10}
	for _, r := range append(append([]int{}, g.in...), g.out...) {
		if r < 0 || r >= o.c.Size() {
			return failCode(comm, call, C.MPI_ERR_RANK, "neighbor %d of %d", r, o.c.Size())
		}
	}
	weights := func(w C.uintptr_t, n C.int) []int {
		if !g.weighted || n == 0 || w < minAddr { // MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY
			return make([]int, n)
		}
		return intsIn((*C.int)(cptr(w)), n)
	}
	g.inW, g.outW = weights(sweights, indeg), weights(dweights, outdeg)
	d, err := o.c.Dup()
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
	if o.graph == nil || indeg == nil || outdeg == nil || weighted == nil {
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
	if g == nil || int(maxin) < len(g.in) || int(maxout) < len(g.out) {
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

// neighborSchedule builds the schedule of a neighborhood allgather (each
// out-neighbor gets the same block) or alltoall (block j to out-neighbor
// j); block i of rbuf comes from in-neighbor i.
func neighborSchedule(call string, sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, alltoall bool) (*schedule, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, rc
	}
	e, ok := neighborsOf(o)
	if !ok {
		return nil, failCode(comm, call, C.MPI_ERR_TOPOLOGY, "a communicator without a Cartesian or distributed graph topology")
	}
	c, seq, err := nbcComm(o)
	if err != nil {
		return nil, fail(comm, call, err)
	}
	base := (seq % (1 << 22)) << 8
	sblocks := C.int(1)
	if alltoall {
		sblocks = C.int(len(e.out))
	}
	s, sdt, rc := msgBuf(comm, call, sbuf, scount*sblocks, stype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	r, rdt, rc := msgBuf(comm, call, rbuf, rcount*C.int(len(e.in)), rtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	sched := &schedule{}
	s, r, err = sched.stage(s, r)
	if err != nil {
		return nil, fail(comm, call, err)
	}
	in := make([][]byte, len(e.in))
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
		var rs []*compat.Request
		for i, from := range e.in {
			if from == compat.ProcNull {
				continue
			}
			in[i] = make([]byte, int(rcount)*rdt.Size())
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
			blk := 0
			if alltoall {
				blk = j
			}
			q, err := nbSend(c, packed(slot(s, sdt, blk, int(scount)), sdt, int(scount)), to, base+e.outTag[j])
			if err != nil {
				return rs, err
			}
			rs = append(rs, q)
		}
		return rs, nil
	})
	sched.finish = func() error {
		for i := range in {
			if in[i] != nil {
				unpack(slot(r, rdt, i, int(rcount)), rdt, int(rcount), in[i])
			}
		}
		return nil
	}
	return sched, C.MPI_SUCCESS
}

func neighborBlocking(call string, s *schedule, rc C.int, comm C.uintptr_t) C.int {
	if s == nil {
		return rc
	}
	if _, err := s.wait(); err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

func neighborStart(call string, s *schedule, rc C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if s == nil {
		return rc
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	return startNBC(comm, call, s, req)
}

//export abigo_Neighbor_allgather
func abigo_Neighbor_allgather(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t) C.int {
	s, rc := neighborSchedule("MPI_Neighbor_allgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, false)
	return neighborBlocking("MPI_Neighbor_allgather", s, rc, comm)
}

//export abigo_Neighbor_alltoall
func abigo_Neighbor_alltoall(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t) C.int {
	s, rc := neighborSchedule("MPI_Neighbor_alltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, true)
	return neighborBlocking("MPI_Neighbor_alltoall", s, rc, comm)
}

//export abigo_Ineighbor_allgather
func abigo_Ineighbor_allgather(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	s, rc := neighborSchedule("MPI_Ineighbor_allgather", sbuf, scount, stype, rbuf, rcount, rtype, comm, false)
	return neighborStart("MPI_Ineighbor_allgather", s, rc, comm, req)
}

//export abigo_Ineighbor_alltoall
func abigo_Ineighbor_alltoall(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	s, rc := neighborSchedule("MPI_Ineighbor_alltoall", sbuf, scount, stype, rbuf, rcount, rtype, comm, true)
	return neighborStart("MPI_Ineighbor_alltoall", s, rc, comm, req)
}
