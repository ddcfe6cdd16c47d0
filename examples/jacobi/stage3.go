package main

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
	"github.com/gshmem/gshmem/windows"
)

// Stage 3: every sweep is issued on a stream and the host thread issues
// them all up front. A sweep is the halo exchange as on-stream
// put-with-signal (each edge row straight into the neighbour's halo row,
// with a signal carrying the sweep number) and on-stream signal waits,
// then the sweep as a kernel on the stream, then the residual as an
// on-stream reduction (MAX) across the PEs.
func init() { stages[3] = stage{"stream-ordered put-with-signal + wait (streams)", stage3} }

// symGrid is a Block whose two buffers live in the memory of stage 2's
// window (windows.AllocateOf, then Win.Memory: the same object stage 2
// puts into with windows.Put), so that neighbours can put into its halo
// rows on a stream, with the signal words that say a halo row has arrived.
type symGrid struct {
	*Block
	c      *compat.Comm
	w      *shmem.World
	win    *windows.Win
	mem    shmem.Sym[float64] // buffer k at k*stride
	stride int                // elements per buffer: the largest block's length
	words  shmem.Sym[byte]    // sig, lres and gres
	sig    shmem.Sym[uint64]  // [0]: upper halo in, [1]: lower halo in (value: sweep+1)
	lres   shmem.Sym[float64] // this PE's residual of the sweep
	gres   shmem.Sym[float64] // the residual across PEs
}

func newSymGrid(c *compat.Comm, p Problem, stageName string) (*symGrid, error) {
	w := c.World()
	if c.Size() != w.NPEs() {
		// The residual is a reduction on the world team.
		return nil, fmt.Errorf("jacobi %s: the on-stream reduction spans the world; run it on CommWorld", stageName)
	}
	g := &symGrid{c: c, w: w, stride: BlockLen(p, 0, c.Size())} // rank 0's block is the largest
	var err error
	// Stage 2's window, whose memory becomes the stream's put target.
	if g.win, _, err = windows.AllocateOf[float64](c, 2*g.stride, nil); err != nil {
		return nil, err
	}
	if g.mem, err = windows.MemoryOf[float64](g.win); err != nil {
		return nil, errors.Join(err, g.win.Free())
	}
	// The signal words and residuals: 2 + 1 + 1 words of symmetric memory.
	words, err := c.AllocSymmetric(4 * 8)
	if err != nil {
		return nil, errors.Join(err, g.win.Free())
	}
	g.words = words
	if g.sig, err = shmem.View[uint64](words.Slice(0, 16)); err == nil {
		if g.lres, err = shmem.View[float64](words.Slice(16, 24)); err == nil {
			g.gres, err = shmem.View[float64](words.Slice(24, 32))
		}
	}
	if err != nil {
		return nil, errors.Join(err, g.free())
	}
	blen := BlockLen(p, c.Rank(), c.Size())
	m := g.mem.Local()
	if g.Block, err = NewBlock(p, c.Rank(), c.Size(), [2][]float64{m[:blen], m[g.stride : g.stride+blen]}); err != nil {
		return nil, errors.Join(err, g.free())
	}
	return g, c.Barrier() // every PE's halos are initialized before anyone puts
}

func (g *symGrid) free() error {
	return errors.Join(g.c.FreeSymmetric(g.words), g.win.Free())
}

// pe is the world PE of rank r, which shmem and streams calls name.
func (g *symGrid) pe(r int) int { return g.win.PE(r) }

// upperHalo and lowerHalo are the halo rows of buffer k of rank r, as
// symmetric objects (the same offsets on every PE, used as put targets).
func (g *symGrid) upperHalo(k int) shmem.Sym[float64] {
	off := k * g.stride
	return g.mem.Slice(off, off+g.P.N)
}

func (g *symGrid) lowerHalo(r, k int) shmem.Sym[float64] {
	lo, hi := rows(g.P, r, g.Size)
	off := k*g.stride + (hi-lo+1)*g.P.N
	return g.mem.Slice(off, off+g.P.N)
}

