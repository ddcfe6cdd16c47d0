package windows

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// Bindings: what a window shows to code in another language that runs its
// hottest calls without crossing into Go (the C ABI, libmpi_abi, where a
// C->Go call costs more than a whole put into a mapped peer). Such code
// reads and updates the same epoch bytes as the Go calls, so a program may
// mix the two paths freely: the binding's fast path handles the common
// case (an open epoch, a mapped target, a predefined type) and calls the
// Go method for everything else, which then sees every change the fast
// path made.

// epoch is the per-origin synchronization state checked first by every
// operation. Its layout is fixed (EpochSize bytes, then access[n] and
// locks[n]), because a binding's fast paths read and write it in place;
// the byte values are the access states and lock words below.
type epoch struct {
	lockAll uint8 // LockShared|lockNoCheck while LockAll is held
	fence   uint8 // fenceNone, fenceMaybe or fenceActive
	inStart bool
	_       uint8
	nlocks  int32 // targets locked by Lock
}

// EpochSize is the size of the epoch header at the start of the memory a
// binding passes to Bind.
const EpochSize = int(unsafe.Sizeof(epoch{}))

// The values a binding reads in the state Bind places in its memory.
// Header bytes: 0 LockAll (AccessLockShared|LockNoCheck while LockAll is
// held), 1 the fence state, 2 inside a Start epoch (0 or 1), then the
// number of Lock-ed targets as an int32 at byte 4. Then access[n]: each
// target's access state. Then locks[n]: the LockType held on each target
// by Lock, | LockNoCheck with ModeNoCheck, or LockTaking while a thread
// takes or releases it. The bytes threads may change at once (access in a
// LockAll epoch's first operations, access and locks in Lock and Unlock
// of different targets) change by atomics on their aligned 4-byte words
// (access.go), and the count of locked targets by 4-byte atomics.
const (
	AccessNone    = accNone     // no epoch open to the target
	AccessOpen    = accOK       // an epoch is open: operations may go to the target
	AccessLockAll = accLockAll  // LockAll epoch: the target's shared lock is taken on first use
	AccessOpening = accOpening  // LockAll epoch: a thread is taking the target's shared lock (access.go)
	LockNoCheck   = lockNoCheck // the lock was taken with ModeNoCheck (no lock word held)
	LockTaking    = lockTaking  // a thread is taking or releasing the target's lock (lock.go)
	FenceNone     = fenceNone   // no fence epoch
)

// BindSize is the number of bytes Bind needs for a window of n ranks:
// the header, access and locks, rounded up to whole 4-byte words (the
// bytes are read and swapped as their aligned words, access.go).
func BindSize(n int) int { return EpochSize + (2*n+3)&^3 }

// Bind moves the window's epoch state into mem (BindSize(Group size)
// bytes, 4-byte aligned, memory the Go garbage collector does not move:
// C memory), after copying the current state there. From then on the
// window reads and writes it only there, and the binding may too, under
// the Win's rules for concurrent callers (the package doc). mem must stay valid until Free
// returns.
func (win *Win) Bind(mem []byte) error {
	if err := win.check(); err != nil {
		return err
	}
	if len(mem) < BindSize(win.n) || uintptr(unsafe.Pointer(unsafe.SliceData(mem)))%4 != 0 {
		return errorf(compat.ClassArg, "Bind needs %d bytes, 4-byte aligned; got %d at %p", BindSize(win.n), len(mem), unsafe.SliceData(mem))
	}
	ep := (*epoch)(unsafe.Pointer(&mem[0]))
	*ep = *win.ep
	access := mem[EpochSize : EpochSize+win.n : EpochSize+win.n]
	locks := mem[EpochSize+win.n : EpochSize+2*win.n : EpochSize+2*win.n]
	copy(access, win.access)
	copy(locks, win.locks)
	win.ep, win.access, win.locks = ep, access, locks
	return nil
}

