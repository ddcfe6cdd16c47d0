package windows_test

import (
	"fmt"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// Fence epochs: every PE puts its rank into its right neighbour's window;
// after the closing fence the data is there.
func ExampleWin_Fence() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		env, err := compat.New(w) // MPI_Init over the World's PEs
		if err != nil {
			return err
		}
		defer env.Finalize()
		c := env.CommWorld()
		win, buf, err := windows.AllocateOf[int64](c, 1, nil)
		if err != nil {
			return err
		}
		defer win.Free()
		right := (w.MyPE() + 1) % w.NPEs()
		if err := win.Fence(windows.ModeNoPrecede); err != nil {
			return err
		}
		if err := windows.Put(win, []int64{int64(w.MyPE())}, right, 0); err != nil {
			return err
		}
		if err := win.Fence(windows.ModeNoSucceed); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("rank 0 holds", buf[0])
		}
		return nil
	}, shmem.WithSymmetricSize(16<<20))
	// Output: rank 0 holds 3
}

// Passive target: a shared counter on rank 0, incremented under an
// exclusive lock, and read with an atomic fetch-and-op.
func ExampleWin_Lock() {
	_ = shmem.Run(4, func(w *shmem.World) error {
		env, err := compat.New(w) // MPI_Init over the World's PEs
		if err != nil {
			return err
		}
		defer env.Finalize()
		c := env.CommWorld()
		win, _, err := windows.AllocateOf[int64](c, 2, nil)
		if err != nil {
			return err
		}
		defer win.Free()
		// Read-modify-write under an exclusive lock.
		if err := win.Lock(windows.LockExclusive, 0, 0); err != nil {
			return err
		}
		v := []int64{0}
		if err := windows.Get(win, v, 0, 0); err != nil {
			return err
		}
		if err := win.Flush(0); err != nil {
			return err
		}
		v[0]++
		if err := windows.Put(win, v, 0, 0); err != nil {
			return err
		}
		if err := win.Unlock(0); err != nil {
			return err
		}
		// The same with one atomic operation, in a lock_all epoch.
		if err := win.LockAll(0); err != nil {
			return err
		}
		if _, err := windows.FetchAndOp(win, int64(1), 0, 1, compat.OpSum); err != nil {
			return err
		}
		if err := win.UnlockAll(); err != nil {
			return err
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println("counters:", windows.Local[int64](win))
		}
		return nil
	}, shmem.WithSymmetricSize(16<<20))
	// Output: counters: [4 4]
}

// Post/start/complete/wait: each PE exposes its window to its left
// neighbour only and writes into its right neighbour's.
func ExampleWin_Start() {
	_ = shmem.Run(3, func(w *shmem.World) error {
		env, err := compat.New(w) // MPI_Init over the World's PEs
		if err != nil {
			return err
		}
		defer env.Finalize()
		c := env.CommWorld()
		win, buf, err := windows.AllocateOf[float64](c, 1, nil)
		if err != nil {
			return err
		}
		defer win.Free()
		me, n := w.MyPE(), w.NPEs()
		right, left := (me+1)%n, (me+n-1)%n
		g, err := win.Group() // MPI_Win_get_group, then MPI_Group_incl
		if err != nil {
			return err
		}
		leftG, err := g.Incl([]int{left})
		if err != nil {
			return err
		}
		rightG, err := g.Incl([]int{right})
		if err != nil {
			return err
		}
		if err := win.Post(leftG, 0); err != nil {
			return err
		}
		if err := win.Start(rightG, 0); err != nil {
			return err
		}
		if err := windows.Accumulate(win, []float64{0.5 * float64(me)}, right, 0, compat.OpSum); err != nil {
			return err
		}
		if err := win.Complete(); err != nil {
			return err
		}
		if err := win.Wait(); err != nil {
			return err
		}
		if me == 0 {
			fmt.Println("rank 0 got", buf[0])
		}
		return nil
	}, shmem.WithSymmetricSize(16<<20))
	// Output: rank 0 got 1
}

// A window over the caller's own slice (separate memory model): RMA lands
// in the public copy and reaches the slice at the closing fence.
func ExampleCreate() {
	_ = shmem.Run(2, func(w *shmem.World) error {
		env, err := compat.New(w) // MPI_Init over the World's PEs
		if err != nil {
			return err
		}
		defer env.Finalize()
		c := env.CommWorld()
		mine := make([]int32, 4)
		win, err := windows.Create(c, mine, 4, nil)
		if err != nil {
			return err
		}
		defer win.Free()
		if err := win.Fence(0); err != nil {
			return err
		}
		if w.MyPE() == 1 {
			// Every other element of rank 0's slice: a vector target.
			every2 := compat.Vector(2, 1, 2, compat.Int32)
			if err := windows.PutTyped(win, []int32{7, 8}, 2, compat.Int32, 0, 0, 1, every2); err != nil {
				return err
			}
		}
		if err := win.Fence(windows.ModeNoSucceed); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			fmt.Println(mine)
		}
		return nil
	}, shmem.WithSymmetricSize(16<<20))
	// Output: [7 0 8 0]
}

// Dynamic windows: memory is attached after creation and named by its
// address, which the origin has to learn (here through a symmetric word).
func ExampleAttach() {
	_ = shmem.Run(2, func(w *shmem.World) error {
		env, err := compat.New(w) // MPI_Init over the World's PEs
		if err != nil {
			return err
		}
		defer env.Finalize()
		c := env.CommWorld()
		// Every PE reserves 4 KiB of heap for attached memory.
		win, err := windows.CreateDynamic(c, compat.Info{windows.InfoDynamicPool: "4096"})
		if err != nil {
			return err
		}
		defer win.Free()
		addr, err := shmem.Calloc[int64](w, 1)
		if err != nil {
			return err
		}
		defer shmem.Free(addr)
		buf := make([]uint64, 2)
		if w.MyPE() == 1 {
			if err := windows.Attach(win, buf); err != nil {
				return err
			}
			addr.Local()[0] = int64(windows.Address(buf))
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			at, err := shmem.G(addr, 1)
			if err != nil {
				return err
			}
			if err := win.Lock(windows.LockExclusive, 1, 0); err != nil {
				return err
			}
			if err := windows.Put(win, []uint64{42}, 1, int(at)+8); err != nil {
				return err
			}
			if err := win.Unlock(1); err != nil {
				return err
			}
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 1 {
			if err := windows.Detach(win, buf); err != nil { // brings buf up to date
				return err
			}
			fmt.Println(buf)
		}
		return nil
	}, shmem.WithSymmetricSize(16<<20))
	// Output: [0 42]
}
