package windows_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Counters protected by exclusive locks end exact, and readers under shared
// locks never see a half-done update, on a unified and a separate window.
func TestLockExclusivityUnderContention(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		const iters = 60
		me, np := w.MyPE(), w.NPEs()
		for _, f := range []windows.Flavor{windows.FlavorAllocate, windows.FlavorCreate} {
			x := newTW(t, w, f, 2)
			x.setLocal(t, w, func(int) int64 { return 0 })
			for i := range iters {
				// Writers: read both counters, write both incremented.
				require.NoError(t, x.win.Lock(windows.LockExclusive, 0, 0))
				c := make([]int64, 2)
				require.NoError(t, windows.Get(x.win, c, 0, x.disp(0, 0)))
				require.NoError(t, x.win.Flush(0))
				require.Equal(t, c[0], c[1], "exclusive lock saw a torn pair")
				require.NoError(t, windows.Put(x.win, []int64{c[0] + 1}, 0, x.disp(0, 0)))
				require.NoError(t, x.win.Flush(0))
				require.NoError(t, windows.Put(x.win, []int64{c[1] + 1}, 0, x.disp(0, 1)))
				require.NoError(t, x.win.Unlock(0))
				if i%3 == me%3 {
					// Readers: a shared lock excludes writers.
					require.NoError(t, x.win.Lock(windows.LockShared, 0, 0))
					require.NoError(t, windows.Get(x.win, c, 0, x.disp(0, 0)))
					require.NoError(t, x.win.Unlock(0))
					require.Equal(t, c[0], c[1], "shared lock saw a torn pair")
				}
			}
			require.NoError(t, w.BarrierAll())
			if me == 0 {
				require.NoError(t, x.win.Lock(windows.LockShared, 0, 0))
				assert.Equal(t, []int64{int64(np * iters), int64(np * iters)}, x.mem, f.String())
				require.NoError(t, x.win.Unlock(0))
			}
			require.NoError(t, w.BarrierAll())
			x.free(t)
		}
	})
}

// A writer gets the lock while readers keep taking and releasing shared
// locks back to back (phase-fair: no starvation), and readers get in
// between writers.
func TestLockNoStarvation(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 4, Timeout: time.Minute}, func(t *petest.T, w *shmem.World) {
		win, mem, err := windows.AllocateOf[int64](commOf(t, w), 2, nil)
		require.NoError(t, err)
		done, err := shmem.Calloc[int64](w, 1)
		require.NoError(t, err)
		me := w.MyPE()
		switch me {
		case 0, 1: // readers, overlapping all the time
			reads := 0
			for {
				require.NoError(t, win.Lock(windows.LockShared, 3, 0))
				v := []int64{0}
				require.NoError(t, windows.Get(win, v, 3, 0))
				require.NoError(t, win.Unlock(3))
				reads++
				if d, _ := shmem.G(done, me); d != 0 {
					break
				}
			}
			require.Positive(t, reads)
		case 2: // the writer
			for range 20 {
				require.NoError(t, win.Lock(windows.LockExclusive, 3, 0))
				_, err := windows.FetchAndOp(win, int64(1), 3, 0, compat.OpSum)
				require.NoError(t, err)
				require.NoError(t, win.Unlock(3))
			}
			for pe := range 2 {
				require.NoError(t, shmem.P(done, 1, pe))
			}
		}
		require.NoError(t, w.BarrierAll())
		if me == 3 {
			assert.Equal(t, int64(20), mem[0])
		}
		require.NoError(t, win.Free())
	})
}