// Target is where one rank's window memory and lock words are in this
// process, for a binding's load/store fast paths.
type Target struct {
	// Data is the first byte of the rank's window memory, Size its length
	// in bytes and Unit its displacement unit.
	Data unsafe.Pointer
	Size int
	Unit int
	// Lock is the rank's passive-target lock: four uint32 words (reader
	// ins, reader outs, writer tickets, writer tickets served) of a
	// phase-fair reader-writer ticket lock; a shared locker adds
	// LockReaderInc to the first and holds the lock when the value it
	// replaced has no LockWriterBits set, and releases it by adding
	// LockReaderInc to the second.
	Lock unsafe.Pointer
	// Bell is the doorbell of the heap holding Data and Lock
	// (shmem.Mapped.Doorbell): ring it after writing there.
	Bell unsafe.Pointer
	// Table, for a dynamic window, is the rank's allocation (Size bytes,
	// Unit 1, Data nil): its table of attached regions (DynHeader bytes
	// of header, uint64 high-water mark then generation, and DynSlots
	// slots of DynSlotBytes: address, length, offset in the allocation,
	// state), then the pool the offsets point into. A binding may serve
	// an access that lies wholly in a region whose state is DynSlotPool
	// at Table+offset+(address-region address), caching the region while
	// the generation stays; any other access is the Go calls'.
	Table unsafe.Pointer
}

// The layout of a dynamic window's region table, for Target.Table.
const (
	DynHeader    = dynHeader
	DynSlots     = dynSlots
	DynSlotBytes = dynSlotBytes
	DynTable     = dynTableBytes
	DynSlotPool  = int(slotPool)
)

// The shared side of the lock protocol of Target.Lock.
const (
	LockReaderInc  = rInc
	LockWriterBits = wBits
)

// Target returns where rank's window memory is in this process, and false
// when the binding must use the Go calls for it: a rank whose heap is not
// mapped here, a dynamic window of goroutine PEs, a window in the separate model (whose
// copies the Go calls reconcile), a window on a World whose heap is GPU
// memory (an origin buffer there may be device memory, which a binding
// would read as host memory: device.go), or one that has been freed.
func (win *Win) Target(rank int) (Target, bool) {
	if win == nil || win.dead.Load() || uint(rank) >= uint(win.n) || win.model != Unified || win.devWorld ||
		(win.flavor == FlavorDynamic && win.dyn.direct) {
		return Target{}, false
	}
	s, c := &win.segs[rank], &win.ctrlMem[rank]
	if s.mem.mapped == nil || c.mapped == nil || !s.mem.heap.Valid() {
		return Target{}, false
	}
	if win.flavor == FlavorDynamic {
		m := s.mem.mapped
		return Target{Size: len(m), Unit: 1, Lock: c.ptr(ctrlRin), Bell: s.mem.heap.Doorbell(), Table: unsafe.Pointer(&m[0])}, true
	}
	t := Target{Size: s.size, Unit: s.unit, Lock: c.ptr(ctrlRin), Bell: s.mem.heap.Doorbell()}
	if s.size > 0 {
		t.Data = s.mem.ptr(s.base)
	}
	return t, true
}

// NoLocks reports whether the window was created with info no_locks=true
// (Lock and LockAll then fail).
func (win *Win) NoLocks() bool { return win.set.noLocks }

// AwaitShared completes a shared lock on rank that a binding began: it
// added LockReaderInc to the reader-ins word and the value it replaced,
// seen, had writer bits set, so it must wait until that writer phase has
// passed, exactly as Lock does. The binding then records the lock in the
// epoch state itself. It returns the wait's error (a lost peer, an
// aborted job), as Lock does.
func (win *Win) AwaitShared(rank int, seen uint32) error {
	if uint(rank) >= uint(win.n) {
		return errorf(compat.ClassRank, "target rank %d of a window of %d ranks", rank, win.n)
	}
	return win.awaitShared(rank, seen&wBits)
}
