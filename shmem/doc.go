// Package shmem is gshmem's core: processing elements (PEs), a symmetric
// heap, one-sided RMA, atomics, signals and point-to-point synchronization,
// with OpenSHMEM 1.5 semantics.
//
// # PEs and worlds
//
// A job is n PEs numbered 0..n-1. A PE is either a process or a goroutine,
// with the same semantics:
//
//	// processes: go run ./cmd/gshmem run -n 4 ./myprog
//	w, err := shmem.Init(ctx)
//	defer w.Finalize()
//
//	// goroutines, in one process (tests, or PEs sharing one GPU context)
//	err := shmem.Run(4, func(w *shmem.World) error { ... })
//
// There is no global state: everything hangs off the *World.
//
// # The symmetric heap
//
// Every PE owns a heap of the same size (GSHMEM_SYMMETRIC_SIZE, an upper
// bound: by default the machine's memory, reserved as address space and
// committed as it is touched; freed objects hand their pages back). Alloc,
// Calloc, Align, AllocWithHints, Realloc and Free are collective: every PE
// calls them in the same order with the same arguments and gets the same
// offset, so an object is named the same way everywhere. PEs that disagree
// all get ErrSizeMismatch. The porting guide's 07-openshmem.md gives the Go
// name of every OpenSHMEM 1.5 routine.
//
//	buf, err := shmem.Calloc[float64](w, 1024) // Sym[float64]
//	local := buf.Local()                       // this PE's copy, a []float64
//
// A Sym[T] is the remote target; At and Slice give bounds-checked parts of
// it, Bytes the byte-level form.
//
// # One-sided communication
//
//	shmem.Put(buf, data, pe)   // returns when data may be reused
//	w.Quiet()                  // ... and now it is visible at pe
//	shmem.Get(out, buf, pe)    // returns with out filled
//	shmem.FetchAdd(ctr.At(0), 1, 0)
//	shmem.PutSignal(buf, data, sig, 1, shmem.SignalSet, pe) // data, then signal
//	shmem.SignalWaitUntil(sig, shmem.CmpGE, 1)             // at pe: data is there
//
// Ordering follows OpenSHMEM: Fence orders operations to each target,
// Quiet completes them all, BarrierAll is Quiet plus a barrier, and a
// signal is delivered after the data of its put. Atomics are sequentially
// consistent and named as in sync/atomic where they overlap.
//
// # Contexts, non-blocking fetches, locks
//
// A Ctx (World.CtxCreate, Team.CreateCtx) is an independent stream of
// operations: every RMA, atomic and signal call has a Ctx form (CtxPut,
// CtxFetchAdd, ...), and a context's Quiet completes its own operations
// only. Over tcp each context has its own connections, so goroutines with
// their own contexts never wait for each other's transfers.
//
//	c, _ := w.CtxCreate(shmem.CtxPrivate)
//	shmem.CtxPutNBI(c, buf, data, pe)
//	c.Quiet()
//
// FetchAddNBI, SwapNBI, CompareAndSwapNBI, ... store the old value into a
// variable that is valid after Quiet. SetLock, TestLock and ClearLock are
// a fair (ticket) lock on a symmetric int64 word.
//
// # Collectives on device heaps
//
// With the heap in GPU memory (WithDevice), a team's collectives run as
// kernels over the members' heaps as mapped in this PE's context: the host
// checks the arguments (the entry barrier) and launches on the PE's stream.
// Large reductions give each PE a slice, folded from every member's src in
// team order and stored into every member's dst, so every member gets the
// same bits; small ones are one launch (up to 64 bytes on up to 8 members,
// one exchange round). The *OnDeviceStream forms enqueue the same kernels
// on a caller's stream without waiting, and Team.DeviceHandle gives kernels
// the team for gshmem.cuh's block-scoped collectives. Teams of more than 64
// members, or with a heap not mapped here, keep the host path.
//
// # Waiting
//
// Every wait of the runtime and of the layers above it (compat's receives
// and collectives, windows' locks, streams' and kernels' waits) follows one
// policy, chosen per World at Init from the PEs and CPUs of the PE's node
// (World.WaitPolicy, ChooseWaitPolicy): it polls (65536 times in a process
// PE with a CPU of its own, 4096 in a goroutine PE, 64 in a goroutine PE
// and 4 in a process PE when the node's PEs outnumber its CPUs; GSHMEM_SPIN
// sets the count), yielding the thread now
// and then (every 4096 polls, every 16 when crowded), then polls a while
// yielding after each poll (and, in a crowded process, the CPU with
// sched_yield), then sleeps on a futex in the doorbell of the heap that
// holds the watched words (WaitPolicy.MaxSpin, set through SetWaitPolicy,
// lets the polling grow while sleeps keep ending within a few scheduler
// slices, for CPUs shared with busy processes). Every write into a heap
// through the core rings it:
// Put, the atomics and signals, and the store-and-wake helpers (Mapped)
// through which the layers write into mapped peers directly; so a sleeper
// wakes whichever path wrote. Layers wait on conditions of their own with
// World.Await; waits for lock words use World.AwaitLock, which only lock
// releases (Mapped.RingLock) and remote atomics wake, so that a heap's
// lock traffic and its other waiters leave each other alone. Every wait ends with ErrAborted when the World's context is
// cancelled or the job stops (a sleeper is woken for it at once), and with
// ErrPeerLost when a peer is lost: one that died (its heap socket or tcp
// connection closed, or its process gone), one stopped for the peer
// timeout (a node-local process PE counts heartbeats in its node's
// heartbeat table, and a count that stands still is judged by the PE's
// process: stopped for the timeout is lost, waiting for a CPU or sleeping
// is not), a remote one silent for the peer timeout, or one that finalized while
// this PE still waits, for the peer timeout (a PE that called one
// collective more than the others). A wait on a named PE's words
// (Await(pe, ...)) ends at once when that PE is lost; others after half a
// second, so that a launcher names the PE that died first. Puts, gets,
// atomics and Quiet aimed at a lost PE fail too, although its heap stays
// mapped: the fast path pays one load of a word that is nonzero once any
// peer is down.
//
// # Errors
//
// Bad input returns an error wrapping one of the Err* sentinels (test with
// errors.Is) and never writes anywhere: a bad PE, an access past the end of
// an object, a freed object, a misaligned atomic.
//
// # Transports
//
// PEs of one node share heaps by memfd mappings handed over a unix socket
// (SCM_RIGHTS): puts and gets are copies, atomics are hardware atomics, and
// Ptr gives direct access to a peer's memory. Nothing is ever named in
// /dev/shm, so nothing is left behind when a process dies. A process PE
// maps a peer's heap when it first touches it (a put, get, atomic, Ptr,
// Mapped, a collective's round with it), not at Init: start-up costs each
// PE one connection (to its node's leader, which proves the node), and a
// PE's mappings and page tables follow the peers it talks to (a barrier's
// log2 N partners), not the size of the job.
package shmem
