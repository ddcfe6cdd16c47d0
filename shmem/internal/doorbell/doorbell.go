// Package doorbell lets a PE sleep until a peer changes its memory.
//
// Every heap starts with a control area. Its first cache line holds a
// sequence word and two waiter counts. A waiter registers, rechecks its
// condition and sleeps on the sequence word with futex(2); a writer that
// changed the heap and sees a registered waiter bumps the sequence and wakes
// everyone sleeping on it.
//
// The two counts are two bells. Runtime waits (barriers, collectives) wait
// only for atomics, so they register on the control bell, which plain puts
// do not ring: a PE idle in a barrier costs the PEs streaming puts into its
// heap nothing. User waits (WaitUntil may watch a word updated by a put)
// register on the user bell, which every write rings. Because the futex is keyed by the shared mapping
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
	seqOff         = 0
	userWaitersOff = 4
	ctrlWaitersOff = 8
)

func word(mem []byte, off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&mem[off]))
}

// Ring wakes the user waiters of the heap mem (mapped peer memory or our
// own), and its runtime waiters too when all is set (after an atomic). It
// costs one or two loads of one cache line when nobody waits.
func Ring(mem []byte, all bool) {
	n := atomic.LoadUint32(word(mem, userWaitersOff))
	if all {
		n += atomic.LoadUint32(word(mem, ctrlWaitersOff))
	}
	if n == 0 {
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
	Spin int
	// Yield is how many more polls follow the spin, each after giving the
	// CPU to another runnable process (sched_yield). When PEs outnumber
	// CPUs, the PE that will write our word is often waiting for this CPU:
	// handing it over directly costs a context switch, while a futex sleep
	// and wake-up cost several.
	Yield    int
	MaxSleep time.Duration
}

// Wait returns once cond reports true, or with the error of check when that
// reports one (cancellation, abort, deadline). cond must only read memory
// with atomic loads; it is called many times. A runtime wait (ctrl) is woken
// only by atomics; a user wait by every write.
func (w Waiter) Wait(mem []byte, ctrl bool, cond func() bool, check func() error) error {
	for i := 0; i < w.Spin; i++ {
		if cond() {
			return nil
		}
		if i&15 == 15 {
			yield()
		}
	}
	for i := 0; i < w.Yield; i++ {
		if cond() {
			return nil
		}
		yieldOS()
	}
	seq := word(mem, seqOff)
	waiters := word(mem, userWaitersOff)
	if ctrl {
		waiters = word(mem, ctrlWaitersOff)
	}
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
