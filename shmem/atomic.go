package shmem

import (
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Integer is the set of types the integer atomics and waits accept: the
// 4- and 8-byte integers (int and uint are 8 bytes on every supported
// platform).
type Integer interface {
	~int32 | ~int64 | ~uint32 | ~uint64 | ~int | ~uint
}

// Atomic is the set of types Load, Store and Swap accept: Integer plus the
// floats (as in OpenSHMEM's extended AMO types).
type Atomic interface {
	Integer | ~float32 | ~float64
}

func toBits[T any](v T) uint64 {
	switch unsafe.Sizeof(v) {
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(&v)))
	case 8:
		return *(*uint64)(unsafe.Pointer(&v))
	}
	return 0
}

func fromBits[T any](b uint64) T {
	var v T
	switch unsafe.Sizeof(v) {
	case 2:
		*(*uint16)(unsafe.Pointer(&v)) = uint16(b)
	case 4:
		*(*uint32)(unsafe.Pointer(&v)) = uint32(b)
	case 8:
		*(*uint64)(unsafe.Pointer(&v)) = b
	}
	return v
}

// amo runs one atomic on the first element of t at pe and returns the
// previous value.
func amo[T Atomic](t Sym[T], pe int, op transport.AtomicOp, v, cmp T) (T, error) {
	return ctxAMO(nil, t, pe, op, v, cmp)
}

// ctxAMO is amo on context c.
func ctxAMO[T Atomic](c *Ctx, t Sym[T], pe int, op transport.AtomicOp, v, cmp T) (T, error) {
	var zero T
	pe, err := c.target(t.w, pe, op != transport.OpLoad)
	if err != nil {
		return zero, err
	}
	if _, err := t.remote(pe, 1); err != nil {
		return zero, err
	}
	if t.n == 0 {
		return zero, errf(ErrOutOfBounds, "atomic on an empty object")
	}
	sz := elemSize[T]()
	if t.off%sz != 0 {
		return zero, errf(ErrMisaligned, "%d-byte atomic at offset %d", sz, t.off)
	}
	old, err := c.atomic(t.w, pe, t.off, int(sz), op, toBits(v), toBits(cmp))
	return fromBits[T](old), err
}

// Load atomically reads the first element of t on PE pe
// (shmem_atomic_fetch). It is sequentially consistent with the other atomics.
func Load[T Atomic](t Sym[T], pe int) (T, error) {
	var z T
	return amo(t, pe, transport.OpLoad, z, z)
}

// Store atomically writes v to the first element of t on PE pe
// (shmem_atomic_set).
func Store[T Atomic](t Sym[T], v T, pe int) error {
	_, err := amo(t, pe, transport.OpStore, v, v)
	return err
}

// Swap atomically stores v into the first element of t on PE pe and returns
// the previous value (shmem_atomic_swap).
func Swap[T Atomic](t Sym[T], v T, pe int) (T, error) {
	return amo(t, pe, transport.OpSwap, v, v)
}

// CompareAndSwap atomically replaces the first element of t on PE pe with
// new if it equals old, and returns the value it held
// (shmem_atomic_compare_swap): the swap happened if and only if that value
// equals old.
func CompareAndSwap[T Integer](t Sym[T], old, new T, pe int) (T, error) {
	return amo(t, pe, transport.OpCompareAndSwap, new, old)
}

// Add atomically adds v to the first element of t on PE pe (shmem_atomic_add).
func Add[T Integer](t Sym[T], v T, pe int) error {
	_, err := amo(t, pe, transport.OpAdd, v, v)
	return err
}

// FetchAdd atomically adds v and returns the previous value
// (shmem_atomic_fetch_add).
func FetchAdd[T Integer](t Sym[T], v T, pe int) (T, error) {
	return amo(t, pe, transport.OpAdd, v, v)
}

// Inc atomically adds one (shmem_atomic_inc).
func Inc[T Integer](t Sym[T], pe int) error { return Add(t, 1, pe) }

// FetchInc atomically adds one and returns the previous value
// (shmem_atomic_fetch_inc).
func FetchInc[T Integer](t Sym[T], pe int) (T, error) { return FetchAdd(t, 1, pe) }

// And atomically ANDs v into the first element of t on PE pe (shmem_atomic_and).
func And[T Integer](t Sym[T], v T, pe int) error {
	_, err := amo(t, pe, transport.OpAnd, v, v)
	return err
}

// FetchAnd is And returning the previous value (shmem_atomic_fetch_and).
func FetchAnd[T Integer](t Sym[T], v T, pe int) (T, error) {
	return amo(t, pe, transport.OpAnd, v, v)
}

// Or atomically ORs v into the first element of t on PE pe (shmem_atomic_or).
func Or[T Integer](t Sym[T], v T, pe int) error {
	_, err := amo(t, pe, transport.OpOr, v, v)
	return err
}

// FetchOr is Or returning the previous value (shmem_atomic_fetch_or).
func FetchOr[T Integer](t Sym[T], v T, pe int) (T, error) {
	return amo(t, pe, transport.OpOr, v, v)
}

// Xor atomically XORs v into the first element of t on PE pe (shmem_atomic_xor).
func Xor[T Integer](t Sym[T], v T, pe int) error {
	_, err := amo(t, pe, transport.OpXor, v, v)
	return err
}

// FetchXor is Xor returning the previous value (shmem_atomic_fetch_xor).
func FetchXor[T Integer](t Sym[T], v T, pe int) (T, error) {
	return amo(t, pe, transport.OpXor, v, v)
}
