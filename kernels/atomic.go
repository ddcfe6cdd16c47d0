package kernels

import "github.com/gshmem/gshmem/shmem"

// Device-side atomics on the first element of a symmetric object on PE pe,
// as the host ones in package shmem (nvshmem_atomic_*). At group scope the
// atomic is made once for the group and every thread gets its result.

// FetchAdd atomically adds v and returns the previous value.
func FetchAdd[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) T {
	return single(sc, "FetchAdd", func(*Thread) (T, error) { return shmem.FetchAdd(dst, v, pe) })
}

// Add atomically adds v.
func Add[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) {
	single(sc, "Add", func(*Thread) (struct{}, error) { return struct{}{}, shmem.Add(dst, v, pe) })
}

// FetchInc atomically adds one and returns the previous value.
func FetchInc[T shmem.Integer](sc Scope, dst shmem.Sym[T], pe int) T {
	return single(sc, "FetchInc", func(*Thread) (T, error) { return shmem.FetchInc(dst, pe) })
}

// Inc atomically adds one.
func Inc[T shmem.Integer](sc Scope, dst shmem.Sym[T], pe int) {
	single(sc, "Inc", func(*Thread) (struct{}, error) { return struct{}{}, shmem.Inc(dst, pe) })
}

// CompareAndSwap atomically replaces the value with new if it equals old
// and returns the value it held.
func CompareAndSwap[T shmem.Integer](sc Scope, dst shmem.Sym[T], old, new T, pe int) T {
	return single(sc, "CompareAndSwap", func(*Thread) (T, error) { return shmem.CompareAndSwap(dst, old, new, pe) })
}

// Swap atomically stores v and returns the previous value.
func Swap[T shmem.Atomic](sc Scope, dst shmem.Sym[T], v T, pe int) T {
	return single(sc, "Swap", func(*Thread) (T, error) { return shmem.Swap(dst, v, pe) })
}

// Load atomically reads the value (nvshmem_atomic_fetch).
func Load[T shmem.Atomic](sc Scope, src shmem.Sym[T], pe int) T {
	return single(sc, "Load", func(*Thread) (T, error) { return shmem.Load(src, pe) })
}

// Store atomically writes v (nvshmem_atomic_set).
func Store[T shmem.Atomic](sc Scope, dst shmem.Sym[T], v T, pe int) {
	single(sc, "Store", func(*Thread) (struct{}, error) { return struct{}{}, shmem.Store(dst, v, pe) })
}

// And atomically ANDs v in.
func And[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) {
	single(sc, "And", func(*Thread) (struct{}, error) { return struct{}{}, shmem.And(dst, v, pe) })
}

// Or atomically ORs v in.
func Or[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) {
	single(sc, "Or", func(*Thread) (struct{}, error) { return struct{}{}, shmem.Or(dst, v, pe) })
}

// Xor atomically XORs v in.
func Xor[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) {
	single(sc, "Xor", func(*Thread) (struct{}, error) { return struct{}{}, shmem.Xor(dst, v, pe) })
}

// FetchAnd is And returning the previous value.
func FetchAnd[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) T {
	return single(sc, "FetchAnd", func(*Thread) (T, error) { return shmem.FetchAnd(dst, v, pe) })
}

// FetchOr is Or returning the previous value.
func FetchOr[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) T {
	return single(sc, "FetchOr", func(*Thread) (T, error) { return shmem.FetchOr(dst, v, pe) })
}

// FetchXor is Xor returning the previous value.
func FetchXor[T shmem.Integer](sc Scope, dst shmem.Sym[T], v T, pe int) T {
	return single(sc, "FetchXor", func(*Thread) (T, error) { return shmem.FetchXor(dst, v, pe) })
}
