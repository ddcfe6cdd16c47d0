package windows_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
	"github.com/gshmem/gshmem/windows"
)

// sameEverywhere checks that v is the same on every rank of c.
func sameEverywhere(t *petest.T, c *compat.Comm, v uint64, what string) {
	t.Helper()
	all := make([]uint64, c.Size())
	require.NoError(t, compat.Allgather(c, []uint64{v}, 1, compat.Uint64, all, 1, compat.Uint64))
	for r, x := range all {
		require.Equal(t, v, x, "%s: rank %d has %d, rank %d has %d", what, c.Rank(), v, r, x)
	}
}

// Windows over sub-communicators: the halves {0,1} {2,3} and the parities
// {0,2} {1,3} of 4 PEs, each with windows open at the same time and used in
// interleaved epochs, plus a window over CommSelf. Ranks in every call are
// ranks of the window's communicator.
func TestWindowsOnSubCommunicators(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		world, me := env.CommWorld(), w.MyPE()
		half, err := world.Split(me/2, me)
		require.NoError(t, err)
		par, err := world.Split(me%2, me)
		require.NoError(t, err)

		// Pools that differ between PEs: the agreed offset must skip what
		// any member uses.
		var held []byte
		if me == 0 || me == 3 {
			held, err = env.AllocMem(300)
			require.NoError(t, err)
		}
		hw, hmem, err := windows.AllocateOf[int64](half, 4, nil)
		require.NoError(t, err)
		pw, pmem, err := windows.AllocateOf[int64](par, 2, nil)
		require.NoError(t, err)
		sw, smem, err := windows.AllocateOf[int64](env.CommSelf(), 1, nil)
		require.NoError(t, err)
		for _, x := range []struct {
			c   *compat.Comm
			win *windows.Win
		}{{half, hw}, {par, pw}, {env.CommSelf(), sw}} {
			m, err := x.win.Memory()
			require.NoError(t, err)
			sameEverywhere(t, x.c, m.Offset(), "window memory offset")
			require.Equal(t, x.c.Size(), x.win.NRanks())
			g, err := x.win.Group()
			require.NoError(t, err)
			cg, err := x.c.Group()
			require.NoError(t, err)
			require.Equal(t, cg.WorldRanks(), g.WorldRanks())
			for r := range x.c.Size() {
				require.Equal(t, x.c.WorldRank(r), x.win.PE(r))
			}
		}
		if held != nil {
			require.NoError(t, compat.FreeMem(env, held))
		}

		// Rounds of interleaved epochs: a fence epoch on the half window
		// (put my world PE into my partner's slot k) inside a lock_all
		// epoch on the parity window (accumulate into rank 0's counter).
		hr, pr := half.Rank(), par.Rank()
		const rounds = 20
		require.NoError(t, pw.LockAll(0))
		require.NoError(t, hw.Fence(windows.ModeNoPrecede))
		for k := range rounds {
			require.NoError(t, windows.Put(hw, []int64{int64(100*k + me)}, 1-hr, k%4))
			require.NoError(t, windows.Accumulate(pw, []int64{int64(me + 1)}, 0, 0, compat.OpSum))
			require.NoError(t, pw.Flush(0))
			require.NoError(t, hw.Fence(0))
			partner := half.WorldRank(1 - hr)
			require.Equal(t, int64(100*k+partner), hmem[k%4], "round %d", k)
		}
		require.NoError(t, hw.Fence(windows.ModeNoSucceed))
		require.NoError(t, pw.UnlockAll())
		require.NoError(t, par.Barrier())
		if pr == 0 {
			sum := int64(0)
			for r := range par.Size() {
				sum += int64(par.WorldRank(r) + 1)
			}
			require.Equal(t, rounds*sum, pmem[0])
		}

		// Ranks outside the communicator, and groups with PEs outside it.
		require.ErrorIs(t, windows.Put(hw, []int64{1}, 1-hr, 0), compat.ErrRMASync, "no epoch")
		require.ErrorIs(t, windows.Put(hw, []int64{1}, 2, 0), compat.ErrRank, "a rank of the world, not of the half")
		wg, err := world.Group()
		require.NoError(t, err)
		outsider, err := wg.Incl([]int{(me + 2) % 4}) // in the other half
		require.NoError(t, err)
		require.ErrorIs(t, hw.Post(outsider, 0), compat.ErrGroup)

		// A window of one: this PE is rank 0.
		require.NoError(t, sw.Lock(windows.LockExclusive, 0, 0))
		require.NoError(t, windows.Put(sw, []int64{int64(me + 7)}, 0, 0))
		require.NoError(t, sw.Unlock(0))
		require.Equal(t, int64(me+7), smem[0])

		// Free in another order than creation; then the pool ranges are
		// free again for a window as large as both.
		require.NoError(t, hw.Free())
		require.NoError(t, sw.Free())
		require.NoError(t, pw.Free())
		big, _, err := windows.AllocateOf[int64](par, 6, nil)
		require.NoError(t, err)
		require.NoError(t, big.Free())
		require.NoError(t, half.Free())
		require.NoError(t, par.Free())
		require.NoError(t, env.Finalize())
	})
}

