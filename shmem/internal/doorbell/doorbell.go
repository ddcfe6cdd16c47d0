// Package doorbell lets a PE sleep until a peer changes its memory, and is
// the one wait loop of the runtime: every wait of the core and of the
// layers above it (compat, windows, streams, kernels) runs Waiter.Wait.
//
// Every heap starts with a control area. Its first cache line is the Bell:
// a sequence word and three waiter counts. A waiter registers, rechecks its
// condition and sleeps on the sequence word with futex(2); a writer that
// changed the heap and sees a registered waiter bumps the sequence and wakes
// everyone sleeping on it.
//
// The three counts are three bells. Runtime waits (barriers, collectives)
// wait only for atomics, so they register on the control bell, which plain
// puts do not ring: a PE idle in a barrier costs the PEs streaming puts into
// its heap nothing. A window's lock waits register on the lock bell, which
// only lock releases ring (RingLock), so that neither a PE asleep in a
// receive or a barrier is woken by every unlock, nor a lock waiter by the
// data traffic. User waits (WaitUntil may watch a word updated by a put, a
// compat receive a mailbox stamp) register on the user bell, which every
// write rings. Because the futex is keyed by
// the shared mapping (not FUTEX_PRIVATE), the same code wakes goroutines and
// other processes, and a waiter may sleep on a mapped peer's bell.
//
// The protocol has no lost wake-up: with sequentially consistent atomics,
// either the writer's load of the waiter count sees the registration (and the
// sequence changes under the sleeper, so FUTEX_WAIT returns), or the
// registration comes later and the sleeper's recheck sees the new data. A
// writer whose data went out by plain stores must Fence before it loads the
// count, or the load may pass the stores.
package doorbell

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Size is the number of bytes the doorbell occupies at the start of a heap.
const Size = 64

// Bell is the doorbell at the start of a heap. The ucx transport's C side
// reads the three counts by this layout (gs_amo_fast in ucx_shim.c).
type Bell struct {
	seq  uint32
	user uint32 // waiters woken by every write
	ctrl uint32 // waiters woken only by runtime atomics
	lock uint32 // waiters for lock words, woken by their releases (RingLock)
	_    [Size - 16]byte
}

// Class is which count a waiter registers on, which decides what wakes it.
type Class uint8

// The classes of waiters.
const (
	User Class = iota // every write into the heap
	Ctrl              // runtime atomics only (barriers, collectives)
	Lock              // lock releases only (a window's lock words)
)

// At returns the bell of the heap mem (mapped peer memory or our own), or
// nil when mem is nil (a heap not mapped here).
func At(mem []byte) *Bell {
	if len(mem) < Size {
		return nil
	}
	return (*Bell)(unsafe.Pointer(&mem[0]))
}

// Ring wakes the user waiters of the heap mem, and its runtime and lock
// waiters too when all is set (after a runtime atomic, or one from another
// node, which may be a lock release). It costs one or two loads of one
// cache line when nobody waits.
func Ring(mem []byte, all bool) { At(mem).Ring(all) }

// Ring is the package's Ring on b.
func (b *Bell) Ring(all bool) {
	n := atomic.LoadUint32(&b.user)
	if all {
		n += atomic.LoadUint32(&b.ctrl) + atomic.LoadUint32(&b.lock)
	}
	if n != 0 {
		b.wake()
	}
}

// RingUser wakes b's user waiters: Ring(false) in a form small enough to
// inline into a writer's fast path.
func (b *Bell) RingUser() {
	if atomic.LoadUint32(&b.user) != 0 {
		b.wake()
	}
}

// RingUserNoYield is RingUser whose wake-up is a raw system call, which
// keeps the caller's P: for a caller that holds a lock its process's other
// threads wait for (shmem.Mapped.WakeNoYield).
func (b *Bell) RingUserNoYield() {
	if atomic.LoadUint32(&b.user) != 0 {
		atomic.AddUint32(&b.seq, 1)
		futexWakeRaw(&b.seq)
	}
}

// RingLock wakes b's lock waiters only, after a lock word's release: the
// heap's user waiters (a receive) and runtime waiters (a barrier), asleep
// for something else, are not woken by every lock and unlock.
func (b *Bell) RingLock() {
	if atomic.LoadUint32(&b.lock) != 0 {
		b.wake()
	}
}

// UserWaiters is the address of b's count of user waiters, for a poller
// outside Go (the ucx transport's, in C) that must stop when a write it
// applied needs Ring: it reads the count atomically and never writes it.
func (b *Bell) UserWaiters() *uint32 { return &b.user }

func (b *Bell) wake() {
	atomic.AddUint32(&b.seq, 1)
	futexWake(&b.seq)
}

// Fence orders the caller's earlier plain stores before its later loads
// (a locked instruction on x86, which otherwise lets a load pass a store):
// what a writer needs between plain stores of data and Ring.
func Fence() {
	var f uint32
	atomic.AddUint32(&f, 0)
}

