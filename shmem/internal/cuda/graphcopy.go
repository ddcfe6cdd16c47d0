//go:build cuda

package cuda

import (
	"sync"

	"github.com/gshmem/gshmem/internal/cudadrv"
)

const (
	// maxCopyGraphs bounds the streams that get a copy graph; copies on
	// further streams go to cuMemcpyDtoDAsync.
	maxCopyGraphs = 64
	// graphCopyMax is the largest copy launched through a graph: a graph's
	// copy node moved 1 GiB at 1354 GB/s where cuMemcpyDtoDAsync reached
	// 2117 GB/s, and above some hundreds of KiB the launch cost no longer
	// matters.
	graphCopyMax = 256 << 10
)

// copyGraphs enqueues the domain's small device-to-device copies within
// its GPU (stream puts and gets, host-initiated puts and gets of device
// data) through a one-copy graph per stream whose operands are set at each
// launch. On the one-H200 machine this backend was measured on, a graph
// launch costs the host 1.6-2.7 us where cuMemcpyDtoDAsync or a kernel
// launch costs 4-5.5 us, and an 8-byte stream put is nothing but that cost.
// Between two H200s the graph's copy cost more than cuMemcpyDtoDAsync (4.3
// against 2.8 us), so copies to or from another GPU stay plain
// (test/gpu/RESULTS.md).
//
// One graph per stream, not one per domain: the driver orders the launches
// of one graph after each other across streams, which would tie a stream
// held by a wait to every other stream's puts.
type copyGraphs struct {
	mu      sync.Mutex
	capture cudadrv.Stream // private: capturing on a caller's stream would take in their work
	m       map[cudadrv.Stream]*copyGraph
	off     bool // the driver lacks graphs, or one could not be made: plain copies
}

type copyGraph struct {
	mu sync.Mutex // a launch sets the operands first: one at a time
	g  cudadrv.CopyGraph
	// plain is set once the graph refused operands: that stream's copies
	// go to cuMemcpyDtoDAsync.
	plain bool
}

// copy enqueues a copy of n bytes from src to dst on s, between this PE
// and pe.
func (d *Domain) copy(s cudadrv.Stream, pe int, dst, src cudadrv.DevPtr, n uint64) error {
	if n == 0 {
		return nil
	}
	if n > graphCopyMax || d.peerOrd[pe] != d.ord {
		return d.ctx.CopyDtoDAsync(dst, src, n, s)
	}
	if g := d.copyGraph(s, dst, src, n); g != nil {
		g.mu.Lock()
		if !g.plain {
			launched, err := d.ctx.LaunchCopy(g.g, s, dst, src, n)
			if err == nil && launched {
				g.mu.Unlock()
				return nil
			}
			if err != nil {
				g.plain = true
				d.logf("stream copies on %#x without a graph from now on: %v", s.Uintptr(), err)
			}
		}
		g.mu.Unlock()
	}
	return d.ctx.CopyDtoDAsync(dst, src, n, s)
}

// copyGraph returns s's copy graph, made on first use, or nil.
func (d *Domain) copyGraph(s cudadrv.Stream, dst, src cudadrv.DevPtr, n uint64) *copyGraph {
	cg := &d.graphs
	cg.mu.Lock()
	defer cg.mu.Unlock()
	if g, ok := cg.m[s]; ok || cg.off {
		return g
	}
	if len(cg.m) >= maxCopyGraphs {
		return nil
	}
	if cg.capture == (cudadrv.Stream{}) {
		var err error
		if !cudadrv.HasGraphs() {
			cg.off = true
			return nil
		}
		if cg.capture, err = d.ctx.NewStream(cudadrv.StreamNonBlocking); err != nil {
			cg.off = true
			d.logf("stream copies without graphs: %v", err)
			return nil
		}
	}
	g, err := d.ctx.NewCopyGraph(cg.capture, dst, src, n)
	if err != nil {
		cg.off = true
		d.logf("stream copies without graphs: %v", err)
		return nil
	}
	if cg.m == nil {
		cg.m = make(map[cudadrv.Stream]*copyGraph)
	}
	cg.m[s] = &copyGraph{g: g}
	return cg.m[s]
}

// ForgetStream releases s's copy graph: the caller is about to destroy s,
// whose handle the driver may give to a later stream.
func (d *Domain) ForgetStream(s cudadrv.Stream) {
	cg := &d.graphs
	cg.mu.Lock()
	g, ok := cg.m[s]
	delete(cg.m, s)
	cg.mu.Unlock()
	if ok {
		_ = d.ctx.DestroyCopyGraph(g.g)
	}
}

// releaseGraphs destroys every copy graph and the capture stream.
func (d *Domain) releaseGraphs() {
	cg := &d.graphs
	cg.mu.Lock()
	defer cg.mu.Unlock()
	for s, g := range cg.m {
		_ = d.ctx.DestroyCopyGraph(g.g)
		delete(cg.m, s)
	}
	if cg.capture != (cudadrv.Stream{}) {
		_ = d.ctx.DestroyStream(cg.capture)
		cg.capture = cudadrv.Stream{}
	}
	cg.off = true
}
