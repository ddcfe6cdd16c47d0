package windows

import (
	"sync/atomic"

	"github.com/gshmem/gshmem/compat"
)

// Passive-target locks. Every PE's control area holds a phase-fair
// reader-writer ticket lock (Brandenburg and Anderson's PF-T): four 32-bit
// words updated with remote atomics. Writers are served in ticket order;
// readers that arrive while a writer waits go after it, and readers that
// arrive while a writer holds the lock go before the next writer. So
// neither exclusive nor shared lockers starve under contention, and
// counters that wrap around stay correct (only equality is tested).
const (
	rInc  = 0x100 // reader increment in rin/rout
	wBits = 0x3   // writer bits in rin
	wPres = 0x2   // a writer is present
	wPhid = 0x1   // its phase
)

func (win *Win) acquire(t int, typ LockType) error {
	c := &win.ctrlMem[t]
	if typ == LockShared {
		v, err := c.add32(ctrlRin, rInc)
		if err != nil {
			return wrap(err, "locking rank %d", t)
		}
		if v&wBits == 0 {
			return nil // no writer: the common case, without wrap's arguments
		}
		return win.awaitShared(t, v&wBits)
	}
	ticket, err := c.add32(ctrlWin, 1)
	if err != nil {
		return wrap(err, "locking rank %d", t)
	}
	if err := win.pollLock(c, func() (bool, error) {
		cur, err := c.load32(ctrlWout)
		return cur == ticket, err
	}); err != nil {
		return wrap(err, "waiting for the lock on rank %d", t)
	}
	readers, err := c.add32(ctrlRin, wPres|(ticket&wPhid))
	if err != nil {
		return wrap(err, "locking rank %d", t)
	}
	return wrap(win.pollLock(c, func() (bool, error) {
		cur, err := c.load32(ctrlRout)
		return cur == readers, err
	}), "waiting for readers of rank %d to leave", t)
}

// awaitShared waits, after a shared locker's increment of t's reader ins
// found writer bits w, until that writer's phase has passed.
func (win *Win) awaitShared(t int, w uint32) error {
	c := &win.ctrlMem[t]
	return wrap(win.pollLock(c, func() (bool, error) {
		cur, err := c.load32(ctrlRin)
		return cur&wBits != w, err
	}), "waiting for the lock on rank %d", t)
}

func (win *Win) release(t int, typ LockType) error {
	c := &win.ctrlMem[t]
	if typ == LockShared {
		if _, err := c.add32(ctrlRout, rInc); err != nil {
			return wrap(err, "unlocking rank %d", t)
		}
		return nil
	}
	if err := c.and32(ctrlRin, ^uint32(wBits)); err != nil {
		return wrap(err, "unlocking rank %d", t)
	}
	if _, err := c.add32(ctrlWout, 1); err != nil {
		return wrap(err, "unlocking rank %d", t)
	}
	return nil
}

func (win *Win) lockChecks(call string, assert Assert) error {
	if err := win.check(); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoCheck, call); err != nil {
		return err
	}
	if win.set.noLocks {
		return errorf(compat.ClassRMASync, "%s on a window with info no_locks=true", call)
	}
	if win.ep.inStart {
		return errorf(compat.ClassRMASync, "%s inside a Start epoch", call)
	}
	return win.leaveFence(call)
}

