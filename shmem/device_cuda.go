//go:build cuda

package shmem

import (
	"context"
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem/internal/cuda"
)

// DeviceSupport reports whether this binary can put the heap on a GPU here,
// and why not (no driver, no GPU).
func DeviceSupport() error {
	if err := cuda.Probe(); err != nil {
		return errf(ErrUnsupported, "%v", err)
	}
	return nil
}

func openDevice(ctx context.Context, w *World, hostLimit uint64) (deviceDomain, *cuda.Transport, error) {
	d, err := cuda.Open(ctx, cuda.Config{
		Rank: w.pe, NPEs: w.npes, LocalRank: w.boot.LocalRank(), LocalSize: w.boot.LocalSize(),
		Ordinal: w.opts.Device.Ordinal, HeapSize: w.opts.SymmetricSize, CtrlSize: ctrlSize, ZeroTo: hostLimit,
		Allgather: w.boot.Allgather, Logf: w.log.Infof,
	})
	if err != nil {
		if errors.Is(err, cudadrv.ErrNoDriver) || errors.Is(err, cudadrv.ErrNoDevice) {
			return nil, nil, fmt.Errorf("shmem: PE %d: GSHMEM_HEAP=device: %w: %v", w.pe, ErrUnsupported, err)
		}
		return nil, nil, fmt.Errorf("shmem: PE %d: device heap: %w", w.pe, err)
	}
	w.log.Debugf("device heap on GPU %d, %d bytes", d.Ordinal(), w.opts.SymmetricSize)
	return cudaDomain{d, hostLimit}, cuda.NewTransport(w.tr, d, hostLimit), nil
}

type cudaDomain struct {
	d     *cuda.Domain
	limit uint64
}

func (c cudaDomain) hostLimit() uint64 { return c.limit }

func (c cudaDomain) ordinal() int              { return c.d.Ordinal() }
func (c cudaDomain) context() uintptr          { return c.d.Context().Uintptr() }
func (c cudaDomain) stream() uintptr           { return c.d.Stream().Uintptr() }
func (c cudaDomain) base(pe int) uintptr       { return uintptr(c.d.Base(pe)) }
func (c cudaDomain) state() []byte             { return c.d.State() }
func (c cudaDomain) clear(off, n uint64) error { return c.d.Clear(off, n) }
func (c cudaDomain) load(off uint64, width int) (uint64, error) {
	return c.d.Load(off, width)
}
func (c cudaDomain) putDevice(pe int, dstOff, srcOff, n uint64, wait bool) error {
	return c.d.PutDevice(pe, dstOff, srcOff, n, wait)
}
func (c cudaDomain) getDevice(pe int, dstOff, srcOff, n uint64, wait bool) error {
	return c.d.GetDevice(pe, dstOff, srcOff, n, wait)
}
func (c cudaDomain) putOnStream(s uintptr, pe int, dstOff, srcOff, n uint64) error {
	return c.d.PutOnStream(cudadrv.StreamFromUintptr(s), pe, dstOff, srcOff, n)
}
func (c cudaDomain) putSignalOnStream(s uintptr, pe int, dstOff, srcOff, n, sigOff, v uint64, add bool) error {
	return c.d.PutSignalOnStream(cudadrv.StreamFromUintptr(s), pe, dstOff, srcOff, n, sigOff, v, add)
}
func (c cudaDomain) getOnStream(s uintptr, pe int, dstOff, srcOff, n uint64) error {
	return c.d.GetOnStream(cudadrv.StreamFromUintptr(s), pe, dstOff, srcOff, n)
}
func (c cudaDomain) signalOnStream(s uintptr, pe int, off, v uint64, add bool) error {
	return c.d.SignalOnStream(cudadrv.StreamFromUintptr(s), pe, off, v, add)
}
func (c cudaDomain) waitOnStream(s uintptr, off uint64, cmp Cmp, v uint64) error {
	return c.d.WaitOnStream(cudadrv.StreamFromUintptr(s), off, int(cmp), v)
}
func (c cudaDomain) forgetStream(s uintptr) { c.d.ForgetStream(cudadrv.StreamFromUintptr(s)) }
func (c cudaDomain) barrierOnStream(s uintptr) error {
	return c.d.BarrierOnStream(cudadrv.StreamFromUintptr(s))
}

