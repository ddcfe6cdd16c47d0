package compat

import (
	"slices"
)

// Virtual topologies (MPI-4.1 chapter 8): a communicator may carry a
// Cartesian grid (CartCreate), a graph (GraphCreate) or a distributed
// graph (DistGraphCreateAdjacent, DistGraphCreate). Reordering is allowed
// by MPI, not required: every rank keeps its rank of the old communicator
// (below the topology's size). Dup keeps the topology; Split and Create
// do not.

// Topology kinds, as Comm.TopoTest returns them (MPI_Topo_test).
const (
	TopoNone      = iota // no topology (MPI_UNDEFINED)
	TopoCart             // MPI_CART
	TopoGraph            // MPI_GRAPH
	TopoDistGraph        // MPI_DIST_GRAPH
)

// Cart is a Cartesian grid: ranks map to coordinates in row-major order.
type Cart struct {
	Dims    []int
	Periods []bool
}

// Size is the number of ranks of the grid.
func (t *Cart) Size() int {
	n := 1
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Coords returns the coordinates of rank r (MPI_Cart_coords).
func (t *Cart) Coords(r int) []int {
	c := make([]int, len(t.Dims))
	for i := len(t.Dims) - 1; i >= 0; i-- {
		c[i] = r % t.Dims[i]
		r /= t.Dims[i]
	}
	return c
}

// Rank returns the rank at coordinates c, wrapping periodic dimensions
// (MPI_Cart_rank); ok is false for a coordinate outside a non-periodic
// one.
func (t *Cart) Rank(c []int) (rank int, ok bool) {
	if len(c) != len(t.Dims) {
		return 0, false
	}
	for i, d := range t.Dims {
		x := c[i]
		if x < 0 || x >= d {
			if !t.Periods[i] {
				return 0, false
			}
			x = ((x % d) + d) % d
		}
		rank = rank*d + x
	}
	return rank, true
}

// Shift returns the ranks disp steps below and above rank r along
// dimension dim (MPI_Cart_shift), ProcNull off a non-periodic edge.
func (t *Cart) Shift(r, dim, disp int) (src, dst int) {
	at := func(delta int) int {
		c := t.Coords(r)
		c[dim] += delta
		if x, ok := t.Rank(c); ok {
			return x
		}
		return ProcNull
	}
	return at(-disp), at(disp)
}

// Graph is an MPI_Graph_create graph: node i's neighbors are
// Edges[Index[i-1]:Index[i]].
type Graph struct {
	Index, Edges []int
}

// Neighbors returns rank r's neighbors (MPI_Graph_neighbors).
func (g *Graph) Neighbors(r int) []int {
	lo := 0
	if r > 0 {
		lo = g.Index[r-1]
	}
	return g.Edges[lo:g.Index[r]]
}

// DistGraph is this rank's part of a distributed graph: the ranks it
// receives from (Sources) and sends to (Dests) in a neighborhood
// collective, with their weights (zero when not Weighted).
type DistGraph struct {
	Sources, SourceWeights []int
	Dests, DestWeights     []int
	Weighted               bool
}

// topology is what a communicator carries: one of the three, or none.
type topology struct {
	cart  *Cart
	graph *Graph
	dist  *DistGraph // for a Graph too: its neighbors both ways
}

// TopoTest returns the kind of c's topology (MPI_Topo_test).
func (c *Comm) TopoTest() int {
	switch {
	case c.topo.cart != nil:
		return TopoCart
	case c.topo.graph != nil:
		return TopoGraph
	case c.topo.dist != nil:
		return TopoDistGraph
	}
	return TopoNone
}

// Cart returns c's Cartesian grid, or nil.
func (c *Comm) Cart() *Cart { return c.topo.cart }

// Graph returns c's graph, or nil.
func (c *Comm) Graph() *Graph { return c.topo.graph }

// DistGraph returns c's distributed graph (for a graph communicator, this
// rank's neighbors both ways), or nil.
func (c *Comm) DistGraph() *DistGraph { return c.topo.dist }

// CartCreate returns a communicator over the first prod(dims) ranks of c
// with a Cartesian grid (MPI_Cart_create); the other ranks get nil.
// Collective over c.
func (c *Comm) CartCreate(dims []int, periods []bool, reorder bool) (*Comm, error) {
	if err := c.check("CartCreate"); err != nil {
		return nil, err
	}
	if len(periods) != len(dims) {
		return nil, errorf(ClassArg, "CartCreate: %d periods for %d dimensions", len(periods), len(dims))
	}
	t := &Cart{Dims: slices.Clone(dims), Periods: slices.Clone(periods)}
	n := 1
	for _, d := range dims {
		if d <= 0 {
			return nil, errorf(ClassArg, "CartCreate: dimension %d", d)
		}
		if n *= d; n > c.Size() {
			return nil, errorf(ClassArg, "CartCreate: a grid of more than %d ranks", c.Size())
		}
	}
	d, err := c.firstRanks(n)
	if d != nil {
		d.topo = topology{cart: t}
	}
	return d, err
}

// firstRanks splits off the first n ranks of c, in order.
func (c *Comm) firstRanks(n int) (*Comm, error) {
	color := 0
	if c.Rank() >= n {
		color = Undefined
	}
	return c.Split(color, c.Rank())
}

// CartSub returns the sub-grids of c's grid that keep the dimensions
// where remain is true (MPI_Cart_sub). Collective over c.
func (c *Comm) CartSub(remain []bool) (*Comm, error) {
	t := c.topo.cart
	if t == nil {
		return nil, errorf(ClassComm, "CartSub on a communicator without a Cartesian topology")
	}
	if len(remain) != len(t.Dims) {
		return nil, errorf(ClassArg, "CartSub: %d flags for %d dimensions", len(remain), len(t.Dims))
	}
	me := t.Coords(c.Rank())
	color, key := 0, 0
	sub := &Cart{Dims: []int{}, Periods: []bool{}}
	for i, d := range t.Dims {
		if remain[i] {
			key = key*d + me[i]
			sub.Dims = append(sub.Dims, d)
			sub.Periods = append(sub.Periods, t.Periods[i])
		} else {
			color = color*d + me[i]
		}
	}
	d, err := c.Split(color, key)
	if d != nil {
		d.topo = topology{cart: sub}
	}
	return d, err
}

// GraphCreate returns a communicator over the first len(index) ranks of c
// with a graph (MPI_Graph_create); the other ranks get nil. Every rank
// passes the whole graph. Self-loops and repeated edges are allowed.
// Collective over c.
func (c *Comm) GraphCreate(index, edges []int, reorder bool) (*Comm, error) {
	if err := c.check("GraphCreate"); err != nil {
		return nil, err
	}
	g, err := graphArgs(c, index, edges, "GraphCreate")
	if err != nil {
		return nil, err
	}
	d, err := c.firstRanks(len(index))
	if d != nil {
		nb := g.Neighbors(d.Rank())
		w := make([]int, len(nb))
		d.topo = topology{graph: g, dist: &DistGraph{Sources: nb, SourceWeights: w, Dests: nb, DestWeights: w}}
	}
	return d, err
}

func graphArgs(c *Comm, index, edges []int, what string) (*Graph, error) {
	if len(index) > c.Size() {
		return nil, errorf(ClassArg, "%s: a graph of %d nodes over %d ranks", what, len(index), c.Size())
	}
	prev := 0
	for i, x := range index {
		if x < prev {
			return nil, errorf(ClassArg, "%s: index[%d] = %d after %d", what, i, x, prev)
		}
		prev = x
	}
	if len(edges) < prev {
		return nil, errorf(ClassArg, "%s: %d edges for an index of %d", what, len(edges), prev)
	}
	for i, e := range edges[:prev] {
		if e < 0 || e >= len(index) {
			return nil, errorf(ClassArg, "%s: edges[%d] = %d in a graph of %d nodes", what, i, e, len(index))
		}
	}
	return &Graph{Index: slices.Clone(index), Edges: slices.Clone(edges[:prev])}, nil
}

// DistGraphCreateAdjacent returns a duplicate of c with a distributed
// graph whose edges at this rank are given here: from sources, to dests
// (MPI_Dist_graph_create_adjacent). Weights may be nil for an unweighted
// graph. Collective over c.
func (c *Comm) DistGraphCreateAdjacent(sources, sweights, dests, dweights []int, reorder bool) (*Comm, error) {
	if err := c.check("DistGraphCreateAdjacent"); err != nil {
		return nil, err
	}
	for _, r := range append(slices.Clone(sources), dests...) {
		if r < 0 || r >= c.Size() {
			return nil, errorf(ClassRank, "DistGraphCreateAdjacent: neighbor %d of %d", r, c.Size())
		}
	}
	weighted := sweights != nil || dweights != nil
	if weighted && (len(sweights) != len(sources) || len(dweights) != len(dests)) {
		return nil, errorf(ClassArg, "DistGraphCreateAdjacent: weights of the wrong length")
	}
	g := &DistGraph{Sources: slices.Clone(sources), Dests: slices.Clone(dests), Weighted: weighted}
	g.SourceWeights, g.DestWeights = weightsOr(sweights, len(sources)), weightsOr(dweights, len(dests))
	d, err := c.Dup()
	if d != nil {
		d.topo = topology{dist: g}
	}
	return d, err
}

func weightsOr(w []int, n int) []int {
	if w == nil {
		return make([]int, n)
	}
	return slices.Clone(w)
}

// DistGraphCreate returns a duplicate of c with a distributed graph whose
// edges any rank may give (MPI_Dist_graph_create): edges sources[i] ->
// dests[...], degrees[i] of them for sources[i], in order. Every edge is
// sent to both its ends; each rank's edges are ordered by the rank that
// gave them, then by that rank's order. weights may be nil (unweighted);
// weighted says whether this rank gives weights (all ranks must agree,
// MPI_WEIGHTS_EMPTY being weighted without edges). Collective over c.
func (c *Comm) DistGraphCreate(sources, degrees, dests, weights []int, weighted, reorder bool) (*Comm, error) {
	if err := c.check("DistGraphCreate"); err != nil {
		return nil, err
	}
	if len(degrees) != len(sources) {
		return nil, errorf(ClassArg, "DistGraphCreate: %d degrees for %d sources", len(degrees), len(sources))
	}
	size, total := c.Size(), 0
	for i, d := range degrees {
		if d < 0 {
			return nil, errorf(ClassArg, "DistGraphCreate: degrees[%d] = %d", i, d)
		}
		if sources[i] < 0 || sources[i] >= size {
			return nil, errorf(ClassRank, "DistGraphCreate: sources[%d] = %d of %d", i, sources[i], size)
		}
		total += d
	}
	if len(dests) < total || (weighted && len(weights) < total) {
		return nil, errorf(ClassArg, "DistGraphCreate: %d destinations and %d weights for %d edges", len(dests), len(weights), total)
	}
	recs := make([][]int32, size)
	k := 0
	for i, s := range sources {
		for range degrees[i] {
			d, w := dests[k], 0
			if d < 0 || d >= size {
				return nil, errorf(ClassRank, "DistGraphCreate: destinations[%d] = %d of %d", k, d, size)
			}
			if weighted {
				w = weights[k]
			}
			recs[s] = append(recs[s], 0, int32(d), int32(w))
			recs[d] = append(recs[d], 1, int32(s), int32(w))
			k++
		}
	}
	g, err := exchangeEdges(c, recs, weighted)
	if err != nil {
		return nil, err
	}
	d, err := c.Dup()
	if d != nil {
		d.topo = topology{dist: g}
	}
	return d, err
}

// exchangeEdges sends recs[r], records (kind, other end, weight) where
// kind 0 is an out-edge of r and 1 an in-edge, to rank r and builds this
// rank's graph from what it receives; it is weighted when any rank said
// so.
func exchangeEdges(c *Comm, recs [][]int32, weighted bool) (*DistGraph, error) {
	size := c.Size()
	w := int32(0)
	if weighted {
		w = 1
	}
	sc, rc := make([]int32, 2*size), make([]int32, 2*size)
	for r := range size {
		sc[2*r], sc[2*r+1] = int32(len(recs[r])), w
	}
	if err := Alltoall(c, sc, 2, Int32, rc, 2, Int32); err != nil {
		return nil, err
	}
	g := &DistGraph{Sources: []int{}, SourceWeights: []int{}, Dests: []int{}, DestWeights: []int{}}
	sflat := []int32{}
	scs, sds, rcs, rds := make([]int, size), make([]int, size), make([]int, size), make([]int, size)
	rtotal := 0
	for r := range size {
		sds[r], scs[r] = len(sflat), len(recs[r])
		sflat = append(sflat, recs[r]...)
		rds[r], rcs[r] = rtotal, int(rc[2*r])
		rtotal += int(rc[2*r])
		g.Weighted = g.Weighted || rc[2*r+1] != 0
	}
	rflat := make([]int32, rtotal)
	if err := Alltoallv(c, sflat, scs, sds, Int32, rflat, rcs, rds, Int32); err != nil {
		return nil, err
	}
	for i := 0; i+2 < len(rflat); i += 3 {
		if rflat[i] == 0 {
			g.Dests, g.DestWeights = append(g.Dests, int(rflat[i+1])), append(g.DestWeights, int(rflat[i+2]))
		} else {
			g.Sources, g.SourceWeights = append(g.Sources, int(rflat[i+1])), append(g.SourceWeights, int(rflat[i+2]))
		}
	}
	return g, nil
}
