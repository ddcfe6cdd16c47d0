package windows_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Every misuse returns its MPI error class, changes nothing, and leaves
// the window usable.
func TestSyncErrors(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		win, mem, err := windows.AllocateOf[int64](commOf(t, w), 4, nil)
		require.NoError(t, err)
		me, np := w.MyPE(), w.NPEs()
		peer := (me + 1) % np
		src := []int64{1}
		sync := compat.ErrRMASync

		// Operations outside any epoch.
		require.ErrorIs(t, windows.Put(win, src, peer, 0), sync)
		require.ErrorIs(t, windows.Get(win, src, peer, 0), sync)
		require.ErrorIs(t, windows.Accumulate(win, src, peer, 0, compat.OpSum), sync)
		_, err = windows.FetchAndOp(win, int64(1), peer, 0, compat.OpSum)
		require.ErrorIs(t, err, sync)
		_, err = windows.CompareAndSwap(win, int64(1), 2, peer, 0)
		require.ErrorIs(t, err, sync)
		_, err = windows.Rput(win, src, peer, 0)
		require.ErrorIs(t, err, sync)

		// Wrong closing calls.
		require.ErrorIs(t, win.Unlock(peer), sync)
		require.ErrorIs(t, win.UnlockAll(), sync)
		require.ErrorIs(t, win.Complete(), sync)
		require.ErrorIs(t, win.Wait(), sync)
		_, err = win.Test()
		require.ErrorIs(t, err, sync)
		require.ErrorIs(t, win.Flush(peer), sync)
		require.ErrorIs(t, win.FlushLocal(peer), sync)
		require.ErrorIs(t, win.FlushAll(), sync)
		require.ErrorIs(t, win.FlushLocalAll(), sync)

		// Lock epochs: nesting, conflicts, ops to other targets.
		require.NoError(t, win.Lock(windows.LockShared, peer, 0))
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), sync)
		require.ErrorIs(t, win.Lock(windows.LockExclusive, peer, 0), compat.ErrRMAConflict)
		require.ErrorIs(t, win.LockAll(0), sync)
		other := (me + 2) % np
		require.ErrorIs(t, windows.Put(win, src, other, 0), sync, "target not locked")
		require.ErrorIs(t, win.Flush(other), sync)
		require.ErrorIs(t, win.Unlock(other), sync)
		require.ErrorIs(t, win.Start(grp(t, win, peer), 0), sync)
		_, err = windows.Rput(win, src, other, 0)
		require.ErrorIs(t, err, sync)
		require.NoError(t, win.Unlock(peer))
		require.NoError(t, win.Lock(windows.LockExclusive, peer, 0))
		require.ErrorIs(t, win.LockAll(0), compat.ErrRMAConflict)
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), compat.ErrRMAConflict)
		require.NoError(t, win.Unlock(peer))
		require.NoError(t, win.LockAll(0))
		require.ErrorIs(t, win.Lock(windows.LockExclusive, peer, 0), compat.ErrRMAConflict)
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), sync)
		require.ErrorIs(t, win.Unlock(peer), sync, "LockAll is closed by UnlockAll")
		require.ErrorIs(t, win.LockAll(0), sync)
		require.NoError(t, win.UnlockAll())
		require.ErrorIs(t, windows.Put(win, src, peer, 0), sync, "after UnlockAll")

		// A fence inside a lock epoch fails (on this PE) but takes part in
		// the barrier, so the others' fence completes.
		if me == 0 {
			require.NoError(t, win.Lock(windows.LockShared, peer, 0))
			require.ErrorIs(t, win.Fence(0), sync)
			require.NoError(t, win.Unlock(peer))
		} else {
			require.NoError(t, win.Fence(0))
			require.NoError(t, win.Fence(windows.ModeNoSucceed))
		}
		if me == 0 {
			require.NoError(t, win.Fence(windows.ModeNoSucceed))
		}

		// Fence epochs: an epoch with RMA in it must be closed by a fence.
		require.NoError(t, win.Fence(0))
		require.NoError(t, win.Lock(windows.LockShared, peer, 0), "a fence epoch with no RMA may turn into a lock epoch")
		require.NoError(t, win.Unlock(peer))
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Fence(0))
		require.NoError(t, windows.Put(win, []int64{int64(me)}, peer, 0))
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), sync)
		require.ErrorIs(t, win.Start(grp(t, win, peer), 0), sync)
		require.ErrorIs(t, win.Post(grp(t, win, peer), 0), sync)
		require.ErrorIs(t, win.LockAll(0), sync)
		require.ErrorIs(t, win.Free(), sync, "Free inside an active fence epoch")
		require.NoError(t, win.Fence(windows.ModeNoSucceed))
		require.Equal(t, int64((me+np-1)%np), mem[0])
		require.ErrorIs(t, windows.Put(win, src, peer, 0), sync, "after NOSUCCEED")

		// PSCW: ops outside the start group, nesting.
		require.NoError(t, win.Post(grp(t, win, (me+np-1)%np), 0))
		require.ErrorIs(t, win.Post(grp(t, win, peer), 0), sync)
		require.NoError(t, win.Start(grp(t, win, peer), 0))
		require.ErrorIs(t, win.Start(grp(t, win, peer), 0), sync)
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), sync)
		require.ErrorIs(t, win.LockAll(0), sync)
		require.ErrorIs(t, windows.Put(win, src, other, 0), sync, "not in the start group")
		require.ErrorIs(t, win.Fence(0), sync)
		require.NoError(t, win.Complete())
		require.NoError(t, win.Wait())
		require.NoError(t, w.BarrierAll())

		// no_locks: locking is an error.
		require.NoError(t, win.SetInfo(compat.Info{windows.InfoNoLocks: "true"}))
		require.Equal(t, "true", win.Info()[windows.InfoNoLocks])
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), sync)
		require.ErrorIs(t, win.LockAll(0), sync)
		require.NoError(t, win.SetInfo(compat.Info{windows.InfoNoLocks: "false"}))
		require.NoError(t, win.SetInfo(compat.Info{windows.InfoSameSize: "true"})) // fixed at creation: ignored
		require.ErrorIs(t, win.SetInfo(compat.Info{windows.InfoNoLocks: "maybe"}), compat.ErrInfoValue)

		// Free with an epoch open anywhere fails everywhere; nothing is freed.
		if me == 1 {
			require.NoError(t, win.Lock(windows.LockShared, 0, 0))
		}
		require.ErrorIs(t, win.Free(), sync)
		if me == 1 {
			require.NoError(t, win.Unlock(0))
		}
		require.NoError(t, win.Free())
		require.ErrorIs(t, win.Free(), compat.ErrWin)
		require.ErrorIs(t, windows.Put(win, src, peer, 0), compat.ErrWin)
		require.ErrorIs(t, win.Lock(windows.LockShared, peer, 0), compat.ErrWin)
		require.ErrorIs(t, win.Fence(0), compat.ErrWin)
	})
}

