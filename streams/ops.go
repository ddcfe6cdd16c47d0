package streams

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/shmem"
)

// The on-stream form of every host operation of package shmem. Each issues
// the operation on s and returns at once; the operation runs in stream
// order with the semantics of its host form (shmem.Put, shmem.PutSignal,
// ...) and a failure is reported, named, by s.Synchronize. The names follow
// NVSHMEM's nvshmemx_*_on_stream.

// rmaDesc describes an RMA or signal operation byte-wise, for engines that
// translate operations (see engine.go).
type rmaDesc struct {
	remote   shmem.Sym[byte] // the symmetric side: dst of a put, src of a get
	local    []byte          // the local buffer (src of a put, dst of a get)
	pe       int
	nbi      bool
	sig      shmem.Sym[uint64] // opPutSignal, opSignal
	sigValue uint64
	sigOp    shmem.SignalOp
}

// waitDesc describes a wait on words of this PE's heap.
type waitDesc struct {
	ivars  shmem.Sym[byte]
	width  int // bytes per word
	status []int
	cmp    shmem.Cmp
	values []uint64
}

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// sameWorld checks that a symmetric object belongs to the stream's World.
func sameWorld[T any](s *Stream, x shmem.Sym[T]) error {
	if w := x.World(); w != nil && w != s.w {
		return fmt.Errorf("%w: %v belongs to another World than %v", shmem.ErrNotSymmetric, x, s)
	}
	return nil
}

func (s *Stream) rmaOp(kind opKind, name string, d rmaDesc, run func(ctx context.Context) error) {
	o := op{kind: kind, name: name, run: run}
	if s.eng.describe() {
		o.desc = d
	}
	s.submit(o)
}

// PutOnStream is shmem.Put on a stream: src is read when the operation runs.
func PutOnStream[T any](s *Stream, dst shmem.Sym[T], src []T, pe int) {
	s.rmaOp(opPut, "PutOnStream", rmaDesc{remote: dst.Bytes(), local: bytesOf(src), pe: pe}, func(context.Context) error {
		if err := sameWorld(s, dst); err != nil {
			return err
		}
		return shmem.Put(dst, src, pe)
	})
}

// PutNBIOnStream is shmem.PutNBI on a stream: the put is complete after a
// later QuietOnStream (or barrier) on the stream.
func PutNBIOnStream[T any](s *Stream, dst shmem.Sym[T], src []T, pe int) {
	s.rmaOp(opPut, "PutNBIOnStream", rmaDesc{remote: dst.Bytes(), local: bytesOf(src), pe: pe, nbi: true}, func(context.Context) error {
		if err := sameWorld(s, dst); err != nil {
			return err
		}
		return shmem.PutNBI(dst, src, pe)
	})
}

// POnStream is shmem.P on a stream.
func POnStream[T any](s *Stream, dst shmem.Sym[T], v T, pe int) {
	s.rmaOp(opPut, "POnStream", rmaDesc{remote: dst.Bytes(), local: bytesOf([]T{v}), pe: pe}, func(context.Context) error {
		if err := sameWorld(s, dst); err != nil {
			return err
		}
		return shmem.P(dst, v, pe)
	})
}

// GetOnStream is shmem.Get on a stream: dst is written when the operation
// runs; read it after Synchronize (or an event recorded after the get).
func GetOnStream[T any](s *Stream, dst []T, src shmem.Sym[T], pe int) {
	s.rmaOp(opGet, "GetOnStream", rmaDesc{remote: src.Bytes(), local: bytesOf(dst), pe: pe}, func(context.Context) error {
		if err := sameWorld(s, src); err != nil {
			return err
		}
		return shmem.Get(dst, src, pe)
	})
}

// GetNBIOnStream is shmem.GetNBI on a stream: dst holds the data after a
// later QuietOnStream on the stream.
func GetNBIOnStream[T any](s *Stream, dst []T, src shmem.Sym[T], pe int) {
	s.rmaOp(opGet, "GetNBIOnStream", rmaDesc{remote: src.Bytes(), local: bytesOf(dst), pe: pe, nbi: true}, func(context.Context) error {
		if err := sameWorld(s, src); err != nil {
			return err
		}
		return shmem.GetNBI(dst, src, pe)
	})
}

