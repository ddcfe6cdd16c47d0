package windows_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Regions come and go: origins reach attached memory by address, get
// ErrRMARange for memory that is not (or no longer) attached, and a
// re-attached buffer is reachable again.
func TestDynamicAttachDetach(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		right := (me + 1) % np
		win, err := windows.CreateDynamic(commOf(t, w), compat.Info{windows.InfoDynamicPool: "4096"})
		require.NoError(t, err)
		assert.Equal(t, windows.FlavorDynamic, win.Flavor())
		assert.Equal(t, windows.Separate, win.Model())
		assert.Nil(t, win.Base())
		assert.Equal(t, 0, win.Size())
		assert.Equal(t, 1, win.DispUnit())
		assert.Equal(t, "4096", win.Info()[windows.InfoDynamicPool])

		a := make([]int32, 8)
		b := make([]float64, 4)
		require.NoError(t, windows.Attach(win, a))
		require.NoError(t, windows.Attach(win, b))
		aAddr := exchange(t, w, windows.Address(a))
		bAddr := exchange(t, w, windows.Address(b))

		require.NoError(t, win.LockAll(0))
		require.NoError(t, windows.Put(win, []int32{int32(me), int32(me + 1)}, right, aAddr[right]+4*6))
		require.NoError(t, windows.Accumulate(win, []float64{1.5}, right, bAddr[right]+8, compat.OpSum))
		// Past the end of a region, before it, between regions: not attached.
		require.ErrorIs(t, windows.Put(win, []int32{1, 2, 3}, right, aAddr[right]+4*6), compat.ErrRMARange)
		require.ErrorIs(t, windows.Put(win, []int32{1}, right, aAddr[right]-4), compat.ErrRMARange)
		require.ErrorIs(t, windows.Get(win, make([]byte, 1), right, 0), compat.ErrRMARange)
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Sync())
		left := (me + np - 1) % np
		assert.Equal(t, []int32{0, 0, 0, 0, 0, 0, int32(left), int32(left + 1)}, a)
		assert.Equal(t, []float64{0, 1.5, 0, 0}, b)

		// Attach errors.
		require.ErrorIs(t, windows.Attach(win, a[2:4]), compat.ErrRMAAttach, "overlap")
		require.ErrorIs(t, windows.Attach(win, make([]byte, 8192)), compat.ErrRMAAttach, "pool full")
		require.ErrorIs(t, windows.Attach(win, []byte{}), compat.ErrRMAAttach, "empty")
		require.ErrorIs(t, windows.Detach(win, make([]byte, 4)), compat.ErrRMAAttach, "not attached")

		// Detach a: local stores and RMA are reconciled into it first.
		require.NoError(t, w.BarrierAll())
		a[0] = 5
		require.NoError(t, windows.Detach(win, a))
		require.Equal(t, int32(5), a[0])
		require.ErrorIs(t, windows.Detach(win, a), compat.ErrRMAAttach, "twice")
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.LockAll(0))
		require.ErrorIs(t, windows.Put(win, []int32{1}, right, aAddr[right]), compat.ErrRMARange, "detached")
		got := make([]float64, 4)
		require.NoError(t, windows.Get(win, got, right, bAddr[right]))
		require.Equal(t, []float64{0, 1.5, 0, 0}, got)
		require.NoError(t, win.UnlockAll())

		// Many regions, then a new one where a was.
		require.NoError(t, w.BarrierAll())
		cs := make([][]int64, 10)
		for i := range cs {
			cs[i] = []int64{int64(me*100 + i)}
			require.NoError(t, windows.Attach(win, cs[i]))
		}
		c5 := exchange(t, w, windows.Address(cs[5]))
		require.NoError(t, win.LockAll(0))
		v := []int64{0}
		require.NoError(t, windows.Get(win, v, right, c5[right]))
		require.Equal(t, int64(right*100+5), v[0])
		old, err := windows.CompareAndSwap(win, int64(right*100+5), -1, right, c5[right])
		require.NoError(t, err)
		require.Equal(t, int64(right*100+5), old)
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Sync())
		require.Equal(t, int64(-1), cs[5][0])
		for i := range cs {
			require.NoError(t, windows.Detach(win, cs[i]))
		}
		require.NoError(t, windows.Detach(win, b))

		// Attach and Detach belong to dynamic windows only.
		other, err := windows.Allocate(commOf(t, w), 8, 1, nil)
		require.NoError(t, err)
		require.ErrorIs(t, windows.Attach(other, a), compat.ErrRMAFlavor)
		require.ErrorIs(t, windows.Detach(other, a), compat.ErrRMAFlavor)
		require.NoError(t, other.Free())
		require.NoError(t, win.Free())
	})
}
