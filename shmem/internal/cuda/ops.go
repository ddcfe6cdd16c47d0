//go:build cuda

package cuda

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Host-initiated operations. They are issued on the PE's own stream, in
// order, so a later operation never overtakes an earlier one (that is the
// fence), and Quiet is a stream synchronization.

// Put copies src from host memory into pe's heap at off and returns when
// src may be reused. A naturally aligned 4- or 8-byte put becomes a stream
// memory write (the value travels in the command); anything else is an
// asynchronous copy from pageable memory, which returns once src is staged.
func (d *Domain) Put(pe int, off uint64, src []byte) error {
	dst, err := d.Addr(pe, off)
	if err != nil {
		return err
	}
	switch {
	case len(src) == 0:
		return nil
	case d.memops && len(src) == 8 && dst%8 == 0:
		return d.ctx.WriteValue64(d.stream, dst, binary.LittleEndian.Uint64(src), cudadrv.WriteValueDefault)
	case d.memops && len(src) == 4 && dst%4 == 0:
		return d.ctx.WriteValue32(d.stream, dst, binary.LittleEndian.Uint32(src), cudadrv.WriteValueDefault)
	}
	return d.ctx.CopyHtoDAsync(dst, src, d.stream)
}

// Get copies from pe's heap at off into dst and returns when dst holds it,
// after every operation issued before it.
func (d *Domain) Get(pe int, off uint64, dst []byte) error {
	src, err := d.Addr(pe, off)
	if err != nil {
		return err
	}
	if len(dst) <= 8 {
		d.mu.Lock()
		defer d.mu.Unlock()
		if err := d.ctx.CopyDtoHSync(d.pinned, src, uint64(len(dst)), d.stream); err != nil {
			return err
		}
		copy(dst, unsafe.Slice((*byte)(d.pinned), len(dst)))
		return nil
	}
	return d.ctx.CopyDtoH(dst, src, d.stream)
}

// PutDevice copies n bytes from this PE's heap at srcOff into pe's heap at
// dstOff, on the PE's stream; it waits for the copy when wait is set (a
// blocking put: the source may then change).
func (d *Domain) PutDevice(pe int, dstOff, srcOff, n uint64, wait bool) error {
	dst, err := d.Addr(pe, dstOff)
	if err != nil {
		return err
	}
	if err := d.copy(d.stream, pe, dst, d.base+cudadrv.DevPtr(srcOff), n); err != nil {
		return err
	}
	if wait {
		return d.ctx.StreamSynchronize(d.stream)
	}
	return nil
}

// GetDevice copies n bytes from pe's heap at srcOff into this PE's heap at
// dstOff; it waits for the copy when wait is set.
func (d *Domain) GetDevice(pe int, dstOff, srcOff, n uint64, wait bool) error {
	src, err := d.Addr(pe, srcOff)
	if err != nil {
		return err
	}
	if err := d.copy(d.stream, pe, d.base+cudadrv.DevPtr(dstOff), src, n); err != nil {
		return err
	}
	if wait {
		return d.ctx.StreamSynchronize(d.stream)
	}
	return nil
}

