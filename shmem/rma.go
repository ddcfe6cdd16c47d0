package shmem

import (
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(elemSize[T]()))
}

// Put copies src into the first len(src) elements of dst on PE pe, as
// shmem_put. It returns when src may be reused; the data is visible at pe
// after Quiet (or a barrier), and ordered before later puts to pe after Fence.
func Put[T any](dst Sym[T], src []T, pe int) error { return CtxPut(nil, dst, src, pe) }

// CtxPut is Put on context c (shmem_ctx_put).
func CtxPut[T any](c *Ctx, dst Sym[T], src []T, pe int) error {
	pe, err := c.target(dst.w, pe, true)
	if err != nil {
		return err
	}
	if _, err := dst.remote(pe, len(src)); err != nil {
		return err
	}
	return c.put(dst.w, pe, dst.off, asBytes(src), false)
}

// PutNBI starts a put, as shmem_put_nbi: src must not change until Quiet.
func PutNBI[T any](dst Sym[T], src []T, pe int) error { return CtxPutNBI(nil, dst, src, pe) }

// CtxPutNBI is PutNBI on context c (shmem_ctx_put_nbi).
func CtxPutNBI[T any](c *Ctx, dst Sym[T], src []T, pe int) error {
	pe, err := c.target(dst.w, pe, true)
	if err != nil {
		return err
	}
	if _, err := dst.remote(pe, len(src)); err != nil {
		return err
	}
	return c.put(dst.w, pe, dst.off, asBytes(src), true)
}

// Get copies the first len(dst) elements of src on PE pe into dst, as
// shmem_get, and returns when dst holds them.
func Get[T any](dst []T, src Sym[T], pe int) error { return CtxGet(nil, dst, src, pe) }

// CtxGet is Get on context c (shmem_ctx_get).
func CtxGet[T any](c *Ctx, dst []T, src Sym[T], pe int) error {
	pe, err := c.target(src.w, pe, false)
	if err != nil {
		return err
	}
	if _, err := src.remote(pe, len(dst)); err != nil {
		return err
	}
	return c.get(src.w, pe, src.off, asBytes(dst), false)
}

// GetNBI starts a get, as shmem_get_nbi: dst holds the data after Quiet.
func GetNBI[T any](dst []T, src Sym[T], pe int) error { return CtxGetNBI(nil, dst, src, pe) }

// CtxGetNBI is GetNBI on context c (shmem_ctx_get_nbi): dst holds the
// data after c's Quiet.
func CtxGetNBI[T any](c *Ctx, dst []T, src Sym[T], pe int) error {
	pe, err := c.target(src.w, pe, false)
	if err != nil {
		return err
	}
	if _, err := src.remote(pe, len(dst)); err != nil {
		return err
	}
	return c.get(src.w, pe, src.off, asBytes(dst), true)
}

// P writes v into the first element of dst on PE pe, as shmem_p. A 4- or
// 8-byte element is written with one atomic store, so a peer may wait on it.
func P[T any](dst Sym[T], v T, pe int) error { return CtxP(nil, dst, v, pe) }

// CtxP is P on context c (shmem_ctx_p).
func CtxP[T any](c *Ctx, dst Sym[T], v T, pe int) error {
	pe, err := c.target(dst.w, pe, true)
	if err != nil {
		return err
	}
	if _, err := dst.remote(pe, 1); err != nil {
		return err
	}
	if sz := elemSize[T](); (sz == 4 || sz == 8) && dst.off%sz == 0 {
		_, err := c.atomic(dst.w, pe, dst.off, int(sz), transport.OpStore, toBits(v), 0)
		return err
	}
	return c.put(dst.w, pe, dst.off, asBytes([]T{v}), false)
}

// G reads the first element of src on PE pe, as shmem_g.
func G[T any](src Sym[T], pe int) (T, error) { return CtxG(nil, src, pe) }

