package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// Cartesian grids, graphs and distributed graphs: creation over the first
// ranks, the queries, Dup keeping the topology, and the edges of a
// distributed graph that rank 0 alone gives reaching both their ends.
func TestTopologies(t *testing.T) {
	run(t, 4, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me := c.Rank()
		require.Equal(t, compat.TopoNone, c.TopoTest())

		g, err := c.CartCreate([]int{2, 2}, []bool{true, false}, false)
		require.NoError(t, err)
		require.Equal(t, compat.TopoCart, g.TopoTest())
		ct := g.Cart()
		require.Equal(t, []int{me / 2, me % 2}, ct.Coords(me))
		r, ok := ct.Rank([]int{-1, 1})
		require.True(t, ok)
		require.Equal(t, 3, r)
		_, ok = ct.Rank([]int{0, 2})
		require.False(t, ok, "off a non-periodic edge")
		src, dst := ct.Shift(me, 1, 1)
		if me%2 == 0 {
			require.Equal(t, compat.ProcNull, src)
			require.Equal(t, me+1, dst)
		}
		d, err := g.Dup()
		require.NoError(t, err)
		require.Equal(t, compat.TopoCart, d.TopoTest())
		sub, err := g.CartSub([]bool{false, true})
		require.NoError(t, err)
		require.Equal(t, 2, sub.Size())
		require.Equal(t, []int{2}, sub.Cart().Dims)
		for _, x := range []*compat.Comm{d, sub, g} {
			require.NoError(t, x.Free())
		}
		_, err = c.CartCreate([]int{3, 2}, []bool{false, false}, false)
		require.ErrorIs(t, err, compat.ErrArg, "6 ranks of 4")

		line, err := c.CartCreate([]int{3}, []bool{false}, false)
		require.NoError(t, err)
		require.Equal(t, me == 3, line == nil, "the rank past the grid gets nil")
		if line != nil {
			require.NoError(t, line.Free())
		}

		// A ring of 3 nodes as a graph: rank 3 is outside it.
		gr, err := c.GraphCreate([]int{2, 4, 6}, []int{2, 1, 0, 2, 1, 0}, false)
		require.NoError(t, err)
		if me == 3 {
			require.Nil(t, gr)
		} else {
			require.Equal(t, compat.TopoGraph, gr.TopoTest())
			require.Equal(t, []int{(me + 2) % 3, (me + 1) % 3}, gr.Graph().Neighbors(me))
			require.Equal(t, gr.Graph().Neighbors(me), gr.DistGraph().Dests)
			require.NoError(t, gr.Free())
		}
		_, err = c.GraphCreate([]int{1}, []int{5}, false)
		require.ErrorIs(t, err, compat.ErrArg)

		var srcs, degs, dsts, ws []int
		if me == 0 {
			for r := range 4 {
				srcs, degs = append(srcs, r), append(degs, 2)
				for k := 1; k <= 2; k++ {
					dsts, ws = append(dsts, (r+k)%4), append(ws, 10*r+(r+k)%4)
				}
			}
		}
		dg, err := c.DistGraphCreate(srcs, degs, dsts, ws, true, false)
		require.NoError(t, err)
		require.Equal(t, compat.TopoDistGraph, dg.TopoTest())
		x := dg.DistGraph()
		require.True(t, x.Weighted)
		require.ElementsMatch(t, []int{(me + 3) % 4, (me + 2) % 4}, x.Sources)
		require.ElementsMatch(t, []int{(me + 1) % 4, (me + 2) % 4}, x.Dests)
		for i, s := range x.Sources {
			require.Equal(t, 10*s+me, x.SourceWeights[i])
		}
		require.NoError(t, dg.Free())

		ad, err := c.DistGraphCreateAdjacent([]int{(me + 3) % 4}, nil, []int{(me + 1) % 4}, nil, false)
		require.NoError(t, err)
		require.False(t, ad.DistGraph().Weighted)
		require.NoError(t, ad.Free())
	})
}