func (c cudaDomain) collReachable(members []int) bool { return c.d.Reachable(members) }
func (c cudaDomain) syncStream(s uintptr) error {
	return c.d.SyncStream(cudadrv.StreamFromUintptr(s))
}

func (t devTeam) cuda() cuda.Team {
	return cuda.Team{Members: t.members, Me: t.me, SyncOff: t.syncOff, Epoch: t.epoch, Handle: uint64(t.handle)}
}

func (c cudaDomain) collSync(s uintptr, t devTeam) error {
	return c.d.SyncOnStream(cudadrv.StreamFromUintptr(s), t.cuda())
}

func (c cudaDomain) collReduce(s uintptr, t devTeam, typ, op int, sz, dstOff, srcOff uint64, n int, scatter bool) error {
	return c.d.Reduce(cudadrv.StreamFromUintptr(s), t.cuda(), typ, op, sz, dstOff, srcOff, n, scatter)
}

func (c cudaDomain) collPull(s uintptr, t devTeam, ps []piece) error {
	cp := make([]cuda.Piece, len(ps))
	for i, p := range ps {
		cp[i] = cuda.Piece{Peer: p.p, Src: p.from, Dst: p.to, Len: p.n}
	}
	return c.d.Pull(cudadrv.StreamFromUintptr(s), t.cuda(), cp)
}

// The reduction kernels' type codes, as coll_device.go names them.
var (
	_ = [1]struct{}{}[devI8-cuda.TypeI8]
	_ = [1]struct{}{}[devU8-cuda.TypeU8]
	_ = [1]struct{}{}[devF32-cuda.TypeF32]
	_ = [1]struct{}{}[devF64-cuda.TypeF64]
)

func (c cudaDomain) collBroadcast(s uintptr, t devTeam, root int, dstOff, srcOff, nb uint64) error {
	return c.d.Broadcast(cudadrv.StreamFromUintptr(s), t.cuda(), root, dstOff, srcOff, nb)
}

func (c cudaDomain) collFCollect(s uintptr, t devTeam, dstOff, srcOff, nb uint64) error {
	return c.d.FCollect(cudadrv.StreamFromUintptr(s), t.cuda(), dstOff, srcOff, nb)
}

func (c cudaDomain) collSameGPU(members []int) bool { return c.d.SameGPU(members) }

// writeLocal writes b at off of this PE's device heap, below the
// allocatable heap too (the transport would send such offsets to the host
// heap), and waits.
func (c cudaDomain) writeLocal(off uint64, b []byte) error {
	if err := c.d.Put(c.d.Rank(), off, b); err != nil {
		return err
	}
	return c.d.Quiet()
}

func (c cudaDomain) isDevice(p uintptr) bool { return memKinds.IsDevice(p) }
func (c cudaDomain) copyAddr(s uintptr, dst, src uintptr, n uint64) error {
	return c.d.CopyAddr(cudadrv.StreamFromUintptr(s), cudadrv.DevPtr(dst), cudadrv.DevPtr(src), n)
}
func (c cudaDomain) copyToHost(dst []byte, src uintptr) error {
	return c.d.Context().CopyDtoH(dst, cudadrv.DevPtr(src), c.d.Stream())
}
func (c cudaDomain) copyFromHost(dst uintptr, src []byte) error {
	if err := c.d.Context().CopyHtoDAsync(cudadrv.DevPtr(dst), src, c.d.Stream()); err != nil {
		return err
	}
	return c.d.Quiet()
}
func (c cudaDomain) afterLegacy() error { return c.d.AfterLegacy() }
