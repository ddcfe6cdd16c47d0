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
		win, err := windows.CreateDynamic(commOf(t, w), compat.Info{windows.InfoDynamicPool: "1048576"})
		require.NoError(t, err)
		assert.Equal(t, windows.FlavorDynamic, win.Flavor())
		assert.Equal(t, windows.Unified, win.Model())
		assert.Nil(t, win.Base())
		assert.Equal(t, 0, win.Size())
		assert.Equal(t, 1, win.DispUnit())
		assert.Equal(t, "1048576", win.Info()[windows.InfoDynamicPool])

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
		if w.BootstrapName() != "inproc" { // goroutine PEs reach attached memory by address: no pool
			require.ErrorIs(t, windows.Attach(win, make([]byte, 2<<20)), compat.ErrRMAAttach, "pool full")
		}
		require.ErrorIs(t, windows.Attach(win, []byte{}), compat.ErrRMAAttach, "empty")
		require.ErrorIs(t, windows.Detach(win, make([]byte, 4)), compat.ErrRMAAttach, "not attached")

		// Detach a: it holds what local stores and RMA left there.
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

// Dynamic windows are unified: RMA reaches the attached memory itself, so
// a target reads peers' puts and atomics in its own buffer after a
// barrier with no Sync; regions that share a page (halves of one array)
// are reached independently, and the gap between them is not attached;
// detaching one leaves the other reachable and the detached memory
// holding what it held. Goroutine PEs, process PEs, and processes that
// reach each other over tcp.
func TestDynamicUnified(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 3, Modes: []string{"inproc", "procs", "tcp"}}, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		right, left := (me+1)%np, (me+np-1)%np
		win, err := windows.CreateDynamic(commOf(t, w), nil)
		require.NoError(t, err)
		assert.Equal(t, windows.Unified, win.Model())
		big := make([]int64, 3000) // spans pages
		for i := range big {
			big[i] = int64(me*100000 + i)
		}
		pair := make([]int64, 64)
		lo, hi := pair[:16], pair[32:48] // one page, two regions; pair[16:32] is not attached
		require.NoError(t, windows.Attach(win, big))
		require.NoError(t, windows.Attach(win, lo))
		require.NoError(t, windows.Attach(win, hi))
		bigA := exchange(t, w, windows.Address(big))
		loA := exchange(t, w, windows.Address(lo))
		hiA := exchange(t, w, windows.Address(hi))

		require.NoError(t, win.LockAll(0))
		// A put across page boundaries, then atomics of every kind.
		span := make([]int64, 1500)
		for i := range span {
			span[i] = -int64(me*10000 + i)
		}
		require.NoError(t, windows.Put(win, span, right, bigA[right]+8*700))
		got := make([]int64, 4)
		require.NoError(t, windows.Get(win, got, right, bigA[right]+8*2998-8*2))
		require.Equal(t, []int64{int64(right*100000 + 2996), int64(right*100000 + 2997), int64(right*100000 + 2998), int64(right*100000 + 2999)}, got)
		require.NoError(t, windows.Accumulate(win, []int64{5, 6}, right, loA[right]+8*3, compat.OpSum))
		old := []int64{0}
		require.NoError(t, windows.GetAccumulate(win, []int64{7}, old, right, hiA[right], compat.OpSum))
		require.Equal(t, int64(0), old[0])
		f, err := windows.FetchAndOp(win, int64(9), right, hiA[right]+8, compat.OpSum)
		require.NoError(t, err)
		require.Equal(t, int64(0), f)
		c, err := windows.CompareAndSwap(win, int64(0), int64(42), right, hiA[right]+8*15)
		require.NoError(t, err)
		require.Equal(t, int64(0), c)
		rp, err := windows.Rput(win, []int64{11}, right, loA[right]+8*15)
		require.NoError(t, err)
		_, err = rp.Wait()
		require.NoError(t, err)
		rg := make([]int64, 2)
		rq, err := windows.Rget(win, rg, right, loA[right]+8*3)
		require.NoError(t, err)
		_, err = rq.Wait()
		require.NoError(t, err)
		require.Equal(t, []int64{5, 6}, rg)
		// The gap between the two regions, and an access running out of one.
		require.ErrorIs(t, windows.Put(win, []int64{1}, right, loA[right]+8*16), compat.ErrRMARange)
		require.ErrorIs(t, windows.Put(win, []int64{1, 2}, right, loA[right]+8*15), compat.ErrRMARange)
		_, err = windows.FetchAndOp(win, int64(1), right, hiA[right]-8, compat.OpSum)
		require.ErrorIs(t, err, compat.ErrRMARange)
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())

		// Unified: no Sync before reading.
		for i := range big {
			want := int64(me*100000 + i)
			if i >= 700 && i < 2200 {
				want = -int64(left*10000 + i - 700)
			}
			if big[i] != want {
				require.Equal(t, want, big[i], "big[%d]", i)
			}
		}
		assert.Equal(t, []int64{5, 6, 11}, []int64{lo[3], lo[4], lo[15]})
		assert.Equal(t, []int64{7, 9, 42}, []int64{hi[0], hi[1], hi[15]})
		assert.Equal(t, make([]int64, 16), pair[16:32], "the gap between the regions")

		// Detach lo: hi, in the same page, stays reachable; lo keeps its data.
		require.NoError(t, w.BarrierAll())
		require.NoError(t, windows.Detach(win, lo))
		lo[0] = 1 // the caller's memory, writable as ever
		assert.Equal(t, int64(11), lo[15])
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.LockAll(0))
		require.ErrorIs(t, windows.Put(win, []int64{1}, right, loA[right]), compat.ErrRMARange, "detached")
		require.NoError(t, windows.Accumulate(win, []int64{100}, right, hiA[right]+8*2, compat.OpSum))
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, int64(100), hi[2])
		assert.Equal(t, int64(1), lo[0])
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free()) // detaches big and hi
		big[0], hi[0] = 3, 4
		assert.Equal(t, []int64{3, 4}, []int64{big[0], hi[0]})
	})
}
