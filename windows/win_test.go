package windows_test

import (
	"strconv"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Attributes of every flavor; per-PE sizes and displacement units; info.
func TestAttributes(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		// PE r: 16*(r+1) bytes, disp unit 4 on even PEs and 8 on odd ones.
		unit := 4 + 4*(me%2)
		win, err := windows.Allocate(commOf(t, w), 16*(me+1), unit, compat.Info{windows.InfoAccumulateOrdering: "none"})
		require.NoError(t, err)
		assert.Equal(t, windows.FlavorAllocate, win.Flavor())
		assert.Equal(t, windows.Unified, win.Model())
		assert.Equal(t, 16*(me+1), win.Size())
		assert.Len(t, win.Base(), 16*(me+1))
		assert.Equal(t, unit, win.DispUnit())
		assert.Equal(t, me, win.Rank())
		assert.Equal(t, np, win.NRanks())
		assert.Same(t, w, win.World())
		info := win.Info()
		assert.Equal(t, "none", info[windows.InfoAccumulateOrdering])
		assert.Equal(t, "false", info[windows.InfoNoLocks])
		assert.Equal(t, "same_op_no_op", info[windows.InfoAccumulateOps])
		for r := range np {
			assert.Equal(t, 16*(r+1), win.TargetSize(r))
			assert.Equal(t, 4+4*(r%2), win.TargetDispUnit(r))
		}
		assert.Equal(t, -1, win.TargetSize(np))
		assert.Equal(t, -1, win.TargetDispUnit(-1))
		// Displacements are in the target's unit: the last int32 of each rank.
		require.NoError(t, win.LockAll(0))
		for r := range np {
			last := (16*(r+1) - 4) / (4 + 4*(r%2))
			require.NoError(t, windows.Accumulate(win, []int32{int32(me + 1)}, r, last, compat.OpSum), "rank %d", r)
			require.ErrorIs(t, windows.Put(win, []int64{1}, r, last+1), compat.ErrRMARange)
		}
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		end := win.Base()[len(win.Base())-4:]
		if unit == 8 {
			end = win.Base()[len(win.Base())-8 : len(win.Base())-4]
		}
		assert.Equal(t, int32(np*(np+1)/2), *(*int32)(unsafe.Pointer(&end[0])))
		require.NoError(t, win.Free())

		// Zero-size windows on some PEs.
		zs := 0
		if me%2 == 1 {
			zs = 8
		}
		zw, err := windows.Allocate(commOf(t, w), zs, 1, nil)
		require.NoError(t, err)
		require.NoError(t, zw.LockAll(0))
		require.ErrorIs(t, windows.Put(zw, []byte{1}, 0, 0), compat.ErrRMARange)
		require.NoError(t, windows.Put(zw, []byte{}, 0, 0))
		require.NoError(t, windows.Put(zw, []byte{1}, 1, 7))
		require.NoError(t, zw.UnlockAll())
		require.NoError(t, zw.Free())

		// Create: the caller's buffer is the base; unified model, or
		// separate by info key.
		sw, err := windows.Create(commOf(t, w), make([]float32, 6), 4, compat.Info{windows.InfoModel: "separate"})
		require.NoError(t, err)
		assert.Equal(t, windows.Separate, sw.Model())
		require.NoError(t, sw.Free())
		// (In pages of its own: a buffer that shares a page with another
		// window's, as goroutine PEs' small buffers do, is separate.)
		buf := make([]float32, 16<<10)[:6]
		cw, err := windows.Create(commOf(t, w), buf, 4, nil)
		require.NoError(t, err)
		assert.Equal(t, windows.FlavorCreate, cw.Flavor())
		assert.Equal(t, windows.Unified, cw.Model())
		assert.Equal(t, 24, cw.Size())
		assert.Equal(t, unsafe.Pointer(&buf[0]), unsafe.Pointer(&cw.Base()[0]))
		assert.Equal(t, &buf[0], &windows.Local[float32](cw)[0])
		require.NoError(t, cw.Free())
	})
}

// Shared windows: every PE loads and stores every part; parts are
// contiguous in rank order unless alloc_shared_noncontig is set.
func TestSharedWindow(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		for _, noncontig := range []bool{false, true} {
			info := compat.Info{}
			if noncontig && me == 1 {
				// One PE asking is enough: the layout is the same everywhere.
				info[windows.InfoAllocSharedNoncont] = "true"
			}
			size := 8 * (me + 1) // 1..4 int64s
			if me == 0 {
				size = 0
			}
			win, err := windows.AllocateShared(commOf(t, w), size, 8, info)
			require.NoError(t, err)
			assert.Equal(t, windows.FlavorShared, win.Flavor())
			assert.Equal(t, strconv.FormatBool(noncontig), win.Info()[windows.InfoAllocSharedNoncont])
			assert.Equal(t, windows.Unified, win.Model())
			parts := make([][]int64, np)
			for r := range np {
				b, sz, du, err := win.SharedQuery(r)
				require.NoError(t, err)
				assert.Equal(t, win.TargetSize(r), sz)
				assert.Equal(t, 8, du)
				assert.Len(t, b, sz)
				parts[r], err = windows.SharedSlice[int64](win, r)
				require.NoError(t, err)
			}
			if !noncontig {
				for r := 2; r < np; r++ {
					prev := parts[r-1]
					assert.Equal(t, uintptr(unsafe.Pointer(&prev[0]))+8*uintptr(len(prev)), uintptr(unsafe.Pointer(&parts[r][0])),
						"rank %d's part follows rank %d's", r, r-1)
				}
			}
			b, sz, _, err := win.SharedQuery(compat.ProcNull)
			require.NoError(t, err)
			assert.Equal(t, 16, sz, "ProcNull: the first non-empty part")
			assert.Len(t, b, 16)
			_, _, _, err = win.SharedQuery(np)
			require.ErrorIs(t, err, compat.ErrRank)

			// Stores into the right neighbour's part, read back by RMA and
			// by the owner.
			right := (me + 1) % np
			require.NoError(t, win.LockAll(0))
			if len(parts[right]) > 0 {
				parts[right][0] = int64(100 + me)
			}
			require.NoError(t, win.Sync())
			require.NoError(t, w.BarrierAll())
			require.NoError(t, win.Sync())
			if me != 0 {
				assert.Equal(t, int64(100+(me+np-1)%np), windows.Local[int64](win)[0])
				got := []int64{0}
				require.NoError(t, windows.Get(win, got, me, 0))
				assert.Equal(t, int64(100+(me+np-1)%np), got[0])
			}
			require.NoError(t, win.UnlockAll())
			require.NoError(t, w.BarrierAll())
			require.NoError(t, win.Free())
		}
	})
}