// cells is the number of interior points of the block; cell c is row
// c/(N-2)+1, column c%(N-2)+1.
func (g *symGrid) cells() int { return g.Rows() * (g.P.N - 2) }

// sweepCell computes one point of buffer 1-k from buffer k and returns its
// change, exactly as Block.Sweep does.
func (g *symGrid) sweepCell(k, c int) float64 {
	n := g.P.N
	i, j := c/(n-2)+1, c%(n-2)+1
	src, dst := g.Buf[k], g.Buf[1-k]
	v := 0.25 * (src[(i-1)*n+j] + src[(i+1)*n+j] + src[i*n+j-1] + src[i*n+j+1])
	dst[i*n+j] = v
	return math.Abs(v - src[i*n+j])
}

// kernelShape is the grid of the sweep kernels: up to 4 blocks of 64.
func (g *symGrid) kernelShape() (kernels.Dim3, kernels.Dim3) {
	return kernels.Dim(max(1, min(4, (g.cells()+63)/64))), kernels.Dim(64)
}

// checksum combines the ranks' checksums of buffer k as the other stages do.
func (g *symGrid) checksum(c *compat.Comm, k int) (uint64, error) {
	sum := []uint64{g.Checksum(k)}
	err := compat.Allreduce(c, compat.InPlace[uint64](), sum, 1, compat.Uint64, compat.OpSum)
	return sum[0], err
}

func stage3(c *compat.Comm, p Problem, _ Options) (Result, error) {
	g, err := newSymGrid(c, p, "stage 3")
	if err != nil {
		return Result{}, err
	}
	res, err := sweep3(c, g)
	if ferr := g.free(); err == nil {
		err = ferr
	}
	return res, err
}

func sweep3(c *compat.Comm, g *symGrid) (Result, error) {
	s, err := streams.New(g.w, streams.WithName("jacobi"))
	if err != nil {
		return Result{}, err
	}
	grid, block := g.kernelShape()
	diffs := make([]float64, grid.Count()*block.Count()) // one per kernel thread
	last := g.Rows()
	k := 0
	for it := range g.P.Iters {
		v := uint64(it + 1)
		// The halo exchange: my first row into the lower halo of the rank
		// above, my last row into the upper halo of the rank below, each
		// with its signal; then wait for my own two halos.
		if up := g.Up(); up >= 0 {
			streams.PutSignalOnStream(s, g.lowerHalo(up, k), g.Row(k, 1), g.sig.At(1), v, shmem.SignalSet, g.pe(up))
		}
		if down := g.Down(); down >= 0 {
			streams.PutSignalOnStream(s, g.upperHalo(k), g.Row(k, last), g.sig.At(0), v, shmem.SignalSet, g.pe(down))
		}
		if g.Up() >= 0 {
			streams.SignalWaitUntilOnStream(s, g.sig.At(0), shmem.CmpGE, v)
		}
		if g.Down() >= 0 {
			streams.SignalWaitUntilOnStream(s, g.sig.At(1), shmem.CmpGE, v)
		}
		// The sweep, a kernel on the stream: one point per thread and step.
		kk := k
		kernels.LaunchOnStream(s, grid, block, func(t *kernels.Thread) {
			d := 0.0
			for cell := t.GlobalRank(); cell < g.cells(); cell += t.GridThreads() {
				d = max(d, g.sweepCell(kk, cell))
			}
			diffs[t.GlobalRank()] = d
		}, kernels.WithName(fmt.Sprintf("sweep %d", it)))
		// The residual: this PE's largest change, then MAX across PEs.
		s.Enqueue("local residual", func(context.Context) error {
			m := 0.0
			for _, d := range diffs {
				m = max(m, d)
			}
			g.lres.Local()[0] = m
			return nil
		})
		streams.ReduceOnStream(s, g.w.TeamWorld(), shmem.ReduceMax, g.gres, g.lres, 1)
		k = 1 - k
	}
	err = s.Synchronize()
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{Residual: g.gres.Local()[0]}
	res.Checksum, err = g.checksum(c, k)
	return res, err
}
