package kernels

import (
	"sync"
	"sync/atomic"
)

// barrier is a reusable barrier for the threads of a warp, a block or a
// grid. A thread that has returned from the kernel counts as arrived, so
// the others are not held by it. The last thread to arrive runs the
// phase's action (a group operation's single part: a signal, a quiet, an
// atomic) before anyone is released, and leaves its result in slot for
// every thread of the phase to read. When the launch aborts, every waiter
// is released at once and told so.
//
// Waiters block on a plain channel receive (the channel is closed to
// release a phase), which is the cheapest hand-off the Go scheduler offers:
// a block barrier of n threads costs n goroutine wake-ups.
type barrier struct {
	mu      sync.Mutex
	n       int // threads still running
	total   int // threads at the start
	arrived int
	release chan struct{}
	action  func() // of the phase in progress, for a completion by leave
	aborted atomic.Bool
	slot    any

	// Completion counts of the group's non-blocking calls, by the call's
	// sequence number in the group (threads may be several calls apart).
	cmu    sync.Mutex
	counts map[uint64]int
}

// finish counts one thread's share of the group call seq as done and
// reports whether it was the last of size.
func (b *barrier) finish(seq uint64, size int) bool {
	b.cmu.Lock()
	defer b.cmu.Unlock()
	if b.counts == nil {
		b.counts = map[uint64]int{}
	}
	c := b.counts[seq] + 1
	if c == size {
		delete(b.counts, seq)
		return true
	}
	b.counts[seq] = c
	return false
}

func newBarrier(n int) *barrier { return &barrier{n: n, total: n, release: make(chan struct{})} }

// size returns the barrier's number of participants when none has returned.
func (b *barrier) size() int { return b.total }

// wait arrives at the barrier and returns true when every running thread
// has arrived, or false when the launch aborted. action (may be nil) is run
// once, by the last thread to arrive, before the others are released.
func (b *barrier) wait(action func()) bool {
	b.mu.Lock()
	if b.aborted.Load() {
		b.mu.Unlock()
		return false
	}
	b.arrived++
	if b.arrived >= b.n {
		b.openLocked(action)
		return true
	}
	if action != nil {
		b.action = action
	}
	ch := b.release
	b.mu.Unlock()
	<-ch
	return !b.aborted.Load()
}

// openLocked runs the action and releases the phase; it unlocks b.mu.
func (b *barrier) openLocked(action func()) {
	if action == nil {
		action = b.action
	}
	b.action = nil
	ch := b.release
	b.release = make(chan struct{})
	b.arrived = 0
	b.mu.Unlock()
	if action != nil {
		// Run outside the lock: an action may wait (a quiet, a barrier
		// across PEs). Nobody arrives at the next phase before the release.
		action()
	}
	close(ch)
}

// leave removes a returning thread; if the others were all waiting for it,
// they are released.
func (b *barrier) leave() {
	b.mu.Lock()
	b.n--
	if b.arrived > 0 && b.arrived >= b.n && !b.aborted.Load() {
		b.openLocked(nil)
		return
	}
	b.mu.Unlock()
}

// abort releases every waiter, now and later, with false.
func (b *barrier) abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.aborted.Load() {
		return
	}
	b.aborted.Store(true)
	close(b.release)
}
