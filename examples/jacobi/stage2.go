package main

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/windows"
)

// Stage 2: halo rows move by one-sided puts into the neighbours' windows.
// Both buffers of the block live in one window (MPI_Win_allocate) over the
// communicator, buffer k at displacement k*stride, where stride is the
// largest block's length (rank 0's), the same on every rank so that
// stages 3 and 4 can use the window's memory as a symmetric object; a rank
// puts its edge rows straight into its
// neighbours' halo rows, synchronized by MPI_Win_fence (-sync fence) or by
// post/start/complete/wait with just the neighbours (-sync pscw). The
// residual still goes through MPI_Allreduce.
func init() { stages[2] = stage{"MPI-3 RMA windows: Put + Fence or PSCW", stage2} }

func stage2(c *compat.Comm, p Problem, o Options) (Result, error) {
	me, size := c.Rank(), c.Size()
	blen, stride := BlockLen(p, me, size), BlockLen(p, 0, size)
	win, mem, err := windows.AllocateOf[float64](c, 2*stride, nil)
	if err != nil {
		return Result{}, err
	}
	res, err := sweep2(c, win, p, o, stride, [2][]float64{mem[:blen], mem[stride : stride+blen]})
	if ferr := win.Free(); err == nil {
		err = ferr
	}
	return res, err
}

func sweep2(c *compat.Comm, win *windows.Win, p Problem, o Options, stride int, bufs [2][]float64) (Result, error) {
	b, err := NewBlock(p, c.Rank(), c.Size(), bufs)
	if err != nil {
		return Result{}, err
	}
	n, last := p.N, b.Rows()
	var ranks []int
	for _, r := range []int{b.Up(), b.Down()} {
		if r >= 0 {
			ranks = append(ranks, r)
		}
	}
	g, err := c.Group()
	if err != nil {
		return Result{}, err
	}
	neighbours, err := g.Incl(ranks) // MPI_Group_incl, made once
	if err != nil {
		return Result{}, err
	}
	// Where a neighbour's halo rows are in its window: its buffer k starts
	// at k times the stride.
	halo := func(r, k int, below bool) int {
		d := k * stride
		if below {
			lo, hi := rows(p, r, b.Size)
			d += (hi - lo + 1) * n
		}
		return d
	}
	var res Result
	k := 0
	if o.Sync == "fence" {
		if err := win.Fence(windows.ModeNoPrecede); err != nil {
			return res, err
		}
	}
	for range p.Iters {
		if o.Sync == "pscw" {
			if err := win.Post(neighbours, 0); err != nil {
				return res, err
			}
			if err := win.Start(neighbours, 0); err != nil {
				return res, err
			}
		}
		if up := b.Up(); up >= 0 { // my first row into the lower halo of the rank above
			if err := windows.Put(win, b.Row(k, 1), up, halo(up, k, true)); err != nil {
				return res, err
			}
		}
		if down := b.Down(); down >= 0 { // my last row into the upper halo of the rank below
			if err := windows.Put(win, b.Row(k, last), down, halo(down, k, false)); err != nil {
				return res, err
			}
		}
		if o.Sync == "pscw" {
			if err := win.Complete(); err != nil {
				return res, err
			}
			if err := win.Wait(); err != nil {
				return res, err
			}
		} else if err := win.Fence(0); err != nil {
			return res, err
		}
		local := []float64{b.Sweep(k)}
		if err := compat.Allreduce(c, compat.InPlace[float64](), local, 1, compat.Float64, compat.OpMax); err != nil {
			return res, err
		}
		res.Residual = local[0]
		k = 1 - k
	}
	if o.Sync == "fence" {
		if err := win.Fence(windows.ModeNoSucceed); err != nil {
			return res, err
		}
	}
	sum := []uint64{b.Checksum(k)}
	if err := compat.Allreduce(c, compat.InPlace[uint64](), sum, 1, compat.Uint64, compat.OpSum); err != nil {
		return res, err
	}
	res.Checksum = sum[0]
	return res, nil
}
