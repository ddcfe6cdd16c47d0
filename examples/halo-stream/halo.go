package main

import (
	"fmt"

	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// A 1-D Jacobi sweep (u'[i] = (u[i-1] + u[i+1]) / 2) over a line of cells
// split evenly across the PEs, with fixed values at the two ends of the
// line. Every PE holds its cells plus one halo cell on each side, in two
// symmetric buffers (the sweep reads one and writes the other), and after
// each sweep sends its edge cells into its neighbours' halos with
// put-with-signal. The signal words count sweeps: sig[0] says "your left
// halo holds sweep k", sig[1] the same for the right halo.
//
// Two buffers are enough: a PE writes a neighbour's buffer for sweep k+1
// only after the neighbour's signal for sweep k, which the neighbour sends
// once it has finished reading that buffer.

// Left and right boundary values of the whole line.
const (
	leftEdge  = 1.0
	rightEdge = -0.5
)

// Domain is one PE's part of the line.
type Domain struct {
	w     *shmem.World
	n     int                   // cells of this PE
	buf   [2]shmem.Sym[float64] // n+2: halo, cells, halo
	sig   shmem.Sym[uint64]     // [0] left halo, [1] right halo
	left  int                   // neighbour PEs, -1 at the ends
	right int
}

// NewDomain allocates the buffers (collective) and fills them with the
// initial state: cell g of the line starts at initial(g).
func NewDomain(w *shmem.World, n int) (*Domain, error) {
	d := &Domain{w: w, n: n, left: w.MyPE() - 1, right: w.MyPE() + 1}
	if d.right == w.NPEs() {
		d.right = -1
	}
	for i := range d.buf {
		b, err := shmem.Calloc[float64](w, n+2)
		if err != nil {
			return nil, err
		}
		d.buf[i] = b
	}
	sig, err := shmem.Calloc[uint64](w, 2)
	if err != nil {
		return nil, err
	}
	d.sig = sig
	first := w.MyPE() * n
	for _, b := range d.buf {
		u := b.Local()
		for i := 1; i <= n; i++ {
			u[i] = initial(first + i - 1)
		}
		if d.left < 0 {
			u[0] = leftEdge
		} else {
			u[0] = initial(first - 1)
		}
		if d.right < 0 {
			u[n+1] = rightEdge
		} else {
			u[n+1] = initial(first + n)
		}
	}
	return d, w.BarrierAll()
}

// Free releases the buffers (collective).
func (d *Domain) Free() error {
	for _, b := range d.buf {
		if err := shmem.Free(b); err != nil {
			return err
		}
	}
	return shmem.Free(d.sig)
}

func initial(g int) float64 { return float64((g*7919)%101) / 100 }

// Cells returns a copy of this PE's cells after sweeps sweeps.
func (d *Domain) Cells(sweeps int) []float64 {
	return append([]float64(nil), d.buf[sweeps%2].Local()[1:d.n+1]...)
}

// sweep computes cells [lo, hi) of the next state from the current one.
func sweep(next, cur []float64, lo, hi int) {
	for i := lo + 1; i <= hi; i++ {
		next[i] = 0.5 * (cur[i-1] + cur[i+1])
	}
}

// RunHost is the host-driven form (stages 1 and 2 in spirit): the host
// thread computes, puts with signal and waits, sweep by sweep.
func (d *Domain) RunHost(sweeps int) error {
	for k := range sweeps {
		cur, next := d.buf[k%2], d.buf[(k+1)%2]
		sweep(next.Local(), cur.Local(), 0, d.n)
		v := uint64(k + 1)
		if d.left >= 0 {
			if err := shmem.PutSignal(next.Slice(d.n+1, d.n+2), next.Local()[1:2], d.sig.At(1), v, shmem.SignalSet, d.left); err != nil {
				return err
			}
		}
		if d.right >= 0 {
			if err := shmem.PutSignal(next.Slice(0, 1), next.Local()[d.n:d.n+1], d.sig.At(0), v, shmem.SignalSet, d.right); err != nil {
				return err
			}
		}
		if d.left >= 0 {
			if _, err := shmem.SignalWaitUntil(d.sig.At(0), shmem.CmpGE, v); err != nil {
				return err
			}
		}
		if d.right >= 0 {
			if _, err := shmem.SignalWaitUntil(d.sig.At(1), shmem.CmpGE, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Block is the thread-block size of the kernels.
const Block = 64

func grid(n int) kernels.Dim3 { return kernels.Dim(min(4, (n+Block-1)/Block)) }

// IssueStream is stage 3: every sweep is a compute kernel followed by the
// halo exchange as on-stream put-with-signal and on-stream signal waits,
// all issued on s; the host thread issues every sweep up front and
// returns at once. Synchronize s to wait for the result.
func (d *Domain) IssueStream(s *streams.Stream, sweeps int) {
	for k := range sweeps {
		cur, next := d.buf[k%2].Local(), d.buf[(k+1)%2]
		nl := next.Local()
		kernels.LaunchOnStream(s, grid(d.n), kernels.Dim(Block), func(t *kernels.Thread) {
			for i := t.GlobalRank(); i < d.n; i += t.GridThreads() {
				sweep(nl, cur, i, i+1)
			}
		}, kernels.WithName(fmt.Sprintf("sweep %d", k)))
		v := uint64(k + 1)
		if d.left >= 0 {
			streams.PutSignalOnStream(s, next.Slice(d.n+1, d.n+2), nl[1:2], d.sig.At(1), v, shmem.SignalSet, d.left)
		}
		if d.right >= 0 {
			streams.PutSignalOnStream(s, next.Slice(0, 1), nl[d.n:d.n+1], d.sig.At(0), v, shmem.SignalSet, d.right)
		}
		if d.left >= 0 {
			streams.SignalWaitUntilOnStream(s, d.sig.At(0), shmem.CmpGE, v)
		}
		if d.right >= 0 {
			streams.SignalWaitUntilOnStream(s, d.sig.At(1), shmem.CmpGE, v)
		}
	}
}

// IssueKernel is stage 4: one collective kernel runs every sweep and does
// the halo exchange itself. After each sweep the grid synchronizes; the
// first block sends the left edge and waits for the left halo, the last
// block does the same on the right (block-scope put-with-signal and signal
// wait), and the grid synchronizes again before the next sweep.
func (d *Domain) IssueKernel(s *streams.Stream, sweeps int) {
	g := grid(d.n)
	kernels.CollectiveLaunchOnStream(s, g, kernels.Dim(Block), func(t *kernels.Thread) {
		first, last := t.BlockRank() == 0, t.BlockRank() == g.Count()-1
		for k := range sweeps {
			cur, next := d.buf[k%2].Local(), d.buf[(k+1)%2]
			nl := next.Local()
			for i := t.GlobalRank(); i < d.n; i += t.GridThreads() {
				sweep(nl, cur, i, i+1)
			}
			t.SyncGrid()
			v := uint64(k + 1)
			if first && d.left >= 0 {
				kernels.PutSignal(t.Block(), next.Slice(d.n+1, d.n+2), nl[1:2], d.sig.At(1), v, shmem.SignalSet, d.left)
			}
			if last && d.right >= 0 {
				kernels.PutSignal(t.Block(), next.Slice(0, 1), nl[d.n:d.n+1], d.sig.At(0), v, shmem.SignalSet, d.right)
			}
			if first && d.left >= 0 {
				kernels.SignalWaitUntil(t.Block(), d.sig.At(0), shmem.CmpGE, v)
			}
			if last && d.right >= 0 {
				kernels.SignalWaitUntil(t.Block(), d.sig.At(1), shmem.CmpGE, v)
			}
			t.SyncGrid()
		}
	}, kernels.WithName("jacobi"))
}

// Serial computes the whole line on one processor, for checking.
func Serial(npes, n, sweeps int) []float64 {
	total := npes * n
	bufs := [2][]float64{make([]float64, total+2), make([]float64, total+2)}
	for _, u := range bufs {
		u[0], u[total+1] = leftEdge, rightEdge
		for g := range total {
			u[g+1] = initial(g)
		}
	}
	for k := range sweeps {
		sweep(bufs[(k+1)%2], bufs[k%2], 0, total)
	}
	return bufs[sweeps%2][1 : total+1]
}