// Waiter is a wait policy: Spin polls, every YieldEvery-th of them after
// letting the process's other goroutines run (runtime.Gosched), then
// Yields polls each after a Gosched, then OSYields polls each after giving
// the CPU to another process (sched_yield), then sleeps of at most
// MaxSleep on the bell until the condition holds.
type Waiter struct {
	Spin       int
	YieldEvery int // a power of two, at least 1
	// Yields serves a peer that was descheduled or is a goroutine waiting
	// for this thread: before paying for a futex sleep and wake-up, the
	// waiter hands its thread over a few hundred times.
	Yields int
	// OSYields serves PEs that outnumber the CPUs: the PE that will write
	// our word is often waiting for this CPU, and handing it over directly
	// costs a context switch, while a futex sleep and wake-up cost several.
	OSYields int
	MaxSleep time.Duration
	// Adapt, when set, lengthens the spin after waits whose sleep the
	// peer ended soon (see Adapt); nil keeps Spin fixed.
	Adapt *Adapt
}

// Adapt is the memory a World's waits share of how their sleeps ended.
// A wait that slept and was woken within briefSleep was a wait for a peer
// that was not running for a moment (preempted by another process for a
// scheduler slice, or by the host): polling through it would have kept
// this PE on its CPU, while the sleep handed the CPU to the other process
// and the wake-up then waited for that process's slice to end (up to
// milliseconds on a shared CPU). So such a sleep doubles the extra polls
// of the next spins, up to Max; a long sleep (the peer was computing, or
// idle) halves them, so that a PE whose peers are merely slow does not
// spin its CPU away for long. Quiet-machine waits end within the base
// spin and never change it. On CPUs shared with many processes it lost
// (a PE that polls spends its share and queues), so it is opt-in
// (shmem.WaitPolicy.MaxSpin).
type Adapt struct {
	// Max bounds the spin, base and extra together.
	Max   int
	extra atomic.Int64
}

// briefSleep is the longest sleep that counts as a peer's brief absence:
// a few scheduler slices (0.75-3 ms each), as a busy process beside each
// PE takes them.
const briefSleep = 10 * time.Millisecond

// Extra returns the polls added to the base spin now.
func (a *Adapt) Extra() int {
	if a == nil {
		return 0
	}
	return int(a.extra.Load())
}

// slept records that a wait whose spin was base polls slept for d.
func (a *Adapt) slept(base int, d time.Duration) {
	e := a.extra.Load()
	if d < briefSleep {
		a.extra.Store(min(max(2*e, int64(max(base, 1<<12))), int64(max(a.Max-base, 0))))
		return
	}
	a.extra.Store(e / 2)
}

// Wait returns once cond reports true or an error, or with the error of
// check when that reports one (cancellation, abort, a lost peer). check
// runs every 4096 polls of the spin and before every sleep. cond must
// read the words it watches with atomic loads; it is called many times.
// The waiter sleeps on b (the bell of the heap that holds the words): a
// runtime wait (Ctrl) is woken only by runtime atomics, a lock wait
// (Lock) only by lock releases, a user wait by every write. With b nil (words of a heap not mapped here, read through a
// transport) it sleeps for growing pauses instead, up to MaxSleep.
func (w Waiter) Wait(b *Bell, class Class, cond func() (bool, error), check func() error) error {
	mask := max(w.YieldEvery, 1) - 1
	spin := w.Spin + w.Adapt.Extra()
	for i := 0; i < spin; i++ {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if i&mask == mask {
			if i&checkMask == checkMask {
				if err := check(); err != nil {
					return settle(cond, err)
				}
			}
			yield()
		}
	}
	for i := 0; i < w.Yields; i++ {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		yield()
	}
	for i := 0; i < w.OSYields; i++ {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		yieldOS(i)
	}
	if b == nil {
		return w.pause(cond, check)
	}
	waiters := [...]*uint32{User: &b.user, Ctrl: &b.ctrl, Lock: &b.lock}[class]
	if w.Adapt != nil {
		start := time.Now()
		defer func() { w.Adapt.slept(w.Spin, time.Since(start)) }()
	}
	for {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if err := check(); err != nil {
			return settle(cond, err)
		}
		atomic.AddUint32(waiters, 1)
		s := atomic.LoadUint32(&b.seq)
		if ok, err := cond(); ok || err != nil {
			atomic.AddUint32(waiters, ^uint32(0))
			return err
		}
		futexWait(&b.seq, s, w.MaxSleep)
		atomic.AddUint32(waiters, ^uint32(0))
	}
}

// settle returns why the wait cannot go on (why), unless cond holds by
// now: a peer that satisfied the condition and then finalized or died
// (the last barrier of a Finalize) did not leave this waiter stranded.
func settle(cond func() (bool, error), why error) error {
	if ok, err := cond(); ok || err != nil {
		return err
	}
	return why
}

// checkMask spaces the spin's checks (cancellation, a lost peer): the
// check costs more than a poll (a select over two channels), and a crowded
// spin, which yields every 16 polls, checks before it sleeps.
const checkMask = 4095

// maxPause bounds a sleep between polls of a heap not mapped here: each
// poll costs a round trip anyway, and a longer pause would add to the
// latency of what the wait is for (a window lock, a remote flag).
const maxPause = 200 * time.Microsecond

// pause is Wait's sleep for words nobody can ring us about.
func (w Waiter) pause(cond func() (bool, error), check func() error) error {
	d := time.Microsecond
	limit := min(max(w.MaxSleep, time.Microsecond), maxPause)
	for {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if err := check(); err != nil {
			return settle(cond, err)
		}
		time.Sleep(d)
		d = min(2*d, limit)
	}
}