// Lock opens a passive-target access epoch to target (MPI_Win_lock): a
// shared lock admits other shared lockers, an exclusive one nobody else.
// It blocks until the lock is granted (or the World's context is
// cancelled). ModeNoCheck skips the lock: the caller knows no conflicting
// lock is held. A second lock on the same target fails with ErrRMASync
// (same type, or another goroutine locking or unlocking it at that
// moment) or ErrRMAConflict (the other type).
//
// Goroutines (a binding's threads) may lock and unlock different targets
// of one Win at once, as MPI_THREAD_MULTIPLE allows: the target's locks
// byte moves from 0 to lockTaking by one compare-and-swap, so of two
// callers on one target exactly one proceeds, and the count of locked
// targets changes atomically.
func (win *Win) Lock(typ LockType, target int, assert Assert) error {
	if err := win.lockChecks("Lock", assert); err != nil {
		return err
	}
	if typ != LockShared && typ != LockExclusive {
		return errorf(compat.ClassLockType, "lock type %d", typ)
	}
	if target == compat.ProcNull {
		return nil
	}
	if target < 0 || target >= win.n {
		return errorf(compat.ClassRank, "lock of rank %d of %d", target, win.n)
	}
	p := &win.locks[target]
	if win.ep.lockAll != 0 || !casByte(p, 0, lockTaking) {
		return win.lockHeld(target, typ, loadByte(p))
	}
	if assert&ModeNoCheck == 0 {
		if err := win.acquire(target, typ); err != nil {
			storeByte(p, 0)
			return err
		}
	}
	l := uint8(typ)
	if assert&ModeNoCheck != 0 {
		l |= lockNoCheck
	}
	atomic.AddInt32(&win.ep.nlocks, 1)
	storeByte(&win.access[target], accOK)
	if target == win.me {
		win.syncAll(true, true)
	}
	storeByte(p, l)
	return nil
}

// lockHeld is Lock's error when target's locks byte was l (or LockAll is
// held).
func (win *Win) lockHeld(target int, typ LockType, l uint8) error {
	held := LockType(l &^ lockNoCheck)
	switch {
	case win.ep.lockAll != 0:
		held = LockShared
	case l == lockTaking || l == 0: // l == 0: the other thread has just unlocked it
		return errorf(compat.ClassRMASync, "Lock of rank %d while another thread of this PE locks or unlocks it", target)
	}
	if held == typ {
		return errorf(compat.ClassRMASync, "rank %d is already locked (%v) by this PE", target, typ)
	}
	return errorf(compat.ClassRMAConflict, "%v lock of rank %d while holding %s lock on it", typ, target, withArticle(held.String()))
}

// Unlock closes the epoch Lock opened (MPI_Win_unlock): the operations to
// target are complete there, and the lock is released. ErrRMASync when no
// Lock on target is open, or another goroutine is locking or unlocking it.
func (win *Win) Unlock(target int) error {
	if err := win.check(); err != nil {
		return err
	}
	if target == compat.ProcNull {
		return nil
	}
	if target < 0 || target >= win.n {
		return errorf(compat.ClassRank, "unlock of rank %d of %d", target, win.n)
	}
	p := &win.locks[target]
	l := loadByte(p)
	switch {
	case l == 0 && win.ep.lockAll != 0:
		return errorf(compat.ClassRMASync, "Unlock of rank %d locked by LockAll (use UnlockAll)", target)
	case l == 0:
		return errorf(compat.ClassRMASync, "Unlock of rank %d, which this PE has not locked", target)
	case l == lockTaking:
		return errorf(compat.ClassRMASync, "Unlock of rank %d while another thread of this PE locks or unlocks it", target)
	}
	if err := win.quiet(); err != nil {
		return err
	}
	if !casByte(p, l, lockTaking) {
		return errorf(compat.ClassRMASync, "Unlock of rank %d by two threads of this PE at once", target)
	}
	if target == win.me {
		win.syncAll(true, true)
	}
	storeByte(&win.access[target], accNone)
	atomic.AddInt32(&win.ep.nlocks, -1)
	var err error
	if l&lockNoCheck == 0 {
		err = win.release(target, LockType(l))
	}
	storeByte(p, 0)
	return err
}

