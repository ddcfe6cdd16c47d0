package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
)

// The device World's exchange for the rooted and v-collectives
// (coll_devv.go) run on a host World with host buffers: the same results
// as the host path, in many rounds of a small scratch, with non-contiguous
// datatypes, and errors every member agrees on. The GPU runs it on device
// buffers (test/gpu: compatV).

func TestDeviceExchangeOnHost(t *testing.T) {
	run(t, 5, func(t *petest.T, e *compat.Env, world *compat.Comm) {
		half, err := world.Split(world.Rank()%2, -world.Rank())
		require.NoError(t, err)
		for _, c := range []*compat.Comm{world, half, e.CommSelf()} {
			checkCollectives(t, c)
			checkLarge(t, c)
			checkVRounds(t, c)
		}
		require.NoError(t, half.Free())
	}, compat.WithScratchSize(4096), compat.WithDeviceExchange())
}

// checkVRounds runs the v-collectives on blocks far above a 4 KiB
// scratch's slots, some through a strided datatype.
func checkVRounds(t *petest.T, c *compat.Comm) {
	me, n := c.Rank(), c.Size()
	const k = 3001
	root := n - 1
	// Gatherv into a strided receive (every other int32).
	every2 := compat.Vector(k, 1, 2, compat.Int32)
	const ext = 2*k - 1 // every2's extent, in int32
	counts, displs := make([]int, n), make([]int, n)
	for i := range n {
		counts[i], displs[i] = 1, n-1-i // in extents: backwards
	}
	var g []int32
	if me == root {
		g = make([]int32, ext*n)
		for i := range g {
			g[i] = -1
		}
	}
	require.NoError(t, compat.Gatherv(c, vals[int32](me, k), k, compat.Int32, g, counts, displs, every2, root))
	if me == root {
		for i := range n {
			at := (n - 1 - i) * ext
			want := vals[int32](i, k)
			for x := range k {
				require.Equal(t, want[x], g[at+2*x], "Gatherv: rank %d element %d", i, x)
				if x < k-1 {
					require.Equal(t, int32(-1), g[at+2*x+1], "Gatherv: gap after rank %d element %d", i, x)
				}
			}
		}
	}
	// Scatterv from a strided send.
	var src []int32
	if me == root {
		src = make([]int32, ext*n)
		for i := range n {
			at := (n - 1 - i) * ext
			for x, v := range vals[int32](i, k) {
				src[at+2*x] = v
			}
		}
	}
	got := make([]int32, k)
	require.NoError(t, compat.Scatterv(c, src, counts, displs, every2, got, k, compat.Int32, root))
	require.Equal(t, vals[int32](me, k), got)
	// Allgatherv of rank-dependent sizes, and Alltoallv in place.
	ac, ad, total := make([]int, n), make([]int, n), 0
	for i := range n {
		ac[i], ad[i] = k+i*100, total
		total += k + i*100 + 1
	}
	ag := make([]int64, total)
	require.NoError(t, compat.Allgatherv(c, vals[int64](me, ac[me]), ac[me], compat.Int64, ag, ac, ad, compat.Int64))
	for i := range n {
		require.Equal(t, vals[int64](i, ac[i]), ag[ad[i]:ad[i]+ac[i]], "Allgatherv: rank %d", i)
	}
	// In place: member j's block of member me's buffer holds what me
	// sends j, then what j sent me; all blocks k elements.
	io := make([]int64, n*k)
	for j := range n {
		for x := range k {
			io[j*k+x] = int64(me*1_000_000 + j*10_000 + x)
		}
	}
	uc, ud := make([]int, n), make([]int, n)
	for j := range n {
		uc[j], ud[j] = k, j*k
	}
	require.NoError(t, compat.Alltoallv(c, compat.InPlace[int64](), nil, nil, compat.Int64, io, uc, ud, compat.Int64))
	for j := range n {
		for x := range k {
			require.Equal(t, int64(j*1_000_000+me*10_000+x), io[j*k+x], "Alltoallv in place: from %d element %d", j, x)
		}
	}
}

// TestDeviceExchangeErrors: a member's bad arguments and a sender's
// excess reach every member as errors before any data moves, and the
// communicator works after.
func TestDeviceExchangeErrors(t *testing.T) {
	run(t, 3, func(t *petest.T, e *compat.Env, c *compat.Comm) {
		me, n := c.Rank(), c.Size()
		counts, displs := []int{2, 2, 2}, []int{0, 2, 4}
		if me == 0 {
			counts = []int{2, -1, 2} // only the root's counts matter, and are bad
		}
		g := make([]int32, 6)
		err := compat.Gatherv(c, []int32{1, 2}, 2, compat.Int32, g, counts, displs, compat.Int32, 0)
		require.Equal(t, compat.ClassCount, compat.ClassOf(err), "Gatherv with a bad count at the root: %v", err)

		// Member 1 sends member 2 three elements where member 2 takes two.
		sc, sd := []int{1, 1, 1}, []int{0, 1, 2}
		if me == 1 {
			sc, sd = []int{1, 1, 3}, []int{0, 1, 2}
		}
		rc, rd := []int{1, 1, 2}, []int{0, 1, 2}
		if me != 2 {
			rc = []int{1, 1, 1}
		}
		err = compat.Alltoallv(c, make([]int32, 5), sc, sd, compat.Int32, make([]int32, 4), rc, rd, compat.Int32)
		require.Equal(t, compat.ClassTruncate, compat.ClassOf(err), "Alltoallv with a sender's excess: %v", err)

		ag := make([]int32, n)
		require.NoError(t, compat.Allgatherv(c, []int32{int32(me)}, 1, compat.Int32, ag, []int{1, 1, 1}, []int{0, 1, 2}, compat.Int32))
		require.Equal(t, []int32{0, 1, 2}, ag)
	}, compat.WithScratchSize(4096), compat.WithDeviceExchange())
}
