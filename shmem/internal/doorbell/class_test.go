package doorbell

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Each class of waiter is rung by its own writers: a lock waiter by
// RingLock and by Ring(true) (a remote atomic), not by a user write; a user
// waiter not by RingLock.
func TestClassesRingTheirOwnWaiters(t *testing.T) {
	mem := make([]byte, 2*Size)
	b := At(mem)
	var flag atomic.Uint32
	w := Waiter{Spin: 0, YieldEvery: 1, MaxSleep: time.Minute}
	done := make(chan error, 1)
	go func() {
		done <- w.Wait(b, Lock, func() (bool, error) { return flag.Load() == 1, nil }, func() error { return nil })
	}()
	for atomic.LoadUint32(&b.lock) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	require.Zero(t, atomic.LoadUint32(&b.user), "a lock waiter is not a user waiter")
	seq := atomic.LoadUint32(&b.seq)
	b.RingUser()
	b.Ring(false)
	require.Equal(t, seq, atomic.LoadUint32(&b.seq), "user writes do not ring a lock waiter")
	flag.Store(1)
	b.RingLock()
	require.NoError(t, <-done, "RingLock woke it (MaxSleep is a minute)")

	// Ring(true), a remote atomic, rings lock waiters too.
	flag.Store(0)
	go func() {
		done <- w.Wait(b, Lock, func() (bool, error) { return flag.Load() == 1, nil }, func() error { return nil })
	}()
	for atomic.LoadUint32(&b.lock) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	flag.Store(1)
	b.Ring(true)
	require.NoError(t, <-done)

	// A user waiter is not rung by a lock release.
	flag.Store(0)
	go func() {
		done <- w.Wait(b, User, func() (bool, error) { return flag.Load() == 1, nil }, func() error { return nil })
	}()
	for atomic.LoadUint32(&b.user) == 0 {
		time.Sleep(100 * time.Microsecond)
	}
	seq = atomic.LoadUint32(&b.seq)
	b.RingLock()
	require.Equal(t, seq, atomic.LoadUint32(&b.seq), "a lock release does not ring a user waiter")
	flag.Store(1)
	b.RingUser()
	require.NoError(t, <-done)
}
