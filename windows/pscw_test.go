package windows_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Every PE exposes its window to both neighbours and accesses both, round
// after round with no barrier in between: the groups overlap, each PE is
// origin and target at once, and the counters keep rounds apart. Odd
// rounds poll with Test instead of blocking in Wait.
func TestPSCWOverlappingGroups(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const rounds = 30
		me, np := w.MyPE(), w.NPEs()
		right, left := (me+1)%np, (me+np-1)%np
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorCreate} {
			x := newTW(t, w, f, 4)
			nb := grp(t, x.win, left, right)
			for r := range rounds {
				require.NoError(t, x.win.Post(nb, 0))
				require.NoError(t, x.win.Start(nb, 0))
				// My value goes to slot 0 of the right and slot 1 of the left.
				require.NoError(t, windows.Put(x.win, []int64{int64(r*100 + me)}, right, x.disp(right, 0)))
				require.NoError(t, windows.Put(x.win, []int64{int64(r*100 + me)}, left, x.disp(left, 1)))
				require.NoError(t, windows.Accumulate(x.win, []int64{1}, right, x.disp(right, 2), compat.OpSum))
				require.NoError(t, windows.Accumulate(x.win, []int64{1}, left, x.disp(left, 2), compat.OpSum))
				require.NoError(t, x.win.Complete())
				if r%2 == 0 {
					require.NoError(t, x.win.Wait())
				} else {
					for {
						done, err := x.win.Test()
						require.NoError(t, err)
						if done {
							break
						}
					}
				}
				// After Wait the exposure epoch is over: the data is here.
				require.Equal(t, int64(r*100+left), x.mem[0], "%v round %d", f, r)
				require.Equal(t, int64(r*100+right), x.mem[1], "%v round %d", f, r)
				require.Equal(t, int64(2*(r+1)), x.mem[2], "%v round %d", f, r)
			}
			require.NoError(t, w.BarrierAll())
			x.free(t)
		}
	})
}

// Disjoint pairs, a PE in its own groups, an access epoch with no
// operation completed before the target posts, and ModeNoCheck.
func TestPSCWGroups(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		win, mem, err := windows.AllocateOf[int32](commOf(t, w), 4, nil)
		require.NoError(t, err)
		me := w.MyPE()
		partner := me ^ 1
		// Pairs (0,1) and (2,3), each PE also accessing itself.
		g := grp(t, win, partner, me)
		require.NoError(t, win.Post(g, 0))
		require.NoError(t, win.Start(g, 0))
		require.NoError(t, windows.Put(win, []int32{int32(me + 10)}, partner, 0))
		require.NoError(t, windows.Put(win, []int32{int32(me + 20)}, me, 1))
		require.NoError(t, win.Complete())
		require.NoError(t, win.Wait())
		require.Equal(t, []int32{int32(partner + 10), int32(me + 20)}, mem[:2])

		// Odd PEs start and complete an empty epoch before even PEs post;
		// the completion is matched by the later Post/Wait.
		require.NoError(t, w.BarrierAll())
		if me%2 == 1 {
			require.NoError(t, win.Start(grp(t, win, partner), 0))
			require.NoError(t, win.Complete())
		}
		require.NoError(t, w.BarrierAll())
		if me%2 == 0 {
			require.NoError(t, win.Post(grp(t, win, partner), 0))
			require.NoError(t, win.Wait())
		}
		// The next epoch pairs up correctly with real data.
		if me%2 == 0 {
			require.NoError(t, win.Post(grp(t, win, partner), 0))
		} else {
			require.NoError(t, win.Start(grp(t, win, partner), 0))
			require.NoError(t, windows.Put(win, []int32{99}, partner, 2))
			require.NoError(t, win.Complete())
		}
		if me%2 == 0 {
			require.NoError(t, win.Wait())
			require.Equal(t, int32(99), mem[2])
		}

		// ModeNoCheck: the post is known to have happened (a barrier).
		if me%2 == 0 {
			require.NoError(t, win.Post(grp(t, win, partner), windows.ModeNoCheck))
		}
		require.NoError(t, w.BarrierAll())
		if me%2 == 1 {
			require.NoError(t, win.Start(grp(t, win, partner), windows.ModeNoCheck))
			require.NoError(t, windows.Put(win, []int32{77}, partner, 3))
			require.NoError(t, win.Complete())
		} else {
			require.NoError(t, win.Wait())
			require.Equal(t, int32(77), mem[3])
		}
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free())
	})
}
