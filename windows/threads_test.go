package windows_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Goroutines share one window in one LockAll epoch (MPI_THREAD_MULTIPLE's
// threads: the epoch is the process's): their first operations to a
// target race to take its shared lock, which must be taken once, and
// their puts, gets, accumulates and flushes go on together. Each
// goroutine checks its own slots; the counters sum every accumulate; an
// exclusive lock after UnlockAll shows every shared lock was let go.
func TestSharedWindowGoroutines(t *testing.T) {
	const ng, iters, rounds = 8, 20, 8
	petest.Run(t, 3, func(t *petest.T, w *shmem.World) {
		me, np := w.MyPE(), w.NPEs()
		slot := func(pe, g int) int { return 2 * (pe*ng + g) }
		n := slot(np, 0) + 1 // the counter last
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorCreate} {
			x := newTW(t, w, f, n)
			x.setLocal(t, w, func(int) int64 { return 0 })
			for round := range rounds {
				require.NoError(t, x.win.LockAll(0))
				errs := make(chan error, ng)
				var wg sync.WaitGroup
				gate := make(chan struct{}) // every goroutine's first operation at once
				for g := range ng {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-gate
						errs <- sharer(x, me, np, g, round, iters, slot(me, g), n-1)
					}()
				}
				close(gate)
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err, f.String())
				}
				require.NoError(t, x.win.UnlockAll())
				require.NoError(t, w.BarrierAll())
				require.NoError(t, x.win.Lock(windows.LockExclusive, me, 0))
				got := make([]int64, 1)
				require.NoError(t, windows.Get(x.win, got, me, x.disp(me, n-1)))
				require.NoError(t, x.win.Unlock(me))
				sum := []int64{0}
				require.NoError(t, compat.Allreduce(commOf(t, w), got, sum, 1, compat.Int64, compat.OpSum))
				require.Equal(t, int64(np*ng*iters*(round+1)), sum[0], f.String())
				require.NoError(t, w.BarrierAll())
			}
			x.free(t)
		}
	})
}

// sharer is one goroutine of TestSharedWindowGoroutines.
func sharer(x *tw, me, np, g, round, iters, slot, counter int) error {
	for i := range iters {
		tg := (me + 1 + i) % np
		v := []int64{int64(1000000*me + 10000*g + 100*round + i), int64(g)}
		if err := windows.Put(x.win, v, tg, x.disp(tg, slot)); err != nil {
			return err
		}
		if err := x.win.Flush(tg); err != nil {
			return err
		}
		back := make([]int64, 2)
		if err := windows.Get(x.win, back, tg, x.disp(tg, slot)); err != nil {
			return err
		}
		if err := x.win.FlushLocal(tg); err != nil {
			return err
		}
		if back[0] != v[0] || back[1] != v[1] {
			return fmt.Errorf("goroutine %d: rank %d's slot holds %v, not %v", g, tg, back, v)
		}
		if err := windows.Accumulate(x.win, []int64{1}, tg, x.disp(tg, counter), compat.OpSum); err != nil {
			return err
		}
		if i%10 == 0 {
			if err := x.win.FlushAll(); err != nil {
				return err
			}
		}
	}
	return nil
}
