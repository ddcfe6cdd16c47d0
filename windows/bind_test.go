package windows_test

import (
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// A bound window keeps its epoch state in the binding's memory, in the
// documented layout, and a binding that follows Target's lock protocol
// and AwaitShared interoperates with the Go calls.
func TestBindSharesEpochStateAndLocks(t *testing.T) {
	petest.Run(t, 3, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		win, local, err := windows.AllocateOf[int64](commOf(t, w), 4, nil)
		require.NoError(t, err)
		err = win.Bind(make([]byte, 3))
		require.ErrorIs(t, err, compat.ErrArg, "too small")
		mem := make([]byte, windows.BindSize(n)+8)
		require.NoError(t, win.Bind(mem))
		access, locks := mem[windows.EpochSize:windows.EpochSize+n], mem[windows.EpochSize+n:windows.EpochSize+2*n]
		nlocks := func() int32 { return *(*int32)(unsafe.Pointer(&mem[4])) }

		require.NoError(t, win.LockAll(0))
		require.Equal(t, uint8(windows.LockShared), mem[0])
		for r := range n {
			require.Equal(t, uint8(windows.AccessLockAll), access[r])
		}
		right := (me + 1) % n
		require.NoError(t, windows.Put(win, []int64{int64(me)}, right, 0))
		require.Equal(t, uint8(windows.AccessOpen), access[right], "the first put took the lock")
		require.NoError(t, win.UnlockAll())
		require.Zero(t, mem[0])
		require.Equal(t, make([]byte, n), access)

		require.NoError(t, win.Lock(windows.LockShared, right, 0))
		require.Equal(t, uint8(windows.LockShared), locks[right])
		require.Equal(t, int32(1), nlocks())
		require.Equal(t, uint8(windows.AccessOpen), access[right])
		// The binding changes the state in place: Go sees it (Unlock of
		// a rank the binding says is unlocked fails).
		locks[right], access[right] = 0, windows.AccessNone
		*(*int32)(unsafe.Pointer(&mem[4])) = 0
		require.ErrorIs(t, win.Unlock(right), compat.ErrRMASync)
		locks[right], access[right] = uint8(windows.LockShared), windows.AccessOpen
		*(*int32)(unsafe.Pointer(&mem[4])) = 1
		require.NoError(t, win.Unlock(right))

		// Target's memory is the window's: an atomic add there is seen by
		// Get, under the same lock.
		tg, ok := win.Target(0)
		require.True(t, ok, "every PE of one node is mapped")
		require.Equal(t, 32, tg.Size)
		require.Equal(t, 8, tg.Unit)
		require.NoError(t, win.Lock(windows.LockShared, 0, 0))
		atomic.AddInt64((*int64)(unsafe.Add(tg.Data, 8)), 1)
		require.NoError(t, win.Unlock(0))
		require.NoError(t, w.BarrierAll())
		if me == 0 {
			require.Equal(t, int64(n), local[1])
		}

		// A binding's shared lock that meets a writer waits in
		// AwaitShared until the writer is done.
		lock := (*[4]uint32)(tg.Lock)
		if me == 1 {
			require.NoError(t, win.Lock(windows.LockExclusive, 0, 0))
		}
		require.NoError(t, w.BarrierAll())
		done := make(chan error, 1)
		if me == 2 {
			seen := atomic.AddUint32(&lock[0], windows.LockReaderInc) - windows.LockReaderInc
			require.NotZero(t, seen&windows.LockWriterBits, "PE 1 holds the lock exclusively")
			go func() { done <- win.AwaitShared(0, seen) }()
		}
		require.NoError(t, w.BarrierAll())
		if me == 1 {
			require.NoError(t, windows.Put(win, []int64{42}, 0, 2))
			require.NoError(t, win.Unlock(0))
		}
		if me == 2 {
			require.NoError(t, <-done)
			tg0 := (*[4]int64)(tg.Data)
			require.Equal(t, int64(42), atomic.LoadInt64(&tg0[2]), "the writer's put is complete before readers get in")
			atomic.AddUint32(&lock[1], windows.LockReaderInc)
		}
		require.NoError(t, w.BarrierAll())
		// The lock is free again for everybody.
		require.NoError(t, win.Lock(windows.LockExclusive, 0, 0))
		require.NoError(t, win.Unlock(0))
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free())
		_, ok = win.Target(0)
		require.False(t, ok, "a freed window has no targets")
	})
}