// Bad ranks, displacements, datatypes, ops, assertions, lock types and
// groups; nothing is ever written outside the target's window.
func TestArgumentErrors(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		// Rank r has 8*(r+1) bytes; all ranks use disp unit 4.
		win, err := windows.Allocate(commOf(t, w), 8*(me+1), 4, nil)
		require.NoError(t, err)
		require.NoError(t, win.LockAll(0))
		for _, r := range []int{np, -2, 1 << 40} {
			require.ErrorIs(t, windows.Put(win, []int32{1}, r, 0), compat.ErrRank)
			require.ErrorIs(t, windows.Get(win, []int32{1}, r, 0), compat.ErrRank)
			require.ErrorIs(t, windows.Accumulate(win, []int32{1}, r, 0, compat.OpSum), compat.ErrRank)
			require.ErrorIs(t, win.Flush(r), compat.ErrRank)
			require.ErrorIs(t, win.Lock(windows.LockShared, r, 0), compat.ErrRank)
			require.ErrorIs(t, win.Unlock(r), compat.ErrRank)
		}
		// Displacements: rank 1 has 16 bytes = disp 0..3 of int32.
		rng := compat.ErrRMARange
		require.NoError(t, windows.Put(win, []int32{1, 2, 3, 4}, 1, 0))
		require.ErrorIs(t, windows.Put(win, []int32{1, 2, 3, 4}, 1, 1), rng)
		require.ErrorIs(t, windows.Put(win, []int32{1}, 1, 4), rng)
		require.ErrorIs(t, windows.Put(win, []int32{1}, 1, -1), rng)
		require.ErrorIs(t, windows.Put(win, []int32{1}, 1, 1<<61), rng)
		require.ErrorIs(t, windows.Put(win, []int64{1, 2, 3}, 1, 0), rng)
		require.ErrorIs(t, windows.Get(win, make([]int32, 5), 1, 0), rng)
		require.ErrorIs(t, windows.Accumulate(win, []int32{1, 1}, 1, 3, compat.OpSum), rng)
		_, err = windows.FetchAndOp(win, int32(1), 1, 4, compat.OpSum)
		require.ErrorIs(t, err, rng)
		_, err = windows.CompareAndSwap(win, int32(1), 2, 1, 4)
		require.ErrorIs(t, err, rng)
		require.ErrorIs(t, windows.PutTyped(win, []int32{1, 2}, 2, compat.Int32, 1, 0, 1, compat.Vector(2, 1, 4, compat.Int32)), rng)
		require.NoError(t, windows.Put(win, []int32{9, 9, 9, 9, 9, 9, 9, 9}, 3, 0), "rank 3 has 32 bytes")
		// Types and ops.
		require.ErrorIs(t, windows.Accumulate(win, []complex64{1}, 3, 0, compat.OpMax), compat.ErrOp)
		require.ErrorIs(t, windows.Accumulate(win, []float32{1}, 3, 0, compat.OpBand), compat.ErrOp)
		require.ErrorIs(t, windows.Accumulate(win, []int32{1}, 3, 0, compat.OpNoOp), compat.ErrOp)
		require.ErrorIs(t, windows.Accumulate(win, []int32{1}, 3, 0, compat.OpMaxloc), compat.ErrOp)
		require.ErrorIs(t, windows.Accumulate(win, []int32{1}, 3, 0, compat.Op(0)), compat.ErrOp)
		require.ErrorIs(t, windows.Accumulate(win, []int32{1}, 3, 0, compat.Op(99)), compat.ErrOp)
		require.ErrorIs(t, windows.AccumulateTyped(win, []byte{1}, 1, compat.Byte, 3, 0, 1, compat.Byte, compat.OpSum), compat.ErrOp)
		_, err = windows.FetchAndOp(win, compat.TwoInt{}, 3, 0, compat.OpSum)
		require.ErrorIs(t, err, compat.ErrOp)
		_, err = windows.CompareAndSwap(win, float32(1), 2, 3, 0)
		require.ErrorIs(t, err, compat.ErrType)
		_, err = windows.CompareAndSwap(win, compat.FloatInt{}, compat.FloatInt{}, 3, 0)
		require.ErrorIs(t, err, compat.ErrType)
		// Assertions, lock types, groups.
		require.NoError(t, win.UnlockAll())
		require.ErrorIs(t, win.Lock(windows.LockType(7), 0, 0), compat.ErrLockType)
		require.ErrorIs(t, win.Lock(windows.LockShared, 0, windows.ModeNoPut), compat.ErrAssert)
		require.ErrorIs(t, win.LockAll(windows.ModeNoSucceed), compat.ErrAssert)
		require.ErrorIs(t, win.Start(grp(t, win, 0), windows.ModeNoStore), compat.ErrAssert)
		require.ErrorIs(t, win.Post(grp(t, win, 0), windows.ModeNoPrecede), compat.ErrAssert)
		require.ErrorIs(t, win.Fence(windows.ModeNoCheck), compat.ErrAssert)
		g, err := win.Group()
		require.NoError(t, err)
		for _, bad := range [][]int{{np}, {0, 0}, {-1}} {
			_, err = g.Incl(bad)
			require.ErrorIs(t, err, compat.ErrRank, "group of ranks %v", bad)
		}
		require.ErrorIs(t, win.Post(nil, 0), compat.ErrGroup)
		require.ErrorIs(t, win.Start(nil, 0), compat.ErrGroup)
		require.NoError(t, win.Start(grp(t, win, 0, 1), windows.ModeNoCheck))
		require.NoError(t, win.Complete())
		_, _, _, err = win.SharedQuery(0)
		require.ErrorIs(t, err, compat.ErrRMAFlavor)
		require.NoError(t, w.BarrierAll())
		// Nothing landed outside rank 1's 16 bytes: the allocation is 32
		// bytes on every PE (the largest window), and bytes 16..31 of rank 1
		// are still zero.
		if me == 1 {
			raw := windows.RawMemory(win, 1)
			require.Len(t, raw, 32)
			assert.Equal(t, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0}, raw[:16])
			assert.Equal(t, make([]byte, 16), raw[16:])
		}
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free())
	})
}

