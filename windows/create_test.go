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

// Create windows are unified: the target's own loads see peers' RMA after
// a barrier alone (no window call at the target), its own stores are what
// peers read, and a buffer reset between rounds keeps every round's
// updates (the separate model's reconcile lost every second round). Over
// shared memory, processes and tcp.
func TestCreateUnified(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 3, Modes: []string{"inproc", "procs", "tcp"}}, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		// A buffer with neighbours in its pages: they must survive.
		backing := make([]int64, 4096+40)
		before, after := backing[:7], backing[7+16:]
		for i := range before {
			before[i] = int64(100 + i)
		}
		for i := range after {
			after[i] = int64(-i)
		}
		buf := backing[7 : 7+16]
		win, err := windows.Create(commOf(t, w), buf, 8, nil)
		require.NoError(t, err)
		assert.Equal(t, windows.Unified, win.Model())
		for round := range 4 {
			clear(buf) // memset between rounds
			require.NoError(t, w.BarrierAll())
			if me != 0 {
				require.NoError(t, win.Lock(windows.LockExclusive, 0, 0))
				_, err := windows.CompareAndSwap(win, int64(0), int64(me), 0, 0)
				require.NoError(t, err)
				require.NoError(t, windows.Put(win, []int64{int64(1)}, 0, me))
				require.NoError(t, windows.Accumulate(win, []int64{int64(me)}, 0, 8, compat.OpSum))
				require.NoError(t, win.Unlock(0))
			}
			require.NoError(t, w.BarrierAll())
			if me == 0 {
				assert.NotZero(t, buf[0], "round %d: a CAS landed", round)
				var sum int64
				for r := 1; r < n; r++ {
					assert.Equal(t, int64(1), buf[r], "round %d: rank %d's put", round, r)
					sum += int64(r)
				}
				assert.Equal(t, sum, buf[8], "round %d: the accumulates", round)
			}
			require.NoError(t, w.BarrierAll())
		}
		// The owner's plain stores are what peers get, passive target.
		buf[15] = int64(1000 + me)
		require.NoError(t, w.BarrierAll())
		peer := (me + 1) % n
		got := make([]int64, 1)
		require.NoError(t, win.Lock(windows.LockShared, peer, 0))
		require.NoError(t, windows.Get(win, got, peer, 15))
		require.NoError(t, win.Unlock(peer))
		assert.Equal(t, int64(1000+peer), got[0])
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free())
		// After Free the buffer is the caller's private memory again, with
		// its contents, and its neighbours are untouched.
		assert.Equal(t, int64(1000+me), buf[15])
		for i := range before {
			assert.Equal(t, int64(100+i), before[i])
		}
		for i := range after {
			assert.Equal(t, int64(-i), after[i])
		}
		buf[0] = 42
		assert.Equal(t, int64(42), backing[7])
	})
}

// A large Create window works (its pages move into heap address space,
// which costs no memory of its own), and MPI_Alloc_mem memory (the heap
// itself) is used in place.
func TestCreateLarge(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: []string{"procs"}, HeapSize: 1 << 30}, func(t *petest.T, w *shmem.World) {
		big := make([]byte, 256<<20)
		win, err := windows.Create(commOf(t, w), big, 1, nil)
		require.NoError(t, err)
		require.NoError(t, win.LockAll(0))
		peer := 1 - w.MyPE()
		require.NoError(t, windows.Put(win, []byte{7}, peer, len(big)-1))
		require.NoError(t, win.FlushAll())
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, byte(7), big[len(big)-1])
		require.NoError(t, win.Free())

		v, _ := envs.Load(w)
		e := v.(*compat.Env)
		mem, err := e.AllocMem(4096)
		require.NoError(t, err)
		hw, err := windows.Create(e.CommWorld(), mem, 1, nil)
		require.NoError(t, err)
		require.NoError(t, hw.Fence(0))
		require.NoError(t, windows.Put(hw, []byte{9}, peer, 100))
		require.NoError(t, hw.Fence(0))
		assert.Equal(t, byte(9), mem[100])
		require.NoError(t, hw.Free())
		require.NoError(t, compat.FreeMem(e, mem))
	})
}

