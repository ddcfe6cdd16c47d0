//go:build ucx && cgo

package transport

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// A remote atomic rings user and lock waiters (it may be a lock release),
// and runtime waiters only when it is one of the runtime's own atomics:
// a PE asleep in a barrier sleeps on while a peer streams user atomics
// into its heap.
func TestUCXAtomicRingsTheWaitersItConcerns(t *testing.T) {
	heap := make([]byte, 2*doorbell.Size)
	b := doorbell.At(heap)
	seq := (*uint32)(unsafe.Pointer(b)) // the Bell's first word
	for _, c := range []struct {
		class   doorbell.Class
		count   int // the Bell's word that counts this class
		user    bool
		runtime bool
	}{
		{doorbell.User, 1, true, true},
		{doorbell.Ctrl, 2, false, true},
		{doorbell.Lock, 3, true, true},
	} {
		var flag atomic.Uint32
		done := make(chan error, 1)
		w := doorbell.Waiter{MaxSleep: time.Minute}
		go func() {
			done <- w.Wait(b, c.class, func() (bool, error) { return flag.Load() == 1, nil }, func() error { return nil })
		}()
		waiting := (*uint32)(unsafe.Add(unsafe.Pointer(b), 4*c.count))
		for atomic.LoadUint32(waiting) == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		before := atomic.LoadUint32(seq)
		ringAtomic(heap, false)
		if c.user {
			require.NotEqual(t, before, atomic.LoadUint32(seq), "class %d: a user atomic rings it", c.class)
		} else {
			require.Equal(t, before, atomic.LoadUint32(seq), "class %d: a user atomic does not ring it", c.class)
		}
		flag.Store(1)
		ringAtomic(heap, true)
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatalf("class %d: a runtime atomic did not wake it", c.class)
		}
	}
}