// IPutOnStream is shmem.IPut (strided put) on a stream.
func IPutOnStream[T any](s *Stream, dst shmem.Sym[T], src []T, dstStride, srcStride, n, pe int) {
	s.submit(op{kind: opFunc, name: "IPutOnStream", run: func(context.Context) error {
		if err := sameWorld(s, dst); err != nil {
			return err
		}
		return shmem.IPut(dst, src, dstStride, srcStride, n, pe)
	}})
}

// IGetOnStream is shmem.IGet (strided get) on a stream.
func IGetOnStream[T any](s *Stream, dst []T, src shmem.Sym[T], dstStride, srcStride, n, pe int) {
	s.submit(op{kind: opFunc, name: "IGetOnStream", run: func(context.Context) error {
		if err := sameWorld(s, src); err != nil {
			return err
		}
		return shmem.IGet(dst, src, dstStride, srcStride, n, pe)
	}})
}

// PutSignalOnStream is shmem.PutSignal on a stream
// (nvshmemx_putmem_signal_on_stream): the data, then the signal.
func PutSignalOnStream[T any](s *Stream, dst shmem.Sym[T], src []T, sig shmem.Sym[uint64], value uint64, sop shmem.SignalOp, pe int) {
	s.rmaOp(opPutSignal, "PutSignalOnStream", rmaDesc{remote: dst.Bytes(), local: bytesOf(src), pe: pe, sig: sig, sigValue: value, sigOp: sop}, func(context.Context) error {
		if err := sameWorld(s, dst); err != nil {
			return err
		}
		return shmem.PutSignal(dst, src, sig, value, sop, pe)
	})
}

// PutSignalNBIOnStream is shmem.PutSignalNBI on a stream.
func PutSignalNBIOnStream[T any](s *Stream, dst shmem.Sym[T], src []T, sig shmem.Sym[uint64], value uint64, sop shmem.SignalOp, pe int) {
	s.rmaOp(opPutSignal, "PutSignalNBIOnStream", rmaDesc{remote: dst.Bytes(), local: bytesOf(src), pe: pe, nbi: true, sig: sig, sigValue: value, sigOp: sop}, func(context.Context) error {
		if err := sameWorld(s, dst); err != nil {
			return err
		}
		return shmem.PutSignalNBI(dst, src, sig, value, sop, pe)
	})
}

// SignalOpOnStream is shmem.SignalOpAt on a stream
// (nvshmemx_signal_op_on_stream).
func SignalOpOnStream(s *Stream, sig shmem.Sym[uint64], value uint64, sop shmem.SignalOp, pe int) {
	s.rmaOp(opSignal, "SignalOpOnStream", rmaDesc{pe: pe, sig: sig, sigValue: value, sigOp: sop}, func(context.Context) error {
		if err := sameWorld(s, sig); err != nil {
			return err
		}
		return shmem.SignalOpAt(sig, value, sop, pe)
	})
}

func (s *Stream) waitOp(name string, d func() waitDesc, run func(ctx context.Context) error) {
	o := op{kind: opWait, name: name, run: run}
	if s.eng.describe() {
		o.desc = d()
	}
	s.submit(o)
}

func words[T shmem.Integer](vs []T) []uint64 {
	out := make([]uint64, len(vs))
	for i, v := range vs {
		out[i] = uint64(v)
	}
	return out
}

// SignalWaitUntilOnStream is shmem.SignalWaitUntil on a stream
// (nvshmemx_signal_wait_until_on_stream): the stream holds until this PE's
// signal word satisfies the comparison. Stream.Cancel (or the end of the
// World) gets it out of a wait that nothing satisfies.
func SignalWaitUntilOnStream(s *Stream, sig shmem.Sym[uint64], cmp shmem.Cmp, value uint64) {
	waitUntil(s, "SignalWaitUntilOnStream", sig, nil, cmp, []uint64{value})
}

// WaitUntilOnStream is shmem.WaitUntil on a stream: the stream holds until
// the first element of ivar on this PE satisfies "ivar cmp value".
func WaitUntilOnStream[T shmem.Integer](s *Stream, ivar shmem.Sym[T], cmp shmem.Cmp, value T) {
	waitUntil(s, "WaitUntilOnStream", ivar.Slice(0, min(1, ivar.Len())), nil, cmp, []T{value})
}

