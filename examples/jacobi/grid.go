package main

import (
	"fmt"
	"math"
)

// The shared core of every stage: the problem, its decomposition into row
// blocks, the sweep, and the verification (residual and checksum). A stage
// only moves halo rows and combines the per-rank numbers; everything that
// decides the answer is here, so every stage prints the same answer.

// Problem is an N x N grid (boundary included) relaxed for Iters sweeps.
type Problem struct {
	N, Iters int
}

// Result is what every stage prints: the last sweep's largest change (the
// max-norm residual) and a checksum of the final grid. Both are exact
// whatever the number of ranks or the order of reduction: the residual is
// a MAX, the checksum a wrapping sum of the values' bit patterns.
type Result struct {
	Residual float64
	Checksum uint64
}

// Line is the last line a stage prints.
func (r Result) Line(stage int) string {
	return fmt.Sprintf("stage=%d residual=%.17g checksum=%016x", stage, r.Residual, r.Checksum)
}

// boundary is the fixed value of global point (i, j) on the edge: the top
// edge is a parabolic bump, the other edges are cold. Plain arithmetic
// with no library function, so that a C or CUDA port of the program
// (examples/c/jacobi-gpu) computes the same bits and prints the same
// checksum: libm's sin and Go's differ in the last bit at about one point
// in five.
func boundary(p Problem, i, j int) float64 {
	if i == 0 {
		t := float64(j) / float64(p.N-1)
		return 4 * t * (1 - t)
	}
	return 0
}

// rows returns the interior rows [lo, hi) of the global grid (rows 1 to
// N-2) that rank r of size owns: contiguous blocks, the first ones one row
// longer when the rows do not divide evenly.
func rows(p Problem, r, size int) (lo, hi int) {
	interior := p.N - 2
	base, extra := interior/size, interior%size
	lo = 1 + r*base + min(r, extra)
	hi = lo + base
	if r < extra {
		hi++
	}
	return lo, hi
}

// Block is one rank's part of the grid: its rows plus a halo row above and
// below, row-major, N columns wide, in two buffers (the sweep reads one
// and writes the other).
type Block struct {
	P      Problem
	Rank   int
	Size   int
	Lo, Hi int          // global interior rows owned
	Buf    [2][]float64 // (Hi-Lo+2) x N each
}

// Rows returns the number of rows owned.
func (b *Block) Rows() int { return b.Hi - b.Lo }

// Row returns local row i (0 is the upper halo, Rows()+1 the lower) of
// buffer k.
func (b *Block) Row(k, i int) []float64 { return b.Buf[k][i*b.P.N : (i+1)*b.P.N] }

// NewBlock lays out rank r's block over bufs (or new memory when nil) and
// fills both buffers: zero inside, boundary values on the edges (and in the
// halo rows that are the global boundary).
func NewBlock(p Problem, r, size int, bufs [2][]float64) (*Block, error) {
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("jacobi: %w", err)
	}
	if size > p.N-2 {
		return nil, fmt.Errorf("jacobi: %d ranks for %d interior rows: use fewer ranks or a larger -n", size, p.N-2)
	}
	lo, hi := rows(p, r, size)
	b := &Block{P: p, Rank: r, Size: size, Lo: lo, Hi: hi, Buf: bufs}
	for k := range 2 {
		if b.Buf[k] == nil {
			b.Buf[k] = make([]float64, BlockLen(p, r, size))
		}
		for i := 0; i < b.Rows()+2; i++ {
			g := lo - 1 + i // global row
			row := b.Row(k, i)
			for j := range row {
				row[j] = 0
				if g == 0 || g == p.N-1 || j == 0 || j == p.N-1 {
					row[j] = boundary(p, g, j)
				}
			}
		}
	}
	return b, nil
}

// BlockLen is the length of one buffer of rank r's block.
func BlockLen(p Problem, r, size int) int {
	lo, hi := rows(p, r, size)
	return (hi - lo + 2) * p.N
}

// Sweep computes buffer 1-k from buffer k (whose halo rows must be
// current) and returns the largest change.
func (b *Block) Sweep(k int) float64 {
	n := b.P.N
	src, dst := b.Buf[k], b.Buf[1-k]
	diff := 0.0
	for i := 1; i <= b.Rows(); i++ {
		for j := 1; j < n-1; j++ {
			v := 0.25 * (src[(i-1)*n+j] + src[(i+1)*n+j] + src[i*n+j-1] + src[i*n+j+1])
			dst[i*n+j] = v
			diff = max(diff, math.Abs(v-src[i*n+j]))
		}
	}
	return diff
}

// Checksum returns this rank's share of the checksum of buffer k: the rows
// it owns, plus the global boundary row it borders (the first rank the
// top one, the last rank the bottom one).
func (b *Block) Checksum(k int) uint64 {
	first, last := 1, b.Rows()
	if b.Lo == 1 {
		first = 0
	}
	if b.Hi == b.P.N-1 {
		last = b.Rows() + 1
	}
	var sum uint64
	for i := first; i <= last; i++ {
		for _, v := range b.Row(k, i) {
			sum += math.Float64bits(v)
		}
	}
	return sum
}

// Up and Down are the neighbouring ranks, or -1 at the edges.
func (b *Block) Up() int {
	if b.Rank == 0 {
		return -1
	}
	return b.Rank - 1
}

func (b *Block) Down() int {
	if b.Rank == b.Size-1 {
		return -1
	}
	return b.Rank + 1
}

// Solve is the sequential reference: one rank, no communication.
func Solve(p Problem) (Result, error) {
	b, err := NewBlock(p, 0, 1, [2][]float64{})
	if err != nil {
		return Result{}, err
	}
	var res Result
	k := 0
	for range p.Iters {
		res.Residual = b.Sweep(k)
		k = 1 - k
	}
	res.Checksum = b.Checksum(k)
	return res, nil
}

// check says what is wrong with p, naming the flag that sets it.
func (p Problem) check() error {
	switch {
	case p.N < 3:
		return fmt.Errorf("-n %d: the grid needs at least 3 x 3 points (a boundary around one interior point)", p.N)
	case p.Iters < 0:
		return fmt.Errorf("-iters %d: want 0 or more sweeps", p.Iters)
	}
	return nil
}
