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

// Target datatypes whose data starts before or after their origin, and
// mixed type maps moved by Put and by Accumulate with MPI_REPLACE.
func TestTypeMapsAtTheTarget(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2}, func(t *petest.T, w *shmem.World) {
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorDynamic} {
			x := newTW(t, w, f, 16)
			peer := 1 - w.MyPE()
			x.setLocal(t, w, func(int) int64 { return 0 })
			// Elements -2 and +1 of the origin: lb -16, true lb -16.
			neg := compat.Indexed([]compat.Block{{Disp: -16, Count: 1, Old: compat.Int64}, {Disp: 8, Count: 1, Old: compat.Int64}})
			require.Equal(t, -16, neg.TrueLB())
			require.NoError(t, x.win.LockAll(0))
			require.NoError(t, windows.PutTyped(x.win, []int64{7, 8}, 2, compat.Int64, peer, x.disp(peer, 4), 1, neg))
			// Below the window's start: out of range.
			require.ErrorIs(t, windows.PutTyped(x.win, []int64{7, 8}, 2, compat.Int64, peer, x.disp(peer, 1), 1, neg), compat.ErrRMARange)
			// A mixed map {int32 at 0, int64 at 8} put, then replaced.
			mixed := compat.Struct([]compat.Block{{Disp: 0, Count: 1, Old: compat.Int32}, {Disp: 8, Count: 1, Old: compat.Int64}})
			src := make([]byte, 16)
			src[0], src[8] = 3, 5
			require.NoError(t, windows.PutTyped(x.win, src, 1, mixed, peer, x.disp(peer, 8), 1, mixed))
			src[0], src[8] = 4, 6
			require.NoError(t, windows.AccumulateTyped(x.win, src, 1, mixed, peer, x.disp(peer, 10), 1, mixed, compat.OpReplace))
			require.ErrorIs(t, windows.AccumulateTyped(x.win, src, 1, mixed, peer, x.disp(peer, 10), 1, mixed, compat.OpSum), compat.ErrOp)
			require.NoError(t, x.win.UnlockAll())
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.Sync())
			assert.Equal(t, []int64{0, 0, 7, 0, 0, 8, 0, 0, 3, 5, 4, 6, 0, 0, 0, 0}, x.mem, f.String())
			require.NoError(t, w.BarrierAll())
			x.free(t)
		}
	})
}
