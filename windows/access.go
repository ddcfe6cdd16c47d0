package windows

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// A LockAll epoch takes each target's shared lock on the first operation
// to it. Threads sharing one window (MPI_THREAD_MULTIPLE: the epoch is the
// process's, opened once before the threads start) may make that first
// operation at once, in Go and in a binding's fast path (compat/abi's
// rma.c), so the access byte moves from accLockAll to accOpening by one
// compare-and-swap: its winner takes the lock and stores accOK (or
// accLockAll again when the lock wait failed), and the others wait until
// it has. Both sides make the swap on the 4-byte word holding the byte, so
// the two languages' atomics are of one size (access starts 4-byte
// aligned: wordBytes here, EpochSize bytes into a binding's memory). The
// other epoch calls change access with plain stores: MPI lets them run
// only while no other thread uses the window.

// wordBytes returns n zero bytes starting on a 4-byte boundary, so that
// the word around any of them stays within the allocation.
func wordBytes(n int) []uint8 {
	w := make([]uint32, (n+3)/4)
	if n == 0 {
		return []uint8{}
	}
	return unsafe.Slice((*uint8)(unsafe.Pointer(&w[0])), n)
}

// accessWord returns the aligned word holding *p and the byte's shift in
// it (little-endian, as every platform the bindings build on is).
func accessWord(p *uint8) (*uint32, uint) {
	off := uintptr(unsafe.Pointer(p)) & 3
	return (*uint32)(unsafe.Add(unsafe.Pointer(p), -int(off))), uint(off) * 8
}

// loadAccess reads an access byte atomically.
func loadByte(p *uint8) uint8 {
	w, sh := accessWord(p)
	return uint8(atomic.LoadUint32(w) >> sh)
}

// casAccess moves an access byte from old to v atomically and reports
// whether it did; a change to another byte of its word only retries.
func casByte(p *uint8, old, v uint8) bool {
	w, sh := accessWord(p)
	for {
		cur := atomic.LoadUint32(w)
		if uint8(cur>>sh) != old {
			return false
		}
		if atomic.CompareAndSwapUint32(w, cur, cur&^(0xff<<sh)|uint32(v)<<sh) {
			return true
		}
	}
}

// storeAccess writes an access byte atomically.
func storeByte(p *uint8, v uint8) {
	w, sh := accessWord(p)
	for {
		cur := atomic.LoadUint32(w)
		if atomic.CompareAndSwapUint32(w, cur, cur&^(0xff<<sh)|uint32(v)<<sh) {
			return
		}
	}
}

// openLockAll opens rank in a LockAll epoch: the caller that wins the
// swap takes the shared lock, the others wait for it (as long as its lock
// wait, which checks the World and the peer; this one checks them too).
func (win *Win) openLockAll(rank int) error {
	p := &win.access[rank]
	pause := time.Microsecond
	for {
		switch loadByte(p) {
		case accOK:
			return nil
		case accLockAll:
			if !casByte(p, accLockAll, accOpening) {
				continue
			}
			if err := win.acquire(rank, LockShared); err != nil {
				storeByte(p, accLockAll)
				return err
			}
			storeByte(p, accOK)
			return nil
		case accOpening:
			if err := win.alive(); err != nil {
				return err
			}
			if win.ctx.Err() != nil {
				return errAborted()
			}
			time.Sleep(pause)
			pause = min(2*pause, 100*time.Microsecond)
		default:
			return errorf(compat.ClassRMASync, "the LockAll epoch to rank %d ended while an operation began", rank)
		}
	}
}
