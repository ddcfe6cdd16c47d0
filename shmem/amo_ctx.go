package shmem

import (
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// The atomics on a context (shmem_ctx_atomic_*), and the non-blocking
// fetching atomics (shmem_atomic_*_nbi): these return at once and store
// the old value into *fetch, which is valid after Quiet (of the context,
// for the Ctx forms). fetch must stay untouched until then.

// CtxLoad is Load on context c (shmem_ctx_atomic_fetch).
func CtxLoad[T Atomic](c *Ctx, t Sym[T], pe int) (T, error) {
	var z T
	return ctxAMO(c, t, pe, transport.OpLoad, z, z)
}

// CtxStore is Store on context c (shmem_ctx_atomic_set).
func CtxStore[T Atomic](c *Ctx, t Sym[T], v T, pe int) error {
	_, err := ctxAMO(c, t, pe, transport.OpStore, v, v)
	return err
}

// CtxSwap is Swap on context c (shmem_ctx_atomic_swap).
func CtxSwap[T Atomic](c *Ctx, t Sym[T], v T, pe int) (T, error) {
	return ctxAMO(c, t, pe, transport.OpSwap, v, v)
}

// CtxCompareAndSwap is CompareAndSwap on context c
// (shmem_ctx_atomic_compare_swap).
func CtxCompareAndSwap[T Integer](c *Ctx, t Sym[T], old, new T, pe int) (T, error) {
	return ctxAMO(c, t, pe, transport.OpCompareAndSwap, new, old)
}

// CtxAdd is Add on context c (shmem_ctx_atomic_add).
func CtxAdd[T Integer](c *Ctx, t Sym[T], v T, pe int) error {
	_, err := ctxAMO(c, t, pe, transport.OpAdd, v, v)
	return err
}

// CtxFetchAdd is FetchAdd on context c (shmem_ctx_atomic_fetch_add).
func CtxFetchAdd[T Integer](c *Ctx, t Sym[T], v T, pe int) (T, error) {
	return ctxAMO(c, t, pe, transport.OpAdd, v, v)
}

// CtxInc is Inc on context c (shmem_ctx_atomic_inc).
func CtxInc[T Integer](c *Ctx, t Sym[T], pe int) error { return CtxAdd(c, t, 1, pe) }

// CtxFetchInc is FetchInc on context c (shmem_ctx_atomic_fetch_inc).
func CtxFetchInc[T Integer](c *Ctx, t Sym[T], pe int) (T, error) { return CtxFetchAdd(c, t, 1, pe) }

// CtxAnd is And on context c (shmem_ctx_atomic_and).
func CtxAnd[T Integer](c *Ctx, t Sym[T], v T, pe int) error {
	_, err := ctxAMO(c, t, pe, transport.OpAnd, v, v)
	return err
}

// CtxFetchAnd is FetchAnd on context c (shmem_ctx_atomic_fetch_and).
func CtxFetchAnd[T Integer](c *Ctx, t Sym[T], v T, pe int) (T, error) {
	return ctxAMO(c, t, pe, transport.OpAnd, v, v)
}

// CtxOr is Or on context c (shmem_ctx_atomic_or).
func CtxOr[T Integer](c *Ctx, t Sym[T], v T, pe int) error {
	_, err := ctxAMO(c, t, pe, transport.OpOr, v, v)
	return err
}

// CtxFetchOr is FetchOr on context c (shmem_ctx_atomic_fetch_or).
func CtxFetchOr[T Integer](c *Ctx, t Sym[T], v T, pe int) (T, error) {
	return ctxAMO(c, t, pe, transport.OpOr, v, v)
}

// CtxXor is Xor on context c (shmem_ctx_atomic_xor).
func CtxXor[T Integer](c *Ctx, t Sym[T], v T, pe int) error {
	_, err := ctxAMO(c, t, pe, transport.OpXor, v, v)
	return err
}

// CtxFetchXor is FetchXor on context c (shmem_ctx_atomic_fetch_xor).
func CtxFetchXor[T Integer](c *Ctx, t Sym[T], v T, pe int) (T, error) {
	return ctxAMO(c, t, pe, transport.OpXor, v, v)
}

// ctxAMONBI starts one atomic whose old value lands in *fetch by Quiet.
func ctxAMONBI[T Atomic](c *Ctx, fetch *T, t Sym[T], pe int, op transport.AtomicOp, v, cmp T) error {
	if fetch == nil {
		return errf(ErrInvalid, "non-blocking fetch into a nil pointer")
	}
	pe, err := c.target(t.w, pe, op != transport.OpLoad)
	if err != nil {
		return err
	}
	if _, err := t.remote(pe, 1); err != nil {
		return err
	}
	if t.n == 0 {
		return errf(ErrOutOfBounds, "atomic on an empty object")
	}
	sz := elemSize[T]()
	if t.off%sz != 0 {
		return errf(ErrMisaligned, "%d-byte atomic at offset %d", sz, t.off)
	}
	dst := unsafe.Slice((*byte)(unsafe.Pointer(fetch)), sz)
	return c.atomicNBI(t.w, pe, t.off, int(sz), op, toBits(v), toBits(cmp), dst)
}

// FetchNBI starts an atomic read of the first element of t on PE pe into
// *fetch (shmem_atomic_fetch_nbi).
func FetchNBI[T Atomic](fetch *T, t Sym[T], pe int) error { return CtxFetchNBI(nil, fetch, t, pe) }

// CtxFetchNBI is FetchNBI on context c.
func CtxFetchNBI[T Atomic](c *Ctx, fetch *T, t Sym[T], pe int) error {
	var z T
	return ctxAMONBI(c, fetch, t, pe, transport.OpLoad, z, z)
}

// SwapNBI starts Swap; the previous value lands in *fetch
// (shmem_atomic_swap_nbi).
func SwapNBI[T Atomic](fetch *T, t Sym[T], v T, pe int) error {
	return CtxSwapNBI(nil, fetch, t, v, pe)
}

// CtxSwapNBI is SwapNBI on context c.
func CtxSwapNBI[T Atomic](c *Ctx, fetch *T, t Sym[T], v T, pe int) error {
	return ctxAMONBI(c, fetch, t, pe, transport.OpSwap, v, v)
}

// CompareAndSwapNBI starts CompareAndSwap; the value the word held lands
// in *fetch (shmem_atomic_compare_swap_nbi).
func CompareAndSwapNBI[T Integer](fetch *T, t Sym[T], old, new T, pe int) error {
	return CtxCompareAndSwapNBI(nil, fetch, t, old, new, pe)
}

// CtxCompareAndSwapNBI is CompareAndSwapNBI on context c.
func CtxCompareAndSwapNBI[T Integer](c *Ctx, fetch *T, t Sym[T], old, new T, pe int) error {
	return ctxAMONBI(c, fetch, t, pe, transport.OpCompareAndSwap, new, old)
}

// FetchAddNBI starts FetchAdd (shmem_atomic_fetch_add_nbi).
func FetchAddNBI[T Integer](fetch *T, t Sym[T], v T, pe int) error {
	return CtxFetchAddNBI(nil, fetch, t, v, pe)
}

// CtxFetchAddNBI is FetchAddNBI on context c.
func CtxFetchAddNBI[T Integer](c *Ctx, fetch *T, t Sym[T], v T, pe int) error {
	return ctxAMONBI(c, fetch, t, pe, transport.OpAdd, v, v)
}

// FetchIncNBI starts FetchInc (shmem_atomic_fetch_inc_nbi).
func FetchIncNBI[T Integer](fetch *T, t Sym[T], pe int) error {
	return CtxFetchAddNBI(nil, fetch, t, 1, pe)
}

// CtxFetchIncNBI is FetchIncNBI on context c.
func CtxFetchIncNBI[T Integer](c *Ctx, fetch *T, t Sym[T], pe int) error {
	return CtxFetchAddNBI(c, fetch, t, 1, pe)
}

// FetchAndNBI starts FetchAnd (shmem_atomic_fetch_and_nbi).
func FetchAndNBI[T Integer](fetch *T, t Sym[T], v T, pe int) error {
	return CtxFetchAndNBI(nil, fetch, t, v, pe)
}

// CtxFetchAndNBI is FetchAndNBI on context c.
func CtxFetchAndNBI[T Integer](c *Ctx, fetch *T, t Sym[T], v T, pe int) error {
	return ctxAMONBI(c, fetch, t, pe, transport.OpAnd, v, v)
}

// FetchOrNBI starts FetchOr (shmem_atomic_fetch_or_nbi).
func FetchOrNBI[T Integer](fetch *T, t Sym[T], v T, pe int) error {
	return CtxFetchOrNBI(nil, fetch, t, v, pe)
}

// CtxFetchOrNBI is FetchOrNBI on context c.
func CtxFetchOrNBI[T Integer](c *Ctx, fetch *T, t Sym[T], v T, pe int) error {
	return ctxAMONBI(c, fetch, t, pe, transport.OpOr, v, v)
}

// FetchXorNBI starts FetchXor (shmem_atomic_fetch_xor_nbi).
func FetchXorNBI[T Integer](fetch *T, t Sym[T], v T, pe int) error {
	return CtxFetchXorNBI(nil, fetch, t, v, pe)
}

// CtxFetchXorNBI is FetchXorNBI on context c.
func CtxFetchXorNBI[T Integer](c *Ctx, fetch *T, t Sym[T], v T, pe int) error {
	return ctxAMONBI(c, fetch, t, pe, transport.OpXor, v, v)
}
