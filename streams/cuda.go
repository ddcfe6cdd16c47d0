//go:build cuda

package streams

import (
	"fmt"
	"sync/atomic"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// CUDAStream is a CUDA stream of a World whose heap is device memory
// (shmem.WithDevice): its operations are stream work on the GPU, ordered
// with the kernels and copies the caller puts on the same stream (Handle).
// A put is an asynchronous device-to-device copy, a signal set a stream
// memory write, a wait a stream memory wait (== and >=; a one-thread kernel
// for the other comparisons), a barrier a one-thread kernel.
//
// The stream's operations complete in order, so a later one sees the
// effects of an earlier one; Synchronize waits for them on the host.
type CUDAStream struct {
	w      *shmem.World
	ctx    cudadrv.Context
	s      cudadrv.Stream
	own    bool
	closed atomic.Bool
}

// NewCUDAStream creates a non-blocking CUDA stream in w's GPU context.
func NewCUDAStream(w *shmem.World) (*CUDAStream, error) {
	dev, err := w.Device()
	if err != nil {
		return nil, err
	}
	ctx := cudadrv.ContextFromUintptr(dev.Context())
	s, err := ctx.NewStream(cudadrv.StreamNonBlocking)
	if err != nil {
		return nil, fmt.Errorf("streams: creating a CUDA stream: %w", err)
	}
	return &CUDAStream{w: w, ctx: ctx, s: s, own: true}, nil
}

// WrapCUDAStream uses a CUstream the caller created in w's context. Close
// the CUDAStream before destroying the CUstream: the World keeps a copy
// graph for each stream it copies on, which Close releases.
func WrapCUDAStream(w *shmem.World, handle uintptr) (*CUDAStream, error) {
	dev, err := w.Device()
	if err != nil {
		return nil, err
	}
	return &CUDAStream{w: w, ctx: cudadrv.ContextFromUintptr(dev.Context()), s: cudadrv.StreamFromUintptr(handle)}, nil
}

// Handle returns the CUstream, for the caller's kernel launches
// (kernels.PTXLaunch.Stream) and CUDA libraries.
func (s *CUDAStream) Handle() uintptr { return s.s.Uintptr() }

// World returns the stream's World.
func (s *CUDAStream) World() *shmem.World { return s.w }

// Synchronize waits until every operation issued on the stream is done.
func (s *CUDAStream) Synchronize() error { return s.ctx.StreamSynchronize(s.s) }

// Query reports whether every operation issued so far is done.
func (s *CUDAStream) Query() bool { return s.ctx.StreamQuery(s.s) == nil }

// Close waits for the stream, releases what the World keeps for it and
// destroys it (a wrapped stream is left to its owner).
func (s *CUDAStream) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	err := s.ctx.StreamSynchronize(s.s)
	s.w.ForgetDeviceStream(s.Handle())
	if s.own {
		if err2 := s.ctx.DestroyStream(s.s); err == nil {
			err = err2
		}
	}
	return err
}

// PutOnCUDAStream copies this PE's src into dst on pe when the stream
// reaches it (nvshmemx_putmem_on_stream).
func PutOnCUDAStream[T any](s *CUDAStream, dst, src shmem.Sym[T], pe int) error {
	return shmem.PutOnDeviceStream(s.Handle(), dst, src, pe)
}

// GetOnCUDAStream copies src on pe into this PE's dst when the stream
// reaches it (nvshmemx_getmem_on_stream).
func GetOnCUDAStream[T any](s *CUDAStream, dst, src shmem.Sym[T], pe int) error {
	return shmem.GetOnDeviceStream(s.Handle(), dst, src, pe)
}

// PutSignalOnCUDAStream puts and then updates sig on pe, in stream order: a
// PE that sees the signal sees the data (nvshmemx_putmem_signal_on_stream).
func PutSignalOnCUDAStream[T any](s *CUDAStream, dst, src shmem.Sym[T], sig shmem.Sym[uint64], value uint64, op shmem.SignalOp, pe int) error {
	return shmem.PutSignalOnDeviceStream(s.Handle(), dst, src, sig, value, op, pe)
}

// Signal updates sig on pe in stream order (nvshmemx_signal_op_on_stream).
func (s *CUDAStream) Signal(sig shmem.Sym[uint64], value uint64, op shmem.SignalOp, pe int) error {
	return shmem.SignalOnDeviceStream(s.Handle(), sig, value, op, pe)
}

// WaitUntil holds the stream until this PE's word ivar satisfies the
// comparison (nvshmemx_signal_wait_until_on_stream).
func (s *CUDAStream) WaitUntil(ivar shmem.Sym[uint64], cmp shmem.Cmp, value uint64) error {
	return shmem.WaitUntilOnDeviceStream(s.Handle(), ivar, cmp, value)
}

// Quiet completes the stream's earlier puts and signals before its later
// work: they are stream-ordered already, so it issues nothing.
func (s *CUDAStream) Quiet() error {
	if s.closed.Load() {
		return ErrClosed
	}
	return nil
}

// Barrier runs a barrier across every PE when the stream reaches it
// (nvshmemx_barrier_all_on_stream; collective).
func (s *CUDAStream) Barrier() error { return s.w.BarrierOnDeviceStream(s.Handle()) }

// CUDAEvent is a CUDA event of a CUDAStream's context.
type CUDAEvent struct {
	ctx cudadrv.Context
	e   cudadrv.Event
}

// NewCUDAEvent creates a timing event in the stream's context.
func (s *CUDAStream) NewCUDAEvent() (*CUDAEvent, error) {
	e, err := s.ctx.NewEvent(cudadrv.EventDefault)
	if err != nil {
		return nil, err
	}
	return &CUDAEvent{ctx: s.ctx, e: e}, nil
}

// Record records the event on the stream.
func (s *CUDAStream) Record(e *CUDAEvent) error { return s.ctx.Record(e.e, s.s) }

// WaitEvent makes the stream wait for e.
func (s *CUDAStream) WaitEvent(e *CUDAEvent) error { return s.ctx.StreamWaitEvent(s.s, e.e) }

// Synchronize waits for the event.
func (e *CUDAEvent) Synchronize() error { return e.ctx.EventSynchronize(e.e) }

// Close destroys the event.
func (e *CUDAEvent) Close() error { return e.ctx.DestroyEvent(e.e) }

// ElapsedMs returns the milliseconds between two recorded events.
func ElapsedMs(start, end *CUDAEvent) (float64, error) { return start.ctx.Elapsed(start.e, end.e) }

// Host runs fn on a driver thread when the stream reaches it; the stream
// waits for fn. fn must not call CUDA.
func (s *CUDAStream) Host(fn func()) error { return s.ctx.LaunchHostFunc(s.s, fn) }