// CtxG is G on context c (shmem_ctx_g).
func CtxG[T any](c *Ctx, src Sym[T], pe int) (T, error) {
	var v T
	pe, err := c.target(src.w, pe, false)
	if err != nil {
		return v, err
	}
	if _, err := src.remote(pe, 1); err != nil {
		return v, err
	}
	if sz := elemSize[T](); (sz == 4 || sz == 8) && src.off%sz == 0 {
		bits, err := c.atomic(src.w, pe, src.off, int(sz), transport.OpLoad, 0, 0)
		return fromBits[T](bits), err
	}
	err = c.get(src.w, pe, src.off, asBytes(unsafe.Slice(&v, 1)), false)
	return v, err
}

// IPut copies n elements with strides, as shmem_iput: dst[i*dstStride] on
// PE pe receives src[i*srcStride] for i in [0, n). Strides are in elements
// and at least 1.
func IPut[T any](dst Sym[T], src []T, dstStride, srcStride, n, pe int) error {
	return CtxIPut(nil, dst, src, dstStride, srcStride, n, pe)
}

// CtxIPut is IPut on context c (shmem_ctx_iput).
func CtxIPut[T any](c *Ctx, dst Sym[T], src []T, dstStride, srcStride, n, pe int) error {
	pe, err := c.target(dst.w, pe, true)
	if err != nil {
		return err
	}
	if err := checkStrided(dstStride, srcStride, n, len(src)); err != nil {
		return err
	}
	if n == 0 {
		_, err := dst.remote(pe, 0)
		return err
	}
	if _, err := dst.remote(pe, (n-1)*dstStride+1); err != nil {
		return err
	}
	if m := dst.w.tr.Mapped(pe); m != nil {
		out := unsafe.Slice((*T)(unsafe.Pointer(&m[dst.off])), (n-1)*dstStride+1)
		for i := range n {
			out[i*dstStride] = src[i*srcStride]
		}
		dst.w.tr.Notify(pe)
		return nil
	}
	sz := elemSize[T]()
	for i := range n {
		if err := c.put(dst.w, pe, dst.off+uint64(i*dstStride)*sz, asBytes(src[i*srcStride:i*srcStride+1]), true); err != nil {
			return err
		}
	}
	return nil
}

// IGet copies n elements with strides, as shmem_iget: dst[i*dstStride]
// receives src[i*srcStride] of PE pe for i in [0, n).
func IGet[T any](dst []T, src Sym[T], dstStride, srcStride, n, pe int) error {
	return CtxIGet(nil, dst, src, dstStride, srcStride, n, pe)
}

// CtxIGet is IGet on context c (shmem_ctx_iget).
func CtxIGet[T any](c *Ctx, dst []T, src Sym[T], dstStride, srcStride, n, pe int) error {
	pe, err := c.target(src.w, pe, false)
	if err != nil {
		return err
	}
	if err := checkStrided(srcStride, dstStride, n, len(dst)); err != nil {
		return err
	}
	if n == 0 {
		_, err := src.remote(pe, 0)
		return err
	}
	if _, err := src.remote(pe, (n-1)*srcStride+1); err != nil {
		return err
	}
	if m := src.w.tr.Mapped(pe); m != nil {
		in := unsafe.Slice((*T)(unsafe.Pointer(&m[src.off])), (n-1)*srcStride+1)
		for i := range n {
			dst[i*dstStride] = in[i*srcStride]
		}
		return nil
	}
	sz := elemSize[T]()
	for i := range n {
		if err := c.get(src.w, pe, src.off+uint64(i*srcStride)*sz, asBytes(dst[i*dstStride:i*dstStride+1]), true); err != nil {
			return err
		}
	}
	return c.quiet(src.w)
}

// checkStrided validates strides and the local slice's length (the remote
// side is checked against its object by the caller).
func checkStrided(remoteStride, localStride, n, localLen int) error {
	if n < 0 || remoteStride < 1 || localStride < 1 {
		return errf(ErrInvalid, "strided access of %d elements with strides %d and %d", n, remoteStride, localStride)
	}
	if n > 0 && (n-1)*localStride+1 > localLen {
		return errf(ErrOutOfBounds, "%d elements at stride %d need %d local elements, have %d",
			n, localStride, (n-1)*localStride+1, localLen)
	}
	return nil
}

