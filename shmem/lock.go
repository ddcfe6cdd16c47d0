package shmem

// Distributed locks (shmem_set_lock, shmem_test_lock, shmem_clear_lock) on
// a symmetric int64 lock word, zero before first use. The lock is the word
// on PE 0, a ticket lock: its high 32 bits hand out tickets, its low 32
// bits say which ticket is served, so PEs get the lock in the order they
// asked for it (fair under contention: no PE can be overtaken forever). A
// PE waits by the World's wait policy on the served half: a sleeping waiter
// wakes when the holder releases, and the wait ends with ErrPeerLost when
// a peer (the holder among them) is known to have died, or ErrAborted when
// the job stops.

const lockHome = 0 // the PE whose word is the lock

func checkLock(lock Sym[int64]) error {
	if _, err := lock.remote(lockHome, 1); err != nil {
		return err
	}
	if lock.n < 1 {
		return errf(ErrOutOfBounds, "lock on an empty object")
	}
	return nil
}

// SetLock takes the lock, waiting for the PEs that asked before this one
// (shmem_set_lock). Every PE must use the same symmetric word for one lock.
func SetLock(lock Sym[int64]) error {
	if err := checkLock(lock); err != nil {
		return err
	}
	lock = lock.At(0)
	old, err := FetchAdd(lock, 1<<32, lockHome)
	if err != nil {
		return err
	}
	ticket := uint32(uint64(old) >> 32)
	if uint32(old) == ticket {
		return nil
	}
	w := lock.w
	var lerr error
	err = w.Await(lockHome, func() (bool, error) {
		v, err := Load(lock, lockHome)
		lerr = err
		return uint32(v) == ticket, err
	})
	if lerr != nil {
		return lerr
	}
	return err
}

// TestLock takes the lock if nobody holds or waits for it and reports
// whether it did (shmem_test_lock, which returns 0 when it took it). It
// never waits.
func TestLock(lock Sym[int64]) (bool, error) {
	if err := checkLock(lock); err != nil {
		return false, err
	}
	lock = lock.At(0)
	old, err := Load(lock, lockHome)
	if err != nil || uint32(uint64(old)>>32) != uint32(old) {
		return false, err
	}
	prev, err := CompareAndSwap(lock, old, old+1<<32, lockHome)
	return err == nil && prev == old, err
}

// ClearLock completes this PE's puts (Quiet), so that the next holder
// sees them, and releases the lock to the next ticket (shmem_clear_lock).
// Clearing a lock that is not held fails with ErrInvalid.
func ClearLock(lock Sym[int64]) error {
	if err := checkLock(lock); err != nil {
		return err
	}
	lock = lock.At(0)
	if err := lock.w.Quiet(); err != nil {
		return err
	}
	old, err := Load(lock, lockHome)
	for err == nil {
		served, next := uint32(old), uint32(uint64(old)>>32)
		if served == next {
			return errf(ErrInvalid, "ClearLock of a lock nobody holds")
		}
		// Only the served half changes; tickets taken meanwhile make the
		// swap fail and it is tried again.
		nv := int64(uint64(old)&^0xffffffff | uint64(served+1))
		var prev int64
		if prev, err = CompareAndSwap(lock, old, nv, lockHome); err == nil && prev == old {
			return nil
		}
		old = prev
	}
	return err
}
