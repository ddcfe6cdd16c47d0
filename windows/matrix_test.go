package windows_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

var modes = []string{"fence", "pscw", "lock_exclusive", "lock_shared", "lock_all", "flush", "flush_local", "flush_all"}

func all(n int) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = i
	}
	return g
}

// epoch runs op(t) for every target in targets inside one epoch of mode;
// sources are the ranks that access this PE (for Post). Every PE calls it.
// Afterwards every PE's window holds every update: passive modes end with
// a barrier and a Sync (what the separate model needs before reading).
func epoch(t *petest.T, w *shmem.World, win *windows.Win, mode string, targets, sources []int, op func(t int)) {
	t.Helper()
	switch mode {
	case "fence":
		require.NoError(t, win.Fence(windows.ModeNoPrecede))
		for _, x := range targets {
			op(x)
		}
		require.NoError(t, win.Fence(windows.ModeNoSucceed))
	case "pscw":
		require.NoError(t, win.Post(grp(t, win, sources...), 0))
		require.NoError(t, win.Start(grp(t, win, targets...), 0))
		for _, x := range targets {
			op(x)
		}
		require.NoError(t, win.Complete())
		require.NoError(t, win.Wait())
	case "lock_exclusive", "lock_shared":
		typ := windows.LockExclusive
		if mode == "lock_shared" {
			typ = windows.LockShared
		}
		for _, x := range targets {
			require.NoError(t, win.Lock(typ, x, 0))
			op(x)
			require.NoError(t, win.Unlock(x))
		}
	case "lock_all", "flush", "flush_local", "flush_all":
		require.NoError(t, win.LockAll(0))
		for _, x := range targets {
			op(x)
			switch mode {
			case "flush":
				require.NoError(t, win.Flush(x))
			case "flush_local":
				require.NoError(t, win.FlushLocal(x))
			case "flush_all":
				require.NoError(t, win.FlushAll())
				require.NoError(t, win.FlushLocalAll())
			}
		}
		require.NoError(t, win.UnlockAll())
	default:
		t.Errorf("unknown mode %q", mode)
	}
	require.NoError(t, w.BarrierAll())
	require.NoError(t, win.Sync())
}

// Every flavor, under every synchronization mode, with put, get and
// accumulate: the results are exact on every PE.
func TestFlavorSyncMatrix(t *testing.T) {
	for _, f := range flavors {
		t.Run(f.String(), func(t *testing.T) {
			petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
				const n = 8
				me, np := w.MyPE(), w.NPEs()
				right, left := (me+1)%np, (me+np-1)%np
				x := newTW(t, w, f, n)
				for _, mode := range modes {
					what := label(f, mode)
					// Put: each PE writes 4 elements into its right neighbour.
					x.setLocal(t, w, func(int) int64 { return 0 })
					epoch(t, w, x.win, mode, []int{right}, []int{left}, func(tg int) {
						src := []int64{int64(me*100 + 0), int64(me*100 + 1), int64(me*100 + 2), int64(me*100 + 3)}
						require.NoError(t, windows.Put(x.win, src, tg, x.disp(tg, 2)), what)
					})
					for k, v := range x.mem {
						want := int64(0)
						if k >= 2 && k < 6 {
							want = int64(left*100 + k - 2)
						}
						require.Equal(t, want, v, "%s put: element %d", what, k)
					}

					// Get: each PE reads its right neighbour's memory.
					x.setLocal(t, w, func(k int) int64 { return int64(me*1000 + k) })
					got := make([]int64, n)
					epoch(t, w, x.win, mode, []int{right}, []int{left}, func(tg int) {
						require.NoError(t, windows.Get(x.win, got, tg, x.disp(tg, 0)), what)
					})
					for k, v := range got {
						require.Equal(t, int64(right*1000+k), v, "%s get: element %d", what, k)
					}

					// Accumulate: every PE adds into elements 5 and 6 of every PE.
					x.setLocal(t, w, func(k int) int64 { return int64(k) })
					epoch(t, w, x.win, mode, all(np), all(np), func(tg int) {
						require.NoError(t, windows.Accumulate(x.win, []int64{int64(me + 1), 2}, tg, x.disp(tg, 5), compat.OpSum), what)
					})
					require.Equal(t, int64(5+np*(np+1)/2), x.mem[5], "%s accumulate", what)
					require.Equal(t, int64(6+2*np), x.mem[6], "%s accumulate", what)
					require.Equal(t, int64(4), x.mem[4], "%s accumulate", what)
				}
				x.free(t)
			})
		})
	}
}

// The same matrix over a transport without load/store access to peers
// (every access goes through shmem calls): allocate and dynamic windows.
// A shared window cannot exist there.
func TestFlavorSyncMatrixRemotePath(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		windows.SetForceRemote(true)
		defer windows.SetForceRemote(false)
		me, np := w.MyPE(), w.NPEs()
		right := (me + 1) % np
		_, err := windows.AllocateShared(commOf(t, w), 64, 8, nil)
		require.ErrorIs(t, err, compat.ErrRMAShared)
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorDynamic} {
			x := newTW(t, w, f, 8)
			for _, mode := range []string{"fence", "lock_exclusive", "flush"} {
				what := label(f, mode) + "/remote"
				x.setLocal(t, w, func(k int) int64 { return int64(me*1000 + k) })
				got := make([]int64, 3)
				epoch(t, w, x.win, mode, all(np), all(np), func(tg int) {
					if tg == right {
						require.NoError(t, windows.Get(x.win, got, tg, x.disp(tg, 2)), what)
						require.NoError(t, windows.Put(x.win, []int64{-1, -2}, tg, x.disp(tg, 0)), what)
					}
					require.NoError(t, windows.Accumulate(x.win, []int64{1}, tg, x.disp(tg, 7), compat.OpSum), what)
					_, err := windows.FetchAndOp(x.win, int64(2), tg, x.disp(tg, 6), compat.OpSum)
					require.NoError(t, err, what)
					_, err = windows.CompareAndSwap(x.win, int64(me*1000+5), -5, tg, x.disp(tg, 5))
					require.NoError(t, err, what)
				})
				for k, v := range got {
					require.Equal(t, int64(right*1000+2+k), v, "%s get", what)
				}
				require.Equal(t, []int64{-1, -2}, x.mem[:2], what)
				require.Equal(t, int64(me*1000+7+np), x.mem[7], what)
				require.Equal(t, int64(me*1000+6+2*np), x.mem[6], what)
				require.Equal(t, int64(-5), x.mem[5], "%s: only this PE's own CAS matched", what)
			}
			x.free(t)
		}
	})
}