// LockAll opens a passive-target epoch to every rank with a shared lock
// (MPI_Win_lock_all). As in MPICH, each target's lock is taken when the
// first operation to it is issued, so a LockAll epoch never waits for
// targets it does not use. ModeNoCheck skips the locks.
func (win *Win) LockAll(assert Assert) error {
	if err := win.lockChecks("LockAll", assert); err != nil {
		return err
	}
	if win.ep.lockAll != 0 {
		return errorf(compat.ClassRMASync, "LockAll while LockAll is held")
	}
	for t := range win.locks {
		if LockType(loadByte(&win.locks[t])&^lockNoCheck) == LockExclusive {
			return errorf(compat.ClassRMAConflict, "LockAll while holding an exclusive lock on rank %d", t)
		}
	}
	if atomic.LoadInt32(&win.ep.nlocks) > 0 {
		return errorf(compat.ClassRMASync, "LockAll while holding locks")
	}
	win.ep.lockAll = uint8(LockShared)
	acc := accLockAll
	if assert&ModeNoCheck != 0 {
		win.ep.lockAll |= lockNoCheck
		acc = accOK
	}
	for t := range win.access {
		win.access[t] = acc
	}
	win.syncAll(true, true)
	return nil
}

// UnlockAll closes the epoch LockAll opened (MPI_Win_unlock_all).
func (win *Win) UnlockAll() error {
	if err := win.check(); err != nil {
		return err
	}
	if win.ep.lockAll == 0 {
		return errorf(compat.ClassRMASync, "UnlockAll without LockAll")
	}
	if err := win.quiet(); err != nil {
		return err
	}
	win.syncAll(true, true)
	l := win.ep.lockAll
	win.ep.lockAll = 0
	var first error
	for t, a := range win.access {
		win.access[t] = accNone
		if l&lockNoCheck != 0 || a != accOK {
			continue // never locked: no operation went to t
		}
		if err := win.release(t, LockShared); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (win *Win) passive(target int, call string) error {
	if win == nil {
		return errorf(compat.ClassWin, "nil window")
	}
	if target >= 0 && target < win.n {
		if loadByte(&win.locks[target]) == 0 && win.ep.lockAll == 0 {
			return errorf(compat.ClassRMASync, "%s of rank %d outside a Lock or LockAll epoch on it", call, target)
		}
		return nil
	}
	if target == compat.ProcNull {
		return nil
	}
	return errorf(compat.ClassRank, "%s of rank %d of %d", call, target, win.n)
}

// Flush completes the operations to target, at the target
// (MPI_Win_flush), without ending the epoch.
func (win *Win) Flush(target int) error {
	if err := win.passive(target, "Flush"); err != nil {
		return err
	}
	if err := win.world.Quiet(); err != nil {
		return wrap(err, "Flush")
	}
	return nil
}

// FlushLocal completes the operations to target at the origin
// (MPI_Win_flush_local): their buffers may be reused.
func (win *Win) FlushLocal(target int) error {
	if err := win.passive(target, "FlushLocal"); err != nil {
		return err
	}
	if err := win.world.Quiet(); err != nil {
		return wrap(err, "FlushLocal")
	}
	return nil
}

// FlushAll is Flush to every target (MPI_Win_flush_all).
func (win *Win) FlushAll() error {
	if err := win.check(); err != nil {
		return err
	}
	if atomic.LoadInt32(&win.ep.nlocks) == 0 && win.ep.lockAll == 0 {
		return errorf(compat.ClassRMASync, "FlushAll outside a Lock or LockAll epoch")
	}
	return win.quiet()
}

// FlushLocalAll is FlushLocal to every target (MPI_Win_flush_local_all).
func (win *Win) FlushLocalAll() error {
	if err := win.check(); err != nil {
		return err
	}
	if atomic.LoadInt32(&win.ep.nlocks) == 0 && win.ep.lockAll == 0 {
		return errorf(compat.ClassRMASync, "FlushLocalAll outside a Lock or LockAll epoch")
	}
	return win.quiet()
}

// Sync reconciles the public and private copies of this PE's window
// (MPI_Win_sync): in the separate model, stores to the caller's buffer
// reach the public copy and RMA updates reach the buffer.
func (win *Win) Sync() error {
	if err := win.check(); err != nil {
		return err
	}
	win.syncAll(true, true)
	raceSynced()
	return win.quiet()
}
