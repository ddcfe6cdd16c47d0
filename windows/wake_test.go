package windows_test

import (
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// A rank asleep (past its spin, with sleeps that never time out) is woken
// by the window paths that write into a heap it watches: an accumulate
// into its window memory, and the unlock of a lock it waits for. As
// goroutine PEs and as processes; a broken wake-up hangs the run until
// petest's deadline fails it.
func TestSleepingRankWokenByWindowWrites(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Timeout: 60 * time.Second}, func(t *petest.T, w *shmem.World) {
		require.NoError(t, w.SetWaitPolicy(shmem.WaitPolicy{Spin: 0, YieldEvery: 1, MaxSleep: time.Hour}))
		me := w.MyPE()
		win, err := windows.Allocate(commOf(t, w), 64, 8, nil)
		require.NoError(t, err)
		local := (*uint64)(unsafe.Pointer(&windows.RawMemory(win, me)[0]))

		// Accumulate: rank 0 waits for its word to change.
		require.NoError(t, win.LockAll(0))
		require.NoError(t, w.BarrierAll())
		if me == 0 {
			require.NoError(t, w.Await(shmem.AnyPE, func() (bool, error) { return atomic.LoadUint64(local) == 5, nil }))
		} else {
			time.Sleep(20 * time.Millisecond)
			require.NoError(t, windows.Accumulate(win, []uint64{5}, 0, 0, compat.OpSum))
			require.NoError(t, win.Flush(0))
		}
		require.NoError(t, win.UnlockAll())

		// Unlock: rank 0 holds rank 0's exclusive lock while rank 1 sleeps
		// waiting for it.
		if me == 0 {
			require.NoError(t, win.Lock(windows.LockExclusive, 0, 0))
		}
		require.NoError(t, w.BarrierAll())
		if me == 0 {
			time.Sleep(20 * time.Millisecond)
			require.NoError(t, win.Unlock(0))
		} else {
			require.NoError(t, win.Lock(windows.LockExclusive, 0, 0))
			v := make([]uint64, 1)
			require.NoError(t, windows.Get(win, v, 0, 0))
			require.NoError(t, win.Unlock(0))
			require.Equal(t, uint64(5), v[0])
		}
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free())
	})
}