// Atomic performs op on the width-byte word at off in pe's heap and
// returns its previous value. A store is a stream memory write; the others
// run a one-thread kernel whose result comes back through pinned memory.
func (d *Domain) Atomic(pe int, off uint64, width int, op transport.AtomicOp, v, cmp uint64) (uint64, error) {
	addr, err := d.Addr(pe, off)
	if err != nil {
		return 0, err
	}
	if width != 4 && width != 8 {
		return 0, fmt.Errorf("cuda: atomic width %d", width)
	}
	op, _ = op.Split()
	if op > transport.OpXor {
		return 0, fmt.Errorf("cuda: unknown atomic op %d", op)
	}
	if op == transport.OpStore && d.memops {
		if width == 8 {
			return 0, d.ctx.WriteValue64(d.stream, addr, v, cudadrv.WriteValueDefault)
		}
		return 0, d.ctx.WriteValue32(d.stream, addr, uint32(v), cudadrv.WriteValueDefault)
	}
	if op == transport.OpLoad {
		return d.load(addr, width)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	var a cudadrv.Args
	a.U64(uint64(addr)).U32(uint32(width)).U32(uint32(op)).U64(v).U64(cmp).U64(uint64(uintptr(d.pinned)))
	if err := d.ctx.Launch(d.fn.amo, cudadrv.Dim3{X: 1}, cudadrv.Dim3{X: 1}, 0, d.stream, &a, false); err != nil {
		return 0, err
	}
	if err := d.ctx.StreamSynchronize(d.stream); err != nil {
		return 0, err
	}
	old := *(*uint64)(d.pinned)
	if width == 4 {
		old &= 0xffffffff
	}
	return old, nil
}

func (d *Domain) load(addr cudadrv.DevPtr, width int) (uint64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	*(*uint64)(d.pinned) = 0
	if err := d.ctx.CopyDtoHSync(d.pinned, addr, uint64(width), d.stream); err != nil {
		return 0, err
	}
	if width == 4 {
		return uint64(*(*uint32)(d.pinned)), nil
	}
	return *(*uint64)(d.pinned), nil
}

// Load reads this PE's own width-byte word at off (for waits), after the
// PE's earlier operations.
func (d *Domain) Load(off uint64, width int) (uint64, error) {
	return d.load(d.base+cudadrv.DevPtr(off), width)
}

// Clear zeroes n bytes of this PE's heap at off and waits.
func (d *Domain) Clear(off, n uint64) error {
	if err := d.ctx.MemsetAsync(d.base+cudadrv.DevPtr(off), 0, n, d.stream); err != nil {
		return err
	}
	return d.ctx.StreamSynchronize(d.stream)
}

// Quiet waits for every operation issued on the PE's stream.
func (d *Domain) Quiet() error { return d.ctx.StreamSynchronize(d.stream) }

// ---------------------------------------------------- on a user's stream ---

// Stream-ordered puts and gets run on the copy engine (cuMemcpyDtoDAsync)
// at every size: on one H200 a small copy kernel cost the stream as much as
// an engine copy, and across two H200s the engine took 2.8 us against the
// kernel's 4.8 (test/gpu/RESULTS.md). A put-with-signal up to
// SingleBlockMax bytes is one one-block kernel (gshmemi_put_nbi), which
// writes the signal after the data: half the cost of a copy and a signal.
const SingleBlockMax = 64 << 10

func copyGrid(n uint64) (blocks, threads int) {
	if n <= SingleBlockMax {
		return 1, 256
	}
	b := (n + 64<<10 - 1) / (64 << 10) // 64 KiB a block: 4 vectors per thread of 256, 16 rounds
	return int(min(b, 264)), 256
}

func (d *Domain) putKernel(s cudadrv.Stream, dst, src cudadrv.DevPtr, n uint64, sig cudadrv.DevPtr, v uint64, add bool) error {
	b, t := copyGrid(n)
	op := int32(0)
	if add {
		op = 1
	}
	var a cudadrv.Args
	a.Ptr(dst).Ptr(src).U64(n).Ptr(sig).U64(v).I32(op)
	return d.ctx.Launch(d.fn.putNBI, cudadrv.Dim3{X: b}, cudadrv.Dim3{X: t}, 0, s, &a, false)
}

// PutOnStream copies n bytes from this PE's heap at srcOff into pe's heap
// at dstOff when s reaches it.
func (d *Domain) PutOnStream(s cudadrv.Stream, pe int, dstOff, srcOff, n uint64) error {
	dst, err := d.Addr(pe, dstOff)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return d.copy(s, pe, dst, d.base+cudadrv.DevPtr(srcOff), n)
}

// PutSignalOnStream puts, then updates the 64-bit signal at sigOff on pe,
// when s reaches it: one kernel for small puts, else a copy and a signal.
func (d *Domain) PutSignalOnStream(s cudadrv.Stream, pe int, dstOff, srcOff, n, sigOff, v uint64, add bool) error {
	if n == 0 || n > SingleBlockMax {
		if err := d.PutOnStream(s, pe, dstOff, srcOff, n); err != nil {
			return err
		}
		return d.SignalOnStream(s, pe, sigOff, v, add)
	}
	dst, err := d.Addr(pe, dstOff)
	if err != nil {
		return err
	}
	sig, err := d.Addr(pe, sigOff)
	if err != nil {
		return err
	}
	return d.putKernel(s, dst, d.base+cudadrv.DevPtr(srcOff), n, sig, v, add)
}

// GetOnStream copies n bytes from pe's heap at srcOff into this PE's heap at
// dstOff when s reaches it.
func (d *Domain) GetOnStream(s cudadrv.Stream, pe int, dstOff, srcOff, n uint64) error {
	src, err := d.Addr(pe, srcOff)
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return d.copy(s, pe, d.base+cudadrv.DevPtr(dstOff), src, n)
}

// SignalOnStream updates the 64-bit word at off on pe when s reaches it,
// after the stream's earlier work is visible: set is a stream memory
// write, add a one-thread kernel.
func (d *Domain) SignalOnStream(s cudadrv.Stream, pe int, off, v uint64, add bool) error {
	addr, err := d.Addr(pe, off)
	if err != nil {
		return err
	}
	if !add && d.memops {
		return d.ctx.WriteValue64(s, addr, v, cudadrv.WriteValueDefault)
	}
	if !add {
		var a cudadrv.Args
		a.U64(uint64(addr)).U32(8).U32(uint32(transport.OpStore)).U64(v).U64(0).U64(0)
		return d.ctx.Launch(d.fn.amo, cudadrv.Dim3{X: 1}, cudadrv.Dim3{X: 1}, 0, s, &a, false)
	}
	var a cudadrv.Args
	a.U64(uint64(addr)).U64(v)
	return d.ctx.Launch(d.fn.signalAdd, cudadrv.Dim3{X: 1}, cudadrv.Dim3{X: 1}, 0, s, &a, false)
}

// Comparison codes, as in gshmem.cuh and shmem.Cmp.
const (
	CmpEQ = iota
	CmpNE
	CmpGT
	CmpGE
	CmpLT
	CmpLE
)

// WaitOnStream holds s until this PE's 64-bit word at off satisfies cmp
// against v: a stream memory wait for == and >= (>= as the driver defines
// it, which agrees with unsigned >= while the two differ by less than
// 2^63), a one-thread kernel otherwise.
func (d *Domain) WaitOnStream(s cudadrv.Stream, off uint64, cmp int, v uint64) error {
	addr := d.base + cudadrv.DevPtr(off)
	if d.memops {
		switch cmp {
		case CmpEQ:
			return d.ctx.WaitValue64(s, addr, v, cudadrv.WaitValueEQ)
		case CmpGE:
			return d.ctx.WaitValue64(s, addr, v, cudadrv.WaitValueGEQ)
		}
	}
	var a cudadrv.Args
	a.U64(uint64(addr)).I32(int32(cmp)).U64(v)
	return d.ctx.Launch(d.fn.wait, cudadrv.Dim3{X: 1}, cudadrv.Dim3{X: 1}, 0, s, &a, false)
}

// BarrierOnStream runs a barrier across every PE when s reaches it
// (collective: every PE must issue it, in the same order as its other
// device barriers).
func (d *Domain) BarrierOnStream(s cudadrv.Stream) error {
	return d.ctx.Launch(d.fn.barrier, cudadrv.Dim3{X: 1}, cudadrv.Dim3{X: 1}, 0, s, nil, false)
}

// -------------------------------------------------------------- kernels ---

// LoadModule loads a PTX image into the PE's context and binds its state
// table; bound reports whether the module includes gshmem.cuh.
func (d *Domain) LoadModule(image string) (m cudadrv.Module, bound bool, err error) {
	if m, err = d.ctx.LoadModule(image); err != nil {
		return m, false, err
	}
	if bound, err = d.BindState(m); err != nil {
		_ = d.ctx.UnloadModule(m)
		return cudadrv.Module{}, false, err
	}
	return m, bound, nil
}

// Builtin returns the built-in module (state bound) and a kernel of it.
func (d *Domain) Builtin(name string) (cudadrv.Function, error) { return d.ctx.Function(d.mod, name) }

// CopyAddr copies n bytes between device addresses of this process's
// contexts (the heap, cudaMalloc memory) on s, asynchronously.
func (d *Domain) CopyAddr(s cudadrv.Stream, dst, src cudadrv.DevPtr, n uint64) error {
	return d.copy(s, d.cfg.Rank, dst, src, n)
}

// AfterLegacy makes the work issued on the PE's stream from now on wait,
// on the GPU, for the work issued so far on the context's legacy default
// stream (cudaMemcpy and cuMemcpy, kernels launched on stream 0), which the
// PE's non-blocking stream is not otherwise ordered after. The host does
// not wait.
func (d *Domain) AfterLegacy() error {
	d.legacyMu.Lock()
	defer d.legacyMu.Unlock()
	if d.legacy == (cudadrv.Event{}) {
		e, err := d.ctx.NewEvent(cudadrv.EventDisableTiming)
		if err != nil {
			return err
		}
		d.legacy = e
	}
	if err := d.ctx.Record(d.legacy, cudadrv.StreamLegacy); err != nil {
		return err
	}
	return d.ctx.StreamWaitEvent(d.stream, d.legacy)
}