// Lock with ModeNoCheck takes no lock; locks on this PE itself work; every
// rank can be locked at once; ProcNull is accepted.
func TestLockVariants(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 3}, func(t *petest.T, w *shmem.World) {
		win, mem, err := windows.AllocateOf[int32](commOf(t, w), 4, nil)
		require.NoError(t, err)
		me, np := w.MyPE(), w.NPEs()
		require.NoError(t, win.Lock(windows.LockExclusive, me, 0))
		mem[0] = int32(me)
		require.NoError(t, win.Unlock(me))
		require.NoError(t, w.BarrierAll())
		for tg := range np {
			require.NoError(t, win.Lock(windows.LockShared, tg, 0))
		}
		got := make([]int32, 1)
		for tg := range np {
			require.NoError(t, windows.Get(win, got, tg, 0))
			require.Equal(t, int32(tg), got[0])
			require.NoError(t, win.Unlock(tg))
		}
		require.NoError(t, w.BarrierAll())
		if me == 0 {
			require.NoError(t, win.Lock(windows.LockExclusive, 1, windows.ModeNoCheck))
			require.NoError(t, windows.Put(win, []int32{42}, 1, 1))
			require.NoError(t, win.Unlock(1))
			require.NoError(t, win.LockAll(windows.ModeNoCheck))
			require.NoError(t, windows.Put(win, []int32{43}, 2, 1))
			require.NoError(t, win.UnlockAll())
		}
		require.NoError(t, win.Lock(windows.LockShared, compat.ProcNull, 0))
		require.NoError(t, windows.Put(win, []int32{1}, compat.ProcNull, 1000))
		require.NoError(t, win.Unlock(compat.ProcNull))
		require.NoError(t, w.BarrierAll())
		if me > 0 {
			require.Equal(t, int32(41+me), mem[1])
		}
		// Request-based operations in a LockAll epoch.
		require.NoError(t, win.LockAll(0))
		r1, err := windows.Rput(win, []int32{7}, (me+1)%np, 2)
		require.NoError(t, err)
		_, err = r1.Wait()
		require.NoError(t, err)
		r2, err := windows.Raccumulate(win, []int32{1}, 0, 3, compat.OpSum)
		require.NoError(t, err)
		done, _, err := r2.Test()
		require.NoError(t, err)
		require.True(t, done)
		require.NoError(t, win.FlushAll())
		res := make([]int32, 1)
		r3, err := windows.Rget(win, res, me, 0)
		require.NoError(t, err)
		old := make([]int32, 1)
		r4, err := windows.RgetAccumulate(win, []int32{0}, old, me, 0, compat.OpNoOp)
		require.NoError(t, err)
		r5, err := windows.RputTyped(win, []int32{5}, 1, compat.Int32, me, 0, 1, compat.Int32)
		require.NoError(t, err)
		r6, err := windows.RgetTyped(win, res, 1, compat.Int32, me, 0, 1, compat.Int32)
		require.NoError(t, err)
		r7, err := windows.RaccumulateTyped(win, []int32{0, 0}, 1, compat.Vector(1, 1, 1, compat.Int32), me, 1, 1, compat.Int32, compat.OpSum)
		require.NoError(t, err)
		r8, err := windows.RgetAccumulateTyped(win, nil, 0, compat.Int32, old, 1, compat.Int32, me, 0, 1, compat.Int32, compat.OpNoOp)
		require.NoError(t, err)
		_, err = windows.RaccumulateTyped(win, []int32{0}, 1, compat.Int32, me, 1, 1, compat.Int32, compat.OpNoOp)
		require.ErrorIs(t, err, compat.ErrOp)
		require.NoError(t, compat.Waitall([]*compat.Request{r3, r4, r5, r6, r7, r8}, nil))
		g, err := win.Group()
		require.NoError(t, err)
		require.Equal(t, []int{0, 1, 2}, g.WorldRanks())
		require.NoError(t, win.UnlockAll())

		// LockAll takes a target's lock only when it is used: PE 1's
		// LockAll epoch to rank 0 completes while PE 0 holds rank 2
		// exclusively and waits for PE 1.
		flag, err := shmem.Calloc[int64](w, 1)
		require.NoError(t, err)
		switch me {
		case 0:
			require.NoError(t, win.Lock(windows.LockExclusive, 2, 0))
			require.NoError(t, shmem.P(flag, 1, 1))
			require.NoError(t, shmem.WaitUntil(flag, shmem.CmpEQ, 1))
			require.NoError(t, win.Unlock(2))
		case 1:
			require.NoError(t, shmem.WaitUntil(flag, shmem.CmpEQ, 1))
			require.NoError(t, win.LockAll(0))
			require.NoError(t, windows.Put(win, []int32{7}, 0, 2))
			require.NoError(t, win.FlushAll())
			require.NoError(t, win.UnlockAll())
			require.NoError(t, shmem.P(flag, 1, 0))
		}
		require.NoError(t, w.BarrierAll())
		require.NoError(t, shmem.Free(flag))
		require.NoError(t, win.LockAll(0))
		require.Equal(t, int32(5), res[0])
		require.Equal(t, int32(5), old[0])
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		require.Equal(t, int32(7), mem[2])
		if me == 0 {
			require.Equal(t, int32(np), mem[3])
		}
		require.NoError(t, win.Free())
	})
}

// Waits on peers end when the World's context is cancelled: a Lock held
// elsewhere, a Wait whose origins never complete, a Start epoch whose
// target never posts.
func TestWaitsAreCancellable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	errs := map[string]error{}
	locked := make(chan struct{})
	var blocking sync.WaitGroup
	blocking.Add(3)
	go func() {
		blocking.Wait()
		time.Sleep(100 * time.Millisecond) // let them block
		cancel()
	}()
	_ = shmem.RunContext(ctx, 4, func(w *shmem.World) error {
		win, err := windows.Allocate(commOf(t, w), 64, 1, nil)
		if err != nil {
			return err
		}
		var e error
		name := ""
		switch w.MyPE() {
		case 0:
			if err := win.Lock(windows.LockExclusive, 1, 0); err != nil {
				return err
			}
			close(locked)
			<-w.Context().Done()
			return nil
		case 1:
			select {
			case <-locked:
			case <-time.After(10 * time.Second):
				return errors.New("PE 0 did not take its lock")
			}
			blocking.Done()
			name, e = "lock", win.Lock(windows.LockShared, 1, 0)
		case 2:
			if err := win.Post(grp(t, win, 3), 0); err != nil {
				return err
			}
			blocking.Done()
			name, e = "wait", win.Wait()
		case 3:
			if err := win.Start(grp(t, win, 0), 0); err != nil {
				return err
			}
			blocking.Done()
			name, e = "start", windows.Put(win, []byte{1}, 0, 0)
		}
		mu.Lock()
		errs[name] = e
		mu.Unlock()
		return nil
	}, shmem.WithSymmetricSize(16<<20))
	for _, name := range []string{"lock", "wait", "start"} {
		err := errs[name]
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, shmem.ErrAborted), "%s: %v", name, err)
		assert.Equal(t, compat.ClassOther, compat.ClassOf(err), name)
	}
}
