package compat

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cpuTime is the CPU time this process has used so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The engine lock on threads the way the C library's callers are: each
// taker's goroutine locked to its thread, one P for them all (GOMAXPROCS
// 1, as a process PE of 2 on 2 CPUs has), takers that sometimes give the
// P up inside the critical section (a system call, a preemption), and a
// poller taking it by compare-and-swap only, as p2p.c's fast paths do.
// Every increment happens under the lock, and the run ends in bounded
// time.
func TestEngineMutexLockedThreads(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var m engineMutex
	const takers, rounds = 6, 3000
	var n, inside int64
	var bad atomic.Bool
	body := func() {
		if atomic.AddInt64(&inside, 1) != 1 {
			bad.Store(true)
		}
		n++
		atomic.AddInt64(&inside, -1)
	}
	var wg sync.WaitGroup
	for g := range takers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := range rounds {
				m.Lock()
				body()
				if (i+g)%97 == 0 {
					runtime.Gosched() // the holder loses its P
				}
				m.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() { // the C poller: compare-and-swap only, never sleeps
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for done := 0; done < rounds; {
			if m.TryLock() {
				body()
				m.Unlock()
				done++
			}
		}
	}()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(60 * time.Second):
		t.Fatalf("the takers did not finish in 60 s: %d of %d", atomic.LoadInt64(&n), (takers+1)*rounds)
	}
	require.False(t, bad.Load(), "two takers inside at once")
	require.EqualValues(t, (takers+1)*rounds, n)
	require.Zero(t, *m.w(), "the word is free at the end")
}

// Takers that find the lock held sleep rather than poll: while one holds
// it for 300 ms, four others cost the process almost no CPU time. (The
// lock's first form polled with runtime.Gosched and 1 us sleeps: its
// waiters took their CPU share, and the P the holder needed.)
func TestEngineMutexWaitersSleep(t *testing.T) {
	var m engineMutex
	m.Lock()
	var wg sync.WaitGroup
	var got atomic.Int32
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			m.Lock()
			got.Add(1)
			m.Unlock()
		}()
	}
	time.Sleep(20 * time.Millisecond) // they reach their sleep
	c0 := cpuTime(t)
	time.Sleep(300 * time.Millisecond)
	used := cpuTime(t) - c0
	require.Zero(t, got.Load(), "a taker got a held lock")
	m.Unlock()
	wg.Wait()
	require.EqualValues(t, 4, got.Load())
	require.Less(t, used, 60*time.Millisecond, "four waiters used %v of CPU in 300 ms", used)
}
