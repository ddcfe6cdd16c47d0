package windows_test

import (
	"fmt"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

var flavors = []windows.Flavor{windows.FlavorAllocate, windows.FlavorShared, windows.FlavorCreate, windows.FlavorDynamic}

// tw is a test window of n int64 elements per PE, whatever its flavor:
// mem is this PE's memory and disp(t, k) names element k at rank t.
type tw struct {
	win   *windows.Win
	mem   []int64
	addrs []int // dynamic: every rank's attach address
}

func (x *tw) disp(t, k int) int {
	if x.addrs != nil {
		return x.addrs[t] + 8*k
	}
	return k
}

func newTW(t *petest.T, w *shmem.World, f windows.Flavor, n int) *tw {
	t.Helper()
	x := &tw{}
	var err error
	switch f {
	case windows.FlavorAllocate:
		x.win, x.mem, err = windows.AllocateOf[int64](w, n, nil)
	case windows.FlavorShared:
		x.win, err = windows.AllocateShared(w, 8*n, 8, nil)
		if err == nil {
			x.mem = windows.Local[int64](x.win)
		}
	case windows.FlavorCreate:
		x.mem = make([]int64, n)
		x.win, err = windows.Create(w, x.mem, 8, nil)
	case windows.FlavorDynamic:
		x.win, err = windows.CreateDynamic(w, nil)
		require.NoError(t, err)
		x.mem = make([]int64, n)
		require.NoError(t, windows.Attach(x.win, x.mem))
		x.addrs = exchange(t, w, windows.Address(x.mem))
	}
	require.NoError(t, err, "creating a %v window", f)
	require.Len(t, x.mem, n)
	return x
}

func (x *tw) free(t *petest.T) {
	t.Helper()
	if x.addrs != nil {
		require.NoError(t, windows.Detach(x.win, x.mem))
	}
	require.NoError(t, x.win.Free())
}

// exchange is an allgather of one int per PE.
func exchange(t *petest.T, w *shmem.World, v int) []int {
	t.Helper()
	s, err := shmem.Calloc[int64](w, w.NPEs())
	require.NoError(t, err)
	for pe := range w.NPEs() {
		require.NoError(t, shmem.Put(s.At(w.MyPE()), []int64{int64(v)}, pe))
	}
	require.NoError(t, w.BarrierAll())
	out := make([]int, w.NPEs())
	for i, a := range s.Local() {
		out[i] = int(a)
	}
	require.NoError(t, w.BarrierAll())
	require.NoError(t, shmem.Free(s))
	return out
}

// setLocal stores vals into this PE's window memory and makes the stores
// visible to RMA (Sync, as the separate model requires), then waits for
// every PE.
func (x *tw) setLocal(t *petest.T, w *shmem.World, vals func(k int) int64) {
	t.Helper()
	for k := range x.mem {
		x.mem[k] = vals(k)
	}
	require.NoError(t, x.win.Sync())
	require.NoError(t, w.BarrierAll())
}

func label(f windows.Flavor, mode string) string { return fmt.Sprintf("%v/%s", f, mode) }
