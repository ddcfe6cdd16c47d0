package main

import (
	"fmt"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// Stage 4: one collective kernel runs every sweep and communicates by
// itself. In each sweep the first block puts this PE's first row into the
// rank above (block-scope put-with-signal) and waits for its upper halo,
// the last block does the same downwards; the grid synchronizes, sweeps,
// and combines the residual with a grid-scope reduction across the PEs'
// kernels, which also ends the sweep for every thread.
func init() { stages[4] = stage{"kernel-issued put-with-signal + wait (kernels)", stage4} }

func stage4(c *compat.Comm, p Problem, _ Options) (Result, error) {
	g, err := newSymGrid(c, p, "stage 4")
	if err != nil {
		return Result{}, err
	}
	res, err := sweep4(c, g)
	if ferr := g.free(); err == nil {
		err = ferr
	}
	return res, err
}

func sweep4(c *compat.Comm, g *symGrid) (Result, error) {
	s, err := streams.New(g.w, streams.WithName("jacobi"))
	if err != nil {
		return Result{}, err
	}
	grid, block := g.kernelShape()
	diffs := make([]float64, grid.Count()*block.Count())
	up, down, last := g.Up(), g.Down(), g.Rows()
	team := g.w.TeamWorld()
	kernels.CollectiveLaunchOnStream(s, grid, block, func(t *kernels.Thread) {
		first, lastBlock := t.BlockRank() == 0, t.BlockRank() == grid.Count()-1
		k := 0
		for it := range g.P.Iters {
			v := uint64(it + 1)
			if first && up >= 0 {
				kernels.PutSignal(t.Block(), g.lowerHalo(up, k), g.Row(k, 1), g.sig.At(1), v, shmem.SignalSet, g.pe(up))
			}
			if lastBlock && down >= 0 {
				kernels.PutSignal(t.Block(), g.upperHalo(k), g.Row(k, last), g.sig.At(0), v, shmem.SignalSet, g.pe(down))
			}
			if first && up >= 0 {
				kernels.SignalWaitUntil(t.Block(), g.sig.At(0), shmem.CmpGE, v)
			}
			if lastBlock && down >= 0 {
				kernels.SignalWaitUntil(t.Block(), g.sig.At(1), shmem.CmpGE, v)
			}
			t.SyncGrid() // both halos are in
			d := 0.0
			for cell := t.GlobalRank(); cell < g.cells(); cell += t.GridThreads() {
				d = max(d, g.sweepCell(k, cell))
			}
			diffs[t.GlobalRank()] = d
			t.SyncGrid() // every point is swept
			if t.GlobalRank() == 0 {
				m := 0.0
				for _, d := range diffs {
					m = max(m, d)
				}
				g.lres.Local()[0] = m
			}
			kernels.Reduce(t.Grid(), team, shmem.ReduceMax, g.gres, g.lres, 1)
			k = 1 - k
		}
	}, kernels.WithName(fmt.Sprintf("jacobi %d sweeps", g.P.Iters)))
	err = s.Synchronize()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{Residual: g.gres.Local()[0]}
	res.Checksum, err = g.checksum(c, g.P.Iters%2)
	return res, err
}
