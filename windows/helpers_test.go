package windows_test

import (
	"fmt"
	"sync"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
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
		x.win, x.mem, err = windows.AllocateOf[int64](commOf(t, w), n, nil)
	case windows.FlavorShared:
		x.win, err = windows.AllocateShared(commOf(t, w), 8*n, 8, nil)
		if err == nil {
			x.mem = windows.Local[int64](x.win)
		}
	case windows.FlavorCreate:
		x.mem = make([]int64, n)
		x.win, err = windows.Create(commOf(t, w), x.mem, 8, nil)
	case windows.FlavorDynamic:
		x.win, err = windows.CreateDynamic(commOf(t, w), nil)
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

// envs holds the MPI environment each test World's windows are created
// over: one per World, made by the first window call (collective, as
// every PE makes its windows in the same order).
var envs sync.Map // *shmem.World -> *compat.Env

// commOf returns w's CommWorld.
func commOf(t interface {
	require.TestingT
	Helper()
}, w *shmem.World) *compat.Comm {
	t.Helper()
	c, err := worldComm(w)
	require.NoError(t, err)
	return c
}

func worldComm(w *shmem.World) (*compat.Comm, error) {
	if e, ok := envs.Load(w); ok {
		return e.(*compat.Env).CommWorld(), nil
	}
	e, err := compat.New(w)
	if err != nil {
		return nil, err
	}
	envs.Store(w, e)
	return e.CommWorld(), nil
}

// grp is the group of the given ranks of win's communicator
// (MPI_Group_incl of MPI_Win_get_group), for Post and Start.
func grp(t interface {
	require.TestingT
	Helper()
}, win *windows.Win, ranks ...int) *compat.Group {
	t.Helper()
	g, err := win.Group()
	require.NoError(t, err)
	sub, err := g.Incl(ranks)
	require.NoError(t, err)
	return sub
}
