// Package windows is MPI-3 one-sided communication (MPI-3.1 chapter 11)
// over gshmem's symmetric heap: RMA windows, their epochs and their error
// classes, so that a code written against MPI_Win_* moves onto gshmem by
// renaming calls while keeping its epochs and its answers. It is stage 2
// of the migration path (MPI calls, windows, streams, kernels); see
// porting-guide/02-windows.md for each MPI call beside its form here.
//
// # A walk-through
//
// A window spans the ranks of a compat communicator, as in MPI, and every
// rank in its calls is a rank of that communicator. The MPI vocabulary is
// compat's (Datatype, Op, Group, Request, Info, Status, error classes): one
// type each for stages 1 and 2. Create a window collectively over any
// *compat.Comm, in one of four flavors:
//
//	env, err := compat.New(w)    // or compat.Init: MPI_Init
//	comm := env.CommWorld()      // or a Split, Dup or Create of it
//	win, err := windows.Allocate(comm, nbytes, dispUnit, nil)      // MPI_Win_allocate
//	win, buf, err := windows.AllocateOf[float64](comm, n, nil)       // same, typed: disp unit 8
//	win, err := windows.AllocateShared(comm, nbytes, dispUnit, nil) // + win.SharedQuery(rank)
//	win, err := windows.Create(comm, mySlice, dispUnit, nil)        // MPI_Win_create
//	win, err := windows.CreateDynamic(comm, nil)                    // + Attach/Detach
//	defer win.Free()                                                // collective
//
// Sizes and displacement units may differ between PEs. Operations name a
// target rank and a displacement in the target's unit; the element type
// comes from the Go slice:
//
//	windows.Put(win, src, target, disp)                     // MPI_Put
//	windows.Get(win, dst, target, disp)                     // MPI_Get
//	windows.Accumulate(win, src, target, disp, compat.OpSum)
//	windows.GetAccumulate(win, src, result, target, disp, compat.OpMax)
//	old, err := windows.FetchAndOp(win, int64(1), target, disp, compat.OpSum)
//	old, err := windows.CompareAndSwap(win, cmp, val, target, disp)
//	req, err := windows.Rput(win, src, target, disp); req.Wait() // a *compat.Request
//
// Use typed values where Go would otherwise infer int: CompareAndSwap[int32]
// or int32(...) arguments, since the element type decides how many bytes
// are touched. The *Typed forms take MPI-style (count, Datatype) pairs for
// the origin and the target, with Vector and Contiguous layouts:
//
//	col := compat.Vector(n, 1, n, compat.Float64) // a column of an n x n matrix
//	windows.PutTyped(win, row, n, compat.Float64, target, 0, 1, col)
//
// Every operation belongs to an epoch. Active target, collective:
//
//	win.Fence(windows.ModeNoPrecede)
//	windows.Put(...)
//	win.Fence(windows.ModeNoSucceed)   // everything above is complete everywhere
//
// Active target, between groups of ranks:
//
//	g, err := win.Group()              // MPI_Win_get_group: a *compat.Group
//	left, err := g.Incl([]int{l})      // made once, reused every epoch
//	right, err := g.Incl([]int{r})
//	win.Post(left, 0)                  // expose my window to left
//	win.Start(right, 0)                // access right's window
//	windows.Put(win, src, right, 0)
//	win.Complete()                     // my operations are done
//	win.Wait()                         // left's operations into my window are done
//
// Passive target (the target takes no part):
//
//	win.Lock(windows.LockExclusive, t, 0) // or LockShared; win.LockAll(0)
//	windows.Get(win, v, t, 0)
//	win.Flush(t)                          // complete at t without ending the epoch
//	win.Unlock(t)
//
// # Semantics
//
// Accumulates are atomic per element with respect to each other: the same
// op from many PEs on the same location gives the exact result. Aligned
// elements of 1 to 8 bytes are updated with compare-and-swap loops on the
// word that holds them; larger or misaligned ones (complex128, DoubleInt,
// LongInt) under per-location stripe locks in the target's control area.
//
// Allocate and shared windows live in the symmetric heap and use the
// unified memory model, and so do Create windows: the caller's buffer is
// reached in place (heap memory at its offset; otherwise its pages
// are moved onto a page file of their own, mapped over every view of the
// window's heap range, and left there by Free), see create.go, and so
// do dynamic windows (attached pages move onto the window's pool while
// attached), see dynamic.go. Create windows that ask for it (info
// gshmem_model=separate), or whose buffer cannot be reached in place, keep
// a public copy in the heap and use the separate model: RMA updates reach
// the caller's memory, and its local stores reach peers, at Fence, Post,
// Wait/Test, Lock and Unlock of this PE itself, LockAll, UnlockAll, Sync
// and Free.
// Reconciliation is per byte against a snapshot, so local stores and
// remote updates to different locations in one epoch both survive.
//
// Passive-target locks are phase-fair reader-writer ticket locks in each
// PE's control area, taken with remote atomics: neither readers nor
// writers starve. LockAll takes each target's shared lock at the first
// operation to it, so its epoch never waits for targets it does not use. Waits (locks, Post, Wait) follow the World's one
// wait policy (shmem.WaitPolicy): they poll, then sleep on the futex of the
// heap that holds the awaited words, which the releasing PE's store rings;
// they fail with ErrOther wrapping shmem.ErrAborted when the World's
// context is cancelled.
//
// Different Wins may be used by different goroutines at once
// (MPI_THREAD_MULTIPLE with a window per thread: their epochs share no
// state). One Win may be used by several goroutines at once inside a
// LockAll epoch that one of them opened before the others start and
// closes after they end, as MPI requires of threads sharing an epoch:
// Put, Get, the accumulates and the flushes run together, and the first
// operations to a target take its shared lock once (access.go). Goroutines
// may also Lock and Unlock different targets of one Win at once (MPI-4.1
// lets a process's threads hold locks to different targets), each with
// its operations and flushes to its own target; two at once on the same
// target is erroneous and one of them gets ErrRMASync (lock.go). Its
// other epoch calls (LockAll, UnlockAll, Fence, PSCW) take one goroutine
// at a time.
//
// # GPU memory
//
// On a World whose heap is GPU memory (GSHMEM_HEAP=device), allocate
// windows put their memory on the GPU (info gshmem_memory=device, the
// default there; =host keeps it in the heap's host area) and Base is a
// device address; create windows take device buffers too; the control
// words stay in host memory. Put and Get between device memory run on the
// copy engine, host origins through the heap's CUDA transport, and the
// accumulate family on the host under the stripe locks. Shared and dynamic
// windows need a host heap. device.go has the table of paths.
//
// # Errors
//
// Every error is a *compat.Error carrying an MPI error class; test it with
// errors.Is against compat's class sentinels: ErrRMASync (an operation outside
// an epoch, Unlock without Lock, Complete without Start, Fence inside a
// lock epoch, Free with an epoch open anywhere), ErrRMARange (a
// displacement past the target's window or into memory it has not
// attached), ErrRMAConflict (a lock of the other type on a target already
// locked), ErrRank, ErrType, ErrOp, ErrCount, ErrGroup, ErrAssert,
// ErrLockType, ErrRMAAttach, ErrRMAShared, ErrRMAFlavor, ErrWin, ErrSize,
// ErrDisp, ErrInfoKey, ErrInfoValue, ErrNoMem, ErrArg and ErrOther. A
// failing call writes nothing; nothing is ever written outside the
// target's window. Collective calls (creation, Free, Fence) fail on every
// PE together when one PE's arguments or state are wrong.
//
// # The stage 2 -> 3 seam
//
// An allocate window's memory is symmetric: Win.Memory (MemoryOf[T]) hands
// it out as a shmem.Sym at the same offset on every rank, which streams and
// kernels put into and signal directly, naming a rank's PE with Win.PE.
//
// # Bindings
//
// Code in another language that runs a window's hottest calls itself (the
// C ABI's rma.c) keeps the window's epoch bytes in its own memory
// (Win.Bind), reaches each rank's mapped memory and lock words through
// Win.Target, and finishes a shared lock that met a writer with
// Win.AwaitShared; every other call goes to this package, which sees the
// binding's changes because the bytes are the same.
//
// # Performance tests
//
// `gshmem perf win_*` runs the OSU one-sided patterns (sync modes flush,
// flush_local, lock, lock_all, fence, pscw) through internal/mpibench,
// which uses only this package's API; the package's Go benchmarks compare
// window calls with the raw shmem calls they map to.
package windows
