package shmem

import (
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// Mapped is a PE's heap as this process maps it, for layers that write
// into a peer's memory directly (the pointers of Ptr) and must wake the
// peer when it sleeps in a wait: the "store and wake" of the runtime. Every
// store below is the sync/atomic operation of the same name, followed by
// the check of the heap's doorbell (one load when nobody sleeps) that wakes
// the heap's sleeping user waiters (WaitUntil, Await on that PE, a
// compat receive, a window lock). The runtime's own puts and atomics ring
// the same doorbell, so a waiter wakes whichever path wrote.
//
// Each address passed must point into the heap of the PE the Mapped was
// made for (into a slice from Ptr for that PE), naturally aligned; the
// helpers do not check it, so that they cost what the bare atomic costs.
// The zero Mapped (a PE whose heap is not mapped here) must not be used:
// reach that PE through Put and the atomics instead.
type Mapped struct {
	bell *doorbell.Bell
}

// Mapped returns pe's heap if this process maps it (as Ptr would), or the
// zero Mapped. This PE's own heap is always mapped.
func (w *World) Mapped(pe int) Mapped {
	if pe < 0 || pe >= w.npes {
		return Mapped{}
	}
	return Mapped{bell: w.bell(pe)}
}

// Valid reports whether m is a mapped heap.
func (m Mapped) Valid() bool { return m.bell != nil }

// Doorbell returns the address of the heap's doorbell (nil for the zero
// Mapped), for code in another language that writes into the heap
// directly (the C ABI's hot paths) and must wake its sleepers as the
// helpers here do. The doorbell is four uint32 words: a sequence, the
// count of user waiters, of runtime waiters and of lock waiters. After its
// writes (fenced: a sequentially consistent atomic, or a full fence after
// plain stores) such code loads the user count and, when it is not zero,
// adds 1 to the sequence and wakes every futex(2) waiter on it (a shared,
// not FUTEX_PRIVATE, wake: sleepers may be other processes). After a
// lock word's release (RingLock) it loads the lock count instead.
func (m Mapped) Doorbell() unsafe.Pointer {
	if m.bell == nil {
		return nil
	}
	return unsafe.Pointer(m.bell)
}

// RingLock wakes the heap's lock waiters (AwaitLock) after the caller
// released a lock word with an atomic; the heap's user and runtime waiters
// sleep on (a lock's release must not wake a peer asleep in a receive or
// a barrier).
func (m Mapped) RingLock() { m.bell.RingLock() }

// Wake wakes the heap's sleeping waiters after the caller wrote into it
// with plain stores (a copy): it fences those stores first, so that a
// waiter registering now either is woken or sees them.
func (m Mapped) Wake() {
	doorbell.Fence()
	m.bell.RingUser()
}

// WakeNoYield is Wake for a caller that holds a lock other threads of its
// process wait for (compat's engine lock): the wake-up is a raw system
// call, which keeps the calling thread's P (FUTEX_WAKE never blocks), so
// the holder does not queue for a P behind its own lock's waiters.
func (m Mapped) WakeNoYield() {
	doorbell.Fence()
	m.bell.RingUserNoYield()
}

// StoreUint64NoYield is StoreUint64 with WakeNoYield's wake-up.
func (m Mapped) StoreUint64NoYield(addr *uint64, v uint64) {
	atomic.StoreUint64(addr, v)
	m.bell.RingUserNoYield()
}

// StoreUint64 atomically stores v into *addr and wakes the heap's waiters.
// The store is sequentially consistent: a waiter that sees v also sees
// every store the caller made before it.
func (m Mapped) StoreUint64(addr *uint64, v uint64) {
	atomic.StoreUint64(addr, v)
	m.bell.RingUser()
}

// StoreUint32 is StoreUint64 for a 4-byte word.
func (m Mapped) StoreUint32(addr *uint32, v uint32) {
	atomic.StoreUint32(addr, v)
	m.bell.RingUser()
}

// AddUint64 atomically adds delta to *addr, wakes the heap's waiters and
// returns the new value.
func (m Mapped) AddUint64(addr *uint64, delta uint64) uint64 {
	n := atomic.AddUint64(addr, delta)
	m.bell.RingUser()
	return n
}

// AddUint32 is AddUint64 for a 4-byte word.
func (m Mapped) AddUint32(addr *uint32, delta uint32) uint32 {
	n := atomic.AddUint32(addr, delta)
	m.bell.RingUser()
	return n
}

// AndUint32 atomically ands *addr with mask, wakes the heap's waiters and
// returns the old value.
func (m Mapped) AndUint32(addr *uint32, mask uint32) uint32 {
	old := atomic.AndUint32(addr, mask)
	m.bell.RingUser()
	return old
}

// OrUint32 atomically ors mask into *addr, wakes the heap's waiters and
// returns the old value.
func (m Mapped) OrUint32(addr *uint32, mask uint32) uint32 {
	old := atomic.OrUint32(addr, mask)
	m.bell.RingUser()
	return old
}

// CompareAndSwapUint32 stores new into *addr if it holds old, atomically,
// and returns the value it held (as shmem.CompareAndSwap, not a bool as
// sync/atomic: the swap happened when it equals old). It wakes the heap's
// waiters only when it swapped.
func (m Mapped) CompareAndSwapUint32(addr *uint32, old, new uint32) uint32 {
	prev := uint32(atomicop.Apply(unsafe.Pointer(addr), 4, atomicop.CompareAndSwap, uint64(new), uint64(old)))
	if prev == old {
		m.bell.RingUser()
	}
	return prev
}

// CompareAndSwapUint64 is CompareAndSwapUint32 for an 8-byte word.
func (m Mapped) CompareAndSwapUint64(addr *uint64, old, new uint64) uint64 {
	prev := atomicop.Apply(unsafe.Pointer(addr), 8, atomicop.CompareAndSwap, new, old)
	if prev == old {
		m.bell.RingUser()
	}
	return prev
}

// AtomicOp is an operation of Apply: the runtime's one table of
// hardware atomics, which its own transports use too.
type AtomicOp = atomicop.Op

// The operations of Apply. Each returns the word's previous value (Store
// returns 0).
const (
	AtomicLoad           = atomicop.Load
	AtomicStore          = atomicop.Store
	AtomicSwap           = atomicop.Swap
	AtomicCompareAndSwap = atomicop.CompareAndSwap
	AtomicAdd            = atomicop.Add
	AtomicAnd            = atomicop.And
	AtomicOr             = atomicop.Or
	AtomicXor            = atomicop.Xor
)

// Apply runs op atomically on the word of width bytes (1, 2, 4 or 8,
// naturally aligned) at p, with operand v and, for AtomicCompareAndSwap,
// the compare value cmp, and returns the previous value. Words of 1 and 2
// bytes and the ops without an instruction of their own run as a
// compare-and-swap loop on the aligned word that holds them. Every op but
// AtomicLoad wakes the heap's waiters. An op or width outside these fails
// with ErrInvalid and touches nothing.
func (m Mapped) Apply(p unsafe.Pointer, width int, op AtomicOp, v, cmp uint64) (uint64, error) {
	if !op.Valid() || !atomicop.Width(width) {
		return 0, errf(ErrInvalid, "%d-byte atomic %v", width, op)
	}
	if uintptr(p)%uintptr(width) != 0 {
		return 0, errf(ErrMisaligned, "%d-byte atomic at %p", width, p)
	}
	old := atomicop.Apply(p, width, op, v, cmp)
	if op.Writes() {
		m.bell.RingUser()
	}
	return old, nil
}