// Collective creation fails on every PE when one PE's arguments are bad.
func TestCreationErrors(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		me := w.MyPE()
		size, unit := 64, 8
		if me == 2 {
			size = -1
		}
		_, err := windows.Allocate(commOf(t, w), size, unit, nil)
		if me == 2 {
			require.ErrorIs(t, err, compat.ErrSize)
		} else {
			require.ErrorIs(t, err, compat.ErrArg)
		}
		if me == 1 {
			unit = 0
		}
		_, err = windows.AllocateShared(commOf(t, w), 64, unit, nil)
		if me == 1 {
			require.ErrorIs(t, err, compat.ErrDisp)
		} else {
			require.ErrorIs(t, err, compat.ErrArg)
		}
		info := compat.Info{}
		if me == 3 {
			info[windows.InfoAccumulateOps] = "sometimes"
		}
		_, err = windows.Create(commOf(t, w), make([]int64, 4), 8, info)
		require.Error(t, err)
		if me == 3 {
			require.ErrorIs(t, err, compat.ErrInfoValue)
		}
		_, err = windows.Allocate(commOf(t, w), 8*me, 8, compat.Info{windows.InfoSameSize: "true"})
		require.ErrorIs(t, err, compat.ErrArg, "same_size=true with different sizes")
		// Only PE 0 says so: every PE still fails.
		_, err = windows.Allocate(commOf(t, w), 8*me, 8, compat.Info{windows.InfoSameSize: strconv.FormatBool(me == 0)})
		require.ErrorIs(t, err, compat.ErrArg, "same_size=true on one PE with different sizes")
		_, err = windows.Allocate(commOf(t, w), 8, 4+4*(me%2), compat.Info{windows.InfoSameDispUnit: "true"})
		require.ErrorIs(t, err, compat.ErrArg, "same_disp_unit=true with different units")
		_, err = windows.Allocate(commOf(t, w), 1<<40, 1, nil)
		require.ErrorIs(t, err, compat.ErrNoMem)
		_, err = windows.Allocate(nil, 8, 1, nil)
		require.ErrorIs(t, err, compat.ErrComm)
		// And the World is still fine for a good window.
		win, err := windows.Allocate(commOf(t, w), 8, 8, nil)
		require.NoError(t, err)
		require.NoError(t, win.Free())
	})
}