// WaitUntilAllOnStream is shmem.WaitUntilAll on a stream. status (may be
// nil) is read when the operation runs.
func WaitUntilAllOnStream[T shmem.Integer](s *Stream, ivars shmem.Sym[T], status []int, cmp shmem.Cmp, value T) {
	waitUntil(s, "WaitUntilAllOnStream", ivars, status, cmp, []T{value})
}

// WaitUntilAllVectorOnStream is shmem.WaitUntilAllVector on a stream.
func WaitUntilAllVectorOnStream[T shmem.Integer](s *Stream, ivars shmem.Sym[T], status []int, cmp shmem.Cmp, values []T) {
	waitUntil(s, "WaitUntilAllVectorOnStream", ivars, status, cmp, values)
}

func waitUntil[T shmem.Integer](s *Stream, name string, ivars shmem.Sym[T], status []int, cmp shmem.Cmp, values []T) {
	s.waitOp(name, func() waitDesc {
		return waitDesc{ivars: ivars.Bytes(), width: int(unsafe.Sizeof(values[0])), status: status, cmp: cmp, values: words(values)}
	}, func(ctx context.Context) error {
		if err := sameWorld(s, ivars); err != nil {
			return err
		}
		return waitAll(ctx, ivars, status, cmp, values)
	})
}

// waitAll polls until every element of ivars not excluded by status
// satisfies the comparison (one value, or one per element). The host form
// validates the arguments: the first poll reports bad input as the
// corresponding shmem.WaitUntil* would.
func waitAll[T shmem.Integer](ctx context.Context, ivars shmem.Sym[T], status []int, cmp shmem.Cmp, values []T) error {
	if ivars.Len() == 0 && len(status) == 0 {
		// Let the core report what is wrong with an empty or invalid object.
		_, err := shmem.Test(ivars, cmp, values[0])
		if err != nil {
			return err
		}
	}
	if len(values) == 1 {
		return await(ctx, ivars.World(), func() (bool, error) { return shmem.TestAll(ivars, status, cmp, values[0]) })
	}
	if len(values) != ivars.Len() {
		return fmt.Errorf("%w: %d comparison values for %d words", shmem.ErrInvalid, len(values), ivars.Len())
	}
	if status != nil && len(status) != ivars.Len() {
		return fmt.Errorf("%w: status has %d entries for %d words", shmem.ErrInvalid, len(status), ivars.Len())
	}
	return await(ctx, ivars.World(), func() (bool, error) {
		for i, v := range values {
			if status != nil && status[i] != 0 {
				continue
			}
			ok, err := shmem.Test(ivars.At(i), cmp, v)
			if !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// await waits for cond by the World's one wait policy: a write into this
// PE's heap through the core wakes it, and ending ctx (the stream's) ends
// it with the stream's error.
func await(ctx context.Context, w *shmem.World, cond func() (bool, error)) error {
	err := w.AwaitContext(ctx, shmem.AnyPE, cond)
	if err != nil && ctx.Err() != nil {
		return ctxError(ctx)
	}
	return err
}

// QuietOnStream is World.Quiet on a stream (nvshmemx_quiet_on_stream): the
// puts, gets, atomics and signals this PE issued before it, on any stream or
// the host, are complete when the stream passes it.
func QuietOnStream(s *Stream) {
	s.submit(op{kind: opQuiet, name: "QuietOnStream", run: func(context.Context) error { return s.w.Quiet() }})
}

// FenceOnStream is World.Fence on a stream.
func FenceOnStream(s *Stream) {
	s.submit(op{kind: opFence, name: "FenceOnStream", run: func(context.Context) error { return s.w.Fence() }})
}

// BarrierAllOnStream is World.BarrierAll on a stream
// (nvshmemx_barrier_all_on_stream). Like every collective it must be issued
// in the same order on every PE, and a PE's collectives must not overlap:
// issue them on one stream, and Synchronize before calling a host
// collective. Once started it is not interrupted by Cancel (see Cancel).
func BarrierAllOnStream(s *Stream) {
	s.submit(op{kind: opBarrier, name: "BarrierAllOnStream", run: func(context.Context) error {
		return collective(s.w, s.w.BarrierAll)
	}})
}

// SyncAllOnStream is World.SyncAll on a stream
// (nvshmemx_sync_all_on_stream); see BarrierAllOnStream.
func SyncAllOnStream(s *Stream) {
	s.submit(op{kind: opBarrier, name: "SyncAllOnStream", run: func(context.Context) error {
		return collective(s.w, s.w.SyncAll)
	}})
}
