// Package doorbell lets a PE sleep until a peer changes its memory.
//
// Every heap starts with a control area. Its first cache line holds a
// sequence word and a waiter count. A waiter registers, rechecks its
// condition and sleeps on the sequence word with futex(2); a writer that
// changed the heap and sees a registered waiter bumps the sequence and wakes
// everyone sleeping on it. Because the futex is keyed by the shared mapping
// (not FUTEX_PRIVATE), the same code wakes goroutines and other processes.
//
// The protocol has no lost wake-up: with sequentially consistent atomics,
// either the writer's load of the waiter count sees the registration (and the
// sequence changes under the sleeper, so FUTEX_WAIT returns), or the
// registration comes later and the sleeper's recheck sees the new data.
package doorbell

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Size is the number of bytes the doorbell occupies at the start of a heap.
const Size = 64

const (
	seqOff     = 0
	waitersOff = 4
)

func word(mem []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&mem[off]))
}

// Ring wakes the waiters of the heap mem (mapped peer memory or our own),
// if there are any. It costs one atomic load when nobody waits.
func Ring(mem []byte) {
	if atomic.LoadUint32(word(mem, waitersOff)) == 0 {
		return
	}
	seq := word(mem, seqOff)
	atomic.AddUint32(seq, 1)
	futexWake(seq)
}

// Waiter sleeps on one heap's doorbell. Spin is how many times the condition
// is polled before the first sleep; MaxSleep bounds each sleep so that the
// caller can notice cancellation.
type Waiter struct {
	Spin     int
	MaxSleep time.Duration
}

// Wait returns once cond reports true, or with the error of check when that
// reports one (cancellation, abort, deadline). cond must only read memory
// with atomic loads; it is called many times.
func (w Waiter) Wait(mem []byte, cond func() bool, check func() error) error {
	for i := 0; i < w.Spin; i++ {
		if cond() {
			return nil
		}
		if i&15 == 15 {
			yield()
		}
	}
	seq := word(mem, seqOff)
	waiters := word(mem, waitersOff)
	for {
		if cond() {
			return nil
		}
		if err := check(); err != nil {
			return err
		}
		atomic.AddUint32(waiters, 1)
		s := atomic.LoadUint32(seq)
		if cond() {
			atomic.AddUint32(waiters, ^uint32(0))
			return nil
		}
		futexWait(seq, s, w.MaxSleep)
		atomic.AddUint32(waiters, ^uint32(0))
	}
}
