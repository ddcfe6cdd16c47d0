package main

/*
#include "abi.h"
*/
import "C"

// Graph topologies (MPI_Graph_create) and distributed graphs made from
// any rank's edges (MPI_Dist_graph_create). Both are kept as a distGraph
// (neighbor.go), whose in- and out-lists the neighborhood collectives
// use: a graph's neighbors of a rank are both. A graph also keeps its
// whole index and edge arrays (std), which MPI_Graph_get returns and
// MPI_Topo_test tells apart from a distributed graph by.
//
// Reordering is allowed, not required, by MPI; these keep every rank of
// the old communicator (below the graph's size) at its rank.

// graphTopo is an MPI_Graph_create graph: node i's neighbors are
// edges[index[i-1]:index[i]].
type graphTopo struct {
	index, edges []int
}

func (g *graphTopo) neighbors(r int) []int {
	lo := 0
	if r > 0 {
		lo = g.index[r-1]
	}
	return g.edges[lo:g.index[r]]
}

// graphArgs checks the arrays of MPI_Graph_create and MPI_Graph_map.
func graphArgs(comm C.uintptr_t, call string, size int, nnodes C.int, index, edges *C.int) (*graphTopo, C.int) {
	if nnodes < 0 || int(nnodes) > size {
		return nil, failCode(comm, call, C.MPI_ERR_ARG, "a graph of %d nodes over %d ranks", int(nnodes), size)
	}
	if nnodes > 0 && index == nil {
		return nil, failCode(comm, call, C.MPI_ERR_ARG, "index is NULL")
	}
	g := &graphTopo{index: intsIn(index, nnodes)}
	prev := 0
	for i, x := range g.index {
		if x < prev {
			return nil, failCode(comm, call, C.MPI_ERR_ARG, "index[%d] = %d after %d: the index decreases", i, x, prev)
		}
		prev = x
	}
	if prev > 0 && edges == nil {
		return nil, failCode(comm, call, C.MPI_ERR_ARG, "edges is NULL")
	}
	g.edges = intsIn(edges, C.int(prev))
	for i, e := range g.edges {
		if e < 0 || e >= int(nnodes) {
			return nil, failCode(comm, call, C.MPI_ERR_ARG, "edges[%d] = %d in a graph of %d nodes", i, e, int(nnodes))
		}
	}
	return g, C.MPI_SUCCESS
}

// graphOf returns the communicator behind h with its graph topology.
func graphOf(h C.uintptr_t, call string) (*commObj, *graphTopo, C.int) {
	o, rc := commOf(h, call)
	if o == nil {
		return nil, nil, rc
	}
	if o.graph == nil || o.graph.std == nil {
		return nil, nil, failCode(h, call, C.MPI_ERR_TOPOLOGY, "not a graph communicator")
	}
	return o, o.graph.std, C.MPI_SUCCESS
}

//export abigo_Graph_create
func abigo_Graph_create(comm C.uintptr_t, nnodes C.int, index, edges *C.int, reorder C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Graph_create"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "comm_graph is NULL")
	}
	g, rc := graphArgs(comm, call, o.c.Size(), nnodes, index, edges)
	if g == nil {
		return rc
	}
	d, err := o.c.GraphCreate(g.index, g.edges, reorder != 0)
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, d, out)
	if d != nil {
		nb := g.neighbors(d.Rank())
		n, _ := lookup(uintptr(*out), C.ABI_KIND_COMM)
		n.val.(*commObj).graph = &distGraph{in: nb, out: nb, inW: make([]int, len(nb)), outW: make([]int, len(nb)), std: g}
	}
	return C.MPI_SUCCESS
}

//export abigo_Graphdims_get
func abigo_Graphdims_get(comm C.uintptr_t, nnodes, nedges *C.int) C.int {
	_, g, rc := graphOf(comm, "MPI_Graphdims_get")
	if g == nil {
		return rc
	}
	if nnodes == nil || nedges == nil {
		return failCode(comm, "MPI_Graphdims_get", C.MPI_ERR_ARG, "NULL argument")
	}
	*nnodes, *nedges = C.int(len(g.index)), C.int(len(g.edges))
	return C.MPI_SUCCESS
}

// putIntsMax writes the first max of vs into p.
func putIntsMax(p *C.int, max C.int, vs []int) {
	if int(max) < len(vs) {
		vs = vs[:max]
	}
	putInts(p, vs)
}

//export abigo_Graph_get
func abigo_Graph_get(comm C.uintptr_t, maxindex, maxedges C.int, index, edges *C.int) C.int {
	const call = "MPI_Graph_get"
	_, g, rc := graphOf(comm, call)
	if g == nil {
		return rc
	}
	if maxindex < 0 || maxedges < 0 || (maxindex > 0 && len(g.index) > 0 && index == nil) || (maxedges > 0 && len(g.edges) > 0 && edges == nil) {
		return failCode(comm, call, C.MPI_ERR_ARG, "maxindex %d, maxedges %d with NULL arrays", int(maxindex), int(maxedges))
	}
	putIntsMax(index, maxindex, g.index)
	putIntsMax(edges, maxedges, g.edges)
	return C.MPI_SUCCESS
}

//export abigo_Graph_neighbors_count
func abigo_Graph_neighbors_count(comm C.uintptr_t, rank C.int, n *C.int) C.int {
	const call = "MPI_Graph_neighbors_count"
	_, g, rc := graphOf(comm, call)
	if g == nil {
		return rc
	}
	if rank < 0 || int(rank) >= len(g.index) {
		return failCode(comm, call, C.MPI_ERR_RANK, "rank %d of a graph of %d nodes", int(rank), len(g.index))
	}
	if n == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "nneighbors is NULL")
	}
	*n = C.int(len(g.neighbors(int(rank))))
	return C.MPI_SUCCESS
}

