package main

import "github.com/gshmem/gshmem/compat"

// Stage 1: the MPI code as it was, on compat. Each sweep exchanges halo
// rows with MPI_Sendrecv (MPI_PROC_NULL at the edges) and combines the
// residual with MPI_Allreduce(MPI_MAX).
func init() { stages[1] = stage{"MPI Sendrecv + Allreduce (compat)", stage1} }

func stage1(c *compat.Comm, p Problem, _ Options) (Result, error) {
	b, err := NewBlock(p, c.Rank(), c.Size(), [2][]float64{})
	if err != nil {
		return Result{}, err
	}
	up, down := orNull(b.Up()), orNull(b.Down())
	n, last := p.N, b.Rows()
	var res Result
	k := 0
	for range p.Iters {
		// My first row goes up, my lower halo comes from below; then the
		// other way.
		if _, err := compat.Sendrecv(c, b.Row(k, 1), n, compat.Float64, up, 0,
			b.Row(k, last+1), n, compat.Float64, down, 0); err != nil {
			return res, err
		}
		if _, err := compat.Sendrecv(c, b.Row(k, last), n, compat.Float64, down, 1,
			b.Row(k, 0), n, compat.Float64, up, 1); err != nil {
			return res, err
		}
		local := []float64{b.Sweep(k)}
		if err := compat.Allreduce(c, compat.InPlace[float64](), local, 1, compat.Float64, compat.OpMax); err != nil {
			return res, err
		}
		res.Residual = local[0]
		k = 1 - k
	}
	sum := []uint64{b.Checksum(k)}
	if err := compat.Allreduce(c, compat.InPlace[uint64](), sum, 1, compat.Uint64, compat.OpSum); err != nil {
		return res, err
	}
	res.Checksum = sum[0]
	return res, nil
}

func orNull(r int) int {
	if r < 0 {
		return compat.ProcNull
	}
	return r
}