// A Create window over a buffer only some of whose pages hold data (the
// others never touched): the move copies only those, through the heap
// file on process PEs, and every byte reads as it did, at the owner and at
// a peer, while the window lives and after Free gives the pages back.
func TestCreatePartlyTouched(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: []string{"inproc", "procs"}, HeapSize: 256 << 20}, func(t *petest.T, w *shmem.World) {
		const page, pages = 4096, 2048
		buf := make([]byte, pages*page)
		for p := 0; p < pages; p += 3 {
			buf[p*page+p%page] = byte(p%250 + 1)
		}
		win, err := windows.Create(commOf(t, w), buf, 1, nil)
		require.NoError(t, err)
		peer := 1 - w.MyPE()
		require.NoError(t, win.LockAll(0))
		got := make([]byte, page)
		for p := 0; p < pages; p += 7 {
			require.NoError(t, windows.Get(win, got, peer, p*page))
			want := make([]byte, page)
			if p%3 == 0 {
				want[p%page] = byte(p%250 + 1)
			}
			require.Equal(t, want, got, "page %d", p)
		}
		require.NoError(t, windows.Put(win, []byte{0xee}, peer, 1*page+5)) // a page never touched
		require.NoError(t, win.UnlockAll())
		require.NoError(t, w.BarrierAll())
		require.NoError(t, win.Free())
		for p := range pages {
			want := byte(0)
			if p%3 == 0 {
				want = byte(p%250 + 1)
			}
			require.Equal(t, want, buf[p*page+p%page], "page %d", p)
		}
		require.Equal(t, byte(0xee), buf[1*page+5])
	})
}

// Create windows whose buffers share pages are all unified: two arrays in
// one page, and the same array in two windows. Each window's RMA reaches
// the caller's memory itself, a window freed first leaves the others
// working, and the memory keeps what RMA wrote.
func TestCreateSharedPages(t *testing.T) {
	petest.RunConfig(t, petest.Config{N: 2, Modes: []string{"inproc", "procs", "tcp"}}, func(t *petest.T, w *shmem.World) {
		me, n := w.MyPE(), w.NPEs()
		// 8 KiB: an object of its own size class, page-aligned, so that
		// goroutine PEs' buffers do not share pages (their windows are
		// made at once, and a page being moved is not shared).
		backing := make([]int64, 1024)
		a, b := backing[0:16], backing[16:32]
		comm := commOf(t, w)
		wa, err := windows.Create(comm, a, 8, nil)
		require.NoError(t, err)
		wb, err := windows.Create(comm, b, 8, nil)
		require.NoError(t, err)
		wc, err := windows.Create(comm, a, 8, nil) // a again
		require.NoError(t, err)
		for _, win := range []*windows.Win{wa, wb, wc} {
			assert.Equal(t, windows.Unified, win.Model())
		}
		peer := (me + 1) % n
		put := func(win *windows.Win, disp int, v int64) {
			require.NoError(t, win.Lock(windows.LockExclusive, peer, 0))
			require.NoError(t, windows.Put(win, []int64{v}, peer, disp))
			require.NoError(t, win.Unlock(peer))
		}
		put(wa, 1, 100+int64(me))
		put(wb, 2, 200+int64(me))
		put(wc, 3, 300+int64(me))
		require.NoError(t, wc.Lock(windows.LockShared, peer, 0))
		_, err = windows.FetchAndOp(wc, int64(5), peer, 1, compat.OpSum)
		require.NoError(t, err)
		require.NoError(t, wc.Unlock(peer))
		require.NoError(t, w.BarrierAll())
		from := int64((me + n - 1) % n)
		assert.Equal(t, 105+from, a[1], "wa's put and wc's fetch-and-op, one memory")
		assert.Equal(t, 200+from, b[2])
		assert.Equal(t, 300+from, a[3])
		require.NoError(t, w.BarrierAll())
		require.NoError(t, wa.Free())
		put(wb, 4, 400+int64(me))
		put(wc, 5, 500+int64(me))
		b[6], a[7] = 600+int64(me), 700+int64(me) // the owner's own stores
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, 400+from, b[4])
		assert.Equal(t, 500+from, a[5])
		got := make([]int64, 1)
		require.NoError(t, wc.Lock(windows.LockShared, peer, 0))
		require.NoError(t, windows.Get(wc, got, peer, 7))
		require.NoError(t, wc.Unlock(peer))
		assert.Equal(t, 700+int64(peer), got[0])
		require.NoError(t, wb.Lock(windows.LockShared, peer, 0))
		require.NoError(t, windows.Get(wb, got, peer, 6))
		require.NoError(t, wb.Unlock(peer))
		assert.Equal(t, 600+int64(peer), got[0])
		require.NoError(t, w.BarrierAll())
		require.NoError(t, wc.Free())
		require.NoError(t, wb.Free())
		assert.Equal(t, []int64{105 + from, 300 + from, 500 + from, 700 + int64(me)}, []int64{a[1], a[3], a[5], a[7]})
		assert.Equal(t, []int64{200 + from, 400 + from, 600 + int64(me)}, []int64{b[2], b[4], b[6]})
		// A buffer freed windows left behind takes a window again.
		wd, err := windows.Create(comm, backing, 8, nil)
		require.NoError(t, err)
		assert.Equal(t, windows.Unified, wd.Model())
		put(wd, 40, 4000+int64(me))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, 4000+from, backing[40])
		assert.Equal(t, 200+from, backing[18])
		require.NoError(t, w.BarrierAll())
		require.NoError(t, wd.Free())
	})
}