// SignalOp says how a signal word is updated.
type SignalOp uint8

const (
	// SignalSet stores the value into the signal word (SHMEM_SIGNAL_SET).
	SignalSet SignalOp = iota
	// SignalAdd adds the value to the signal word (SHMEM_SIGNAL_ADD).
	SignalAdd
)

// PutSignal puts src into dst on PE pe and then updates the signal word sig
// on pe, as shmem_put_signal: a PE that sees the signal sees the data. It
// returns when src may be reused.
func PutSignal[T any](dst Sym[T], src []T, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	return CtxPutSignal(nil, dst, src, sig, value, op, pe)
}

// CtxPutSignal is PutSignal on context c (shmem_ctx_put_signal).
func CtxPutSignal[T any](c *Ctx, dst Sym[T], src []T, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	return putSignal(c, dst, src, sig, value, op, pe, false)
}

func putSignal[T any](c *Ctx, dst Sym[T], src []T, sig Sym[uint64], value uint64, op SignalOp, pe int, nbi bool) error {
	pe, err := c.target(dst.w, pe, true)
	if err != nil {
		return err
	}
	if err := checkPutSignal(dst, src, sig, op, pe); err != nil {
		return err
	}
	if err := c.put(dst.w, pe, dst.off, asBytes(src), nbi); err != nil {
		return err
	}
	if err := dst.w.tr.Fence(); err != nil {
		return err
	}
	return signal(c, sig, value, op, pe)
}

// PutSignalNBI starts a put-with-signal, as shmem_put_signal_nbi: src must
// not change until Quiet. The signal still arrives after the data.
func PutSignalNBI[T any](dst Sym[T], src []T, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	return CtxPutSignalNBI(nil, dst, src, sig, value, op, pe)
}

// CtxPutSignalNBI is PutSignalNBI on context c (shmem_ctx_put_signal_nbi).
func CtxPutSignalNBI[T any](c *Ctx, dst Sym[T], src []T, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	return putSignal(c, dst, src, sig, value, op, pe, true)
}

func checkPutSignal[T any](dst Sym[T], src []T, sig Sym[uint64], op SignalOp, pe int) error {
	if _, err := dst.remote(pe, len(src)); err != nil {
		return err
	}
	if _, err := sig.remote(pe, 1); err != nil {
		return err
	}
	if sig.w != dst.w {
		return errf(ErrNotSymmetric, "signal and data belong to different worlds")
	}
	if op > SignalAdd {
		return errf(ErrInvalid, "signal op %d", op)
	}
	return nil
}

// SignalOpAt updates the signal word sig on PE pe with op, as
// shmem_signal_op. The update is atomic.
func SignalOpAt(sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	return CtxSignalOpAt(nil, sig, value, op, pe)
}

// CtxSignalOpAt is SignalOpAt on context c (shmem_ctx_signal_op).
func CtxSignalOpAt(c *Ctx, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	pe, err := c.target(sig.w, pe, true)
	if err != nil {
		return err
	}
	if _, err := sig.remote(pe, 1); err != nil {
		return err
	}
	if op > SignalAdd {
		return errf(ErrInvalid, "signal op %d", op)
	}
	return signal(c, sig, value, op, pe)
}

func signal(c *Ctx, sig Sym[uint64], value uint64, op SignalOp, pe int) error {
	if sig.off%8 != 0 {
		return errf(ErrMisaligned, "signal word at offset %d", sig.off)
	}
	aop := transport.OpStore
	if op == SignalAdd {
		aop = transport.OpAdd
	}
	_, err := c.atomic(sig.w, pe, sig.off, 8, aop, value, 0)
	return err
}

// SignalFetch atomically reads this PE's signal word, as shmem_signal_fetch.
func SignalFetch(sig Sym[uint64]) (uint64, error) {
	return Load(sig, mustPE(sig))
}

func mustPE[T any](s Sym[T]) int {
	if s.w == nil {
		return 0
	}
	return s.w.pe
}