// A sub-communicator's window that does not fit in the pools fails on
// every member with ErrNoMem, and the members can go on.
func TestSubCommunicatorWindowTooLarge(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: []string{"inproc"}}, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w, compat.WithPoolSize(1<<16))
		require.NoError(t, err)
		me, err := env.CommWorld().Split(w.MyPE(), 0) // two communicators of one
		require.NoError(t, err)
		_, err = windows.Allocate(me, 1<<17, 1, nil)
		require.ErrorIs(t, err, compat.ErrNoMem)
		win, err := windows.Allocate(me, 1<<10, 1, nil)
		require.NoError(t, err)
		require.NoError(t, win.Free())
		require.NoError(t, env.Finalize())
	})
}

// The stage 2 -> 3 seam: a stream puts into the memory of an allocate
// window and signals; the window's own calls see the data. On CommWorld
// and on a sub-communicator, where the stream names world PEs (Win.PE).
func TestWindowMemoryOnStream(t *testing.T) {
	petest.Run(t, 4, func(t *petest.T, w *shmem.World) {
		env, err := compat.New(w)
		require.NoError(t, err)
		me := w.MyPE()
		half, err := env.CommWorld().Split(me/2, -me) // reversed ranks
		require.NoError(t, err)
		for _, c := range []*compat.Comm{env.CommWorld(), half} {
			win, mem, err := windows.AllocateOf[int64](c, 8, nil)
			require.NoError(t, err)
			sym, err := windows.MemoryOf[int64](win)
			require.NoError(t, err)
			require.Equal(t, 8, sym.Len())
			sigMem, err := c.AllocSymmetric(8)
			require.NoError(t, err)
			sig, err := shmem.View[uint64](sigMem)
			require.NoError(t, err)

			r, n := c.Rank(), c.Size()
			right := (r + 1) % n
			s, err := streams.New(w)
			require.NoError(t, err)
			src := []int64{int64(10*me + 1), int64(10*me + 2)}
			streams.PutSignalOnStream(s, sym.Slice(2, 4), src, sig, 1, shmem.SignalSet, win.PE(right))
			streams.SignalWaitUntilOnStream(s, sig, shmem.CmpGE, 1)
			require.NoError(t, s.Synchronize())
			require.NoError(t, s.Close())
			left := c.WorldRank((r + n - 1) % n)
			require.Equal(t, []int64{int64(10*left + 1), int64(10*left + 2)}, mem[2:4], "the stream's put, in Base")

			// And through the window: read the right neighbour's part.
			got := make([]int64, 2)
			require.NoError(t, win.Lock(windows.LockShared, right, 0))
			require.NoError(t, windows.Get(win, got, right, 2))
			require.NoError(t, win.Unlock(right))
			require.Equal(t, src, got, "the stream's put, through windows.Get")

			require.NoError(t, c.Barrier())
			require.NoError(t, c.FreeSymmetric(sigMem))
			require.NoError(t, win.Free())
		}
		buf := make([]int64, 4)
		cw, err := windows.Create(half, buf, 8, nil)
		require.NoError(t, err)
		_, err = cw.Memory()
		require.ErrorIs(t, err, compat.ErrRMAFlavor)
		require.NoError(t, cw.Free())
		require.NoError(t, half.Free())
		require.NoError(t, env.Finalize())
	})
}
