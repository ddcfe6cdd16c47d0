package compat

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// engineMutex is the Env's one lock: the critical section of every change
// to the engine's state (queues, rings' cursors, requests' matching). Its
// word lives in the published state (p2pstate.Engine.Lock, memory outside
// Go's heap) once New has laid that out, so that code outside Go that
// advances the same state (compat/abi's C fast paths, when its callers may
// be several threads at once: MPI_THREAD_MULTIPLE) takes the very same
// lock with the same protocol.
//
// The protocol is a futex mutex (Drepper's "Futexes are tricky", mutex
// 3): the word is 0 free, 1 held, 2 held with sleepers. A taker moves it
// 0 -> 1 by compare-and-swap; one that finds it held polls briefly, then
// swaps in 2 and sleeps on the word (futex(2), private: only this
// process's threads use it) until the swap returns 0. A release swaps in 0
// and, when it took a 2, wakes one sleeper.
//
// Waiters sleep in the kernel rather than yield. The library's callers
// are C threads, each running Go on its own thread (a cgo callback's
// goroutine is locked to it), and a process PE has few Ps (GOMAXPROCS is
// the node's CPUs over its PEs: 1 for 2 PEs on 2 CPUs). Waiters that
// polled with runtime.Gosched and microsecond sleeps passed that P among
// themselves while a holder that had lost it (in a system call, or
// preempted) queued behind them for it; every critical section then cost
// several thread hand-offs, and under CPU contention a 4-thread run of
// testdata/threads.c stopped making progress for minutes (3 of 35 runs of
// 30 rounds, 2 ranks, on a loaded 2-CPU host: the holder parked in
// exitsyscall for want of the P while three takers passed it round). A
// sleeper holds no P and burns no CPU, so the holder gets the P back at
// once. The holder itself rings doorbells without giving its P up
// (shmem.Mapped.WakeNoYield).
type engineMutex struct {
	own  uint32  // the word until New points word at the published state
	word *uint32 // nil: own
}

// lockSpin is how many polls a taker makes before it sleeps: a holder in
// C on another CPU (the fast paths hold it for a few hundred nanoseconds)
// lets go within them; a holder that is not running does not, and polling
// for it would take the CPU it needs.
const lockSpin = 128

// lockSleep bounds each sleep on the word, so that a wake-up the kernel
// lost (none is known) costs a millisecond, not a hang.
const lockSleep = time.Millisecond

// futex(2)'s operations on the lock word: FUTEX_WAIT and FUTEX_WAKE with
// FUTEX_PRIVATE_FLAG.
const (
	futexWaitPrivate = 0 | 128
	futexWakePrivate = 1 | 128
)

func (m *engineMutex) w() *uint32 {
	if m.word != nil {
		return m.word
	}
	return &m.own
}

// Lock takes m, waiting as the type's doc says while another holds it.
func (m *engineMutex) Lock() {
	w := m.w()
	if !atomic.CompareAndSwapUint32(w, 0, 1) {
		m.lockSlow(w)
	}
	raceAcquire(unsafe.Pointer(&m.own))
}

func (m *engineMutex) lockSlow(w *uint32) {
	for range lockSpin {
		if atomic.LoadUint32(w) == 0 && atomic.CompareAndSwapUint32(w, 0, 1) {
			return
		}
	}
	ts := unix.NsecToTimespec(int64(lockSleep))
	for atomic.SwapUint32(w, 2) != 0 {
		// EAGAIN (the word is no longer 2), EINTR and ETIMEDOUT all mean
		// "swap again".
		_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWaitPrivate,
			2, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
}

// TryLock takes m if it is free and reports whether it did.
func (m *engineMutex) TryLock() bool {
	if !atomic.CompareAndSwapUint32(m.w(), 0, 1) {
		return false
	}
	raceAcquire(unsafe.Pointer(&m.own))
	return true
}

// Unlock lets m go, waking one sleeper when there is one. The wake is a
// raw system call: FUTEX_WAKE never blocks, and a plain one could hand
// this thread's P to another while the caller still has work to do.
func (m *engineMutex) Unlock() {
	raceRelease(unsafe.Pointer(&m.own))
	w := m.w()
	if atomic.SwapUint32(w, 0) == 2 {
		_, _, _ = unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWakePrivate, 1, 0, 0, 0)
	}
}