//export abigo_Graph_neighbors
func abigo_Graph_neighbors(comm C.uintptr_t, rank, max C.int, nb *C.int) C.int {
	const call = "MPI_Graph_neighbors"
	_, g, rc := graphOf(comm, call)
	if g == nil {
		return rc
	}
	if rank < 0 || int(rank) >= len(g.index) {
		return failCode(comm, call, C.MPI_ERR_RANK, "rank %d of a graph of %d nodes", int(rank), len(g.index))
	}
	vs := g.neighbors(int(rank))
	if max < 0 || (max > 0 && len(vs) > 0 && nb == nil) {
		return failCode(comm, call, C.MPI_ERR_ARG, "maxneighbors %d with a NULL array", int(max))
	}
	putIntsMax(nb, max, vs)
	return C.MPI_SUCCESS
}

//export abigo_Graph_map
func abigo_Graph_map(comm C.uintptr_t, nnodes C.int, index, edges *C.int, newrank *C.int) C.int {
	const call = "MPI_Graph_map"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if newrank == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "newrank is NULL")
	}
	if nnodes <= 0 {
		return failCode(comm, call, C.MPI_ERR_ARG, "a graph of %d nodes", int(nnodes))
	}
	if g, rc := graphArgs(comm, call, o.c.Size(), nnodes, index, edges); g == nil {
		return rc
	}
	*newrank = C.MPI_UNDEFINED
	if o.c.Rank() < int(nnodes) {
		*newrank = C.int(o.c.Rank())
	}
	return C.MPI_SUCCESS
}

//export abigo_Cart_map
func abigo_Cart_map(comm C.uintptr_t, ndims C.int, dims, periods *C.int, newrank *C.int) C.int {
	const call = "MPI_Cart_map"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if ndims < 0 || (ndims > 0 && (dims == nil || periods == nil)) || newrank == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "ndims %d with NULL arrays", int(ndims))
	}
	n := 1
	for i, d := range intsIn(dims, ndims) {
		if d <= 0 {
			return failCode(comm, call, C.MPI_ERR_DIMS, "dims[%d] = %d", i, d)
		}
		n *= d
		if n > o.c.Size() {
			return failCode(comm, call, C.MPI_ERR_DIMS, "a grid of more than %d ranks", o.c.Size())
		}
	}
	*newrank = C.MPI_UNDEFINED
	if o.c.Rank() < n {
		*newrank = C.int(o.c.Rank())
	}
	return C.MPI_SUCCESS
}

// Weight kinds of a weights argument.
const (
	weightsUnknown    = iota // NULL (or any pointer) for no edges: says nothing
	weightsGiven             // weights, or MPI_WEIGHTS_EMPTY
	weightsUnweighted        // MPI_UNWEIGHTED
)

// weightsArg reads a weights argument for n edges: zeros for
// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (for no edges only), else n
// weights; ok is false for a weights argument that is not valid.
func weightsArg(w C.uintptr_t, n int) (ws []int, kind int, ok bool) {
	switch {
	case w == 10: // MPI_UNWEIGHTED
		return make([]int, n), weightsUnweighted, true
	case w == 11: // MPI_WEIGHTS_EMPTY
		return make([]int, n), weightsGiven, n == 0
	case n == 0:
		return nil, weightsUnknown, true
	case w < minAddr:
		return nil, weightsGiven, false
	}
	return intsIn((*C.int)(cptr(w)), C.int(n)), weightsGiven, true
}

//export abigo_Dist_graph_create
func abigo_Dist_graph_create(comm C.uintptr_t, n C.int, sources, degrees, dests *C.int, weights C.uintptr_t, info C.uintptr_t, reorder C.int, out *C.uintptr_t) C.int {
	const call = "MPI_Dist_graph_create"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if n < 0 || out == nil || (n > 0 && (sources == nil || degrees == nil)) {
		return failCode(comm, call, C.MPI_ERR_ARG, "n %d with NULL arrays", int(n))
	}
	if _, ok := infoOf(info); !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	size := o.c.Size()
	srcs, degs := intsIn(sources, n), intsIn(degrees, n)
	total := 0
	for i, d := range degs {
		if d < 0 {
			return failCode(comm, call, C.MPI_ERR_ARG, "degrees[%d] = %d", i, d)
		}
		if srcs[i] < 0 || srcs[i] >= size {
			return failCode(comm, call, C.MPI_ERR_RANK, "sources[%d] = %d of %d", i, srcs[i], size)
		}
		total += d
	}
	if total > 0 && dests == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "destinations is NULL")
	}
	dsts := intsIn(dests, C.int(total))
	ws, kind, ok := weightsArg(weights, total)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_ARG, "weights %#x for %d edges", uintptr(weights), total)
	}
	for k, d := range dsts {
		if d < 0 || d >= size {
			return failCode(comm, call, C.MPI_ERR_RANK, "destinations[%d] = %d of %d", k, d, size)
		}
	}
	d, err := o.c.DistGraphCreate(srcs, degs, dsts, ws, kind == weightsGiven, reorder != 0)
	if err != nil {
		return fail(comm, call, err)
	}
	t := d.DistGraph()
	g := &distGraph{in: t.Sources, inW: t.SourceWeights, out: t.Dests, outW: t.DestWeights, weighted: t.Weighted}
	newComm(o, d, out)
	nobj, _ := lookup(uintptr(*out), C.ABI_KIND_COMM)
	nobj.val.(*commObj).graph = g
	return C.MPI_SUCCESS
}
