package windows_test

import (
	"errors"
	"fmt"
	"runtime"
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

// Goroutines of every PE lock different targets of one window at once
// (MPI-4.1 lets a process's threads hold locks to different targets):
// goroutine g locks rank g, exclusively on even rounds, and adds to its
// counter there; the counters sum every add, and FlushAll after the
// goroutines end shows the count of locked targets came back to 0.
func TestLockTargetsGoroutines(t *testing.T) {
	const rounds = 200
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		np := w.NPEs()
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorCreate} {
			x := newTW(t, w, f, np)
			x.setLocal(t, w, func(int) int64 { return 0 })
			errs := make(chan error, np)
			var wg sync.WaitGroup
			for g := range np {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- locker(x, g, rounds)
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err, f.String())
			}
			require.ErrorIs(t, x.win.FlushAll(), compat.ErrRMASync, "no target stays locked")
			require.NoError(t, w.BarrierAll())
			require.NoError(t, x.win.Lock(windows.LockExclusive, w.MyPE(), 0))
			got := make([]int64, np)
			require.NoError(t, windows.Get(x.win, got, w.MyPE(), x.disp(w.MyPE(), 0)))
			require.NoError(t, x.win.Unlock(w.MyPE()))
			for pe, v := range got {
				require.Equal(t, int64(rounds*(pe+1)), v, "%v: rank %d's adds into PE %d", f, pe, w.MyPE())
			}
			require.NoError(t, w.BarrierAll())
			x.free(t)
		}
	})
}

// locker is one goroutine of TestLockTargetsGoroutines: rank me adds
// me+1 to slot me of target g each round, under a lock of g alone.
func locker(x *tw, g, rounds int) error {
	me := x.win.Comm().Rank()
	for r := range rounds {
		typ := windows.LockShared
		if r%2 == 0 {
			typ = windows.LockExclusive
		}
		if err := x.win.Lock(typ, g, 0); err != nil {
			return err
		}
		if err := windows.Accumulate(x.win, []int64{int64(me + 1)}, g, x.disp(g, me), compat.OpSum); err != nil {
			return err
		}
		if err := x.win.Flush(g); err != nil {
			return err
		}
		if err := x.win.Unlock(g); err != nil {
			return err
		}
	}
	return nil
}

// Two goroutines locking the same target at once is erroneous: one of
// them gets the lock, the other ErrRMASync at once (never a second hold,
// a hang, or lock words left wrong). While one goroutine holds the lock
// the other's Lock and Unlock fail; then both race for it many times.
func TestLockSameTargetGoroutines(t *testing.T) {
	petest.Run(t, 2, func(t *petest.T, w *shmem.World) {
		x := newTW(t, w, windows.FlavorAllocate, 1)
		other := 1 - w.MyPE()
		require.NoError(t, x.win.Lock(windows.LockExclusive, other, 0))
		done := make(chan [3]error)
		go func() {
			done <- [3]error{x.win.Lock(windows.LockExclusive, other, 0), x.win.Lock(windows.LockShared, other, 0), x.win.Unlock(w.MyPE())}
		}()
		errs := <-done
		require.ErrorIs(t, errs[0], compat.ErrRMASync)
		require.ErrorIs(t, errs[1], compat.ErrRMAConflict)
		require.ErrorIs(t, errs[2], compat.ErrRMASync)
		require.NoError(t, x.win.Unlock(other))

		const ng, tries = 4, 200
		var wg sync.WaitGroup
		var mu sync.Mutex
		held, got := 0, 0
		bad := make(chan error, ng)
		for range ng {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range tries {
					typ := windows.LockShared // two shared holds would leave a reader behind
					if i%4 == 3 {
						typ = windows.LockExclusive
					}
					err := x.win.Lock(typ, other, 0)
					if err != nil {
						if !errors.Is(err, compat.ErrRMASync) && !errors.Is(err, compat.ErrRMAConflict) {
							bad <- err
							return
						}
						continue
					}
					mu.Lock()
					held++
					got++
					if held != 1 {
						bad <- fmt.Errorf("%d goroutines hold rank %d's lock", held, other)
					}
					mu.Unlock()
					runtime.Gosched() // let the others try while this one holds it
					mu.Lock()
					held--
					mu.Unlock()
					if err := x.win.Unlock(other); err != nil {
						bad <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(bad)
		for err := range bad {
			require.NoError(t, err)
		}
		require.Positive(t, got)
		require.ErrorIs(t, x.win.FlushAll(), compat.ErrRMASync, "no target stays locked")
		require.NoError(t, w.BarrierAll())
		// The lock words are whole: each PE can still lock the other
		// exclusively, and then itself.
		require.NoError(t, x.win.Lock(windows.LockExclusive, other, 0))
		require.NoError(t, x.win.Unlock(other))
		require.NoError(t, w.BarrierAll())
		x.free(t)
	})
}
