// Command abi is libmpi_abi.so.1: gshmem's implementation of the MPI-5.0
// standard ABI (ABI version 1.0), so that unmodified C and C++ MPI
// programs run on gshmem by relinking. It is built, not run:
//
//	go build -buildmode=c-shared -ldflags=-extldflags=-Wl,-soname,libmpi_abi.so.1 \
//	    -o libmpi_abi.so.1 ./compat/abi
//
// or, with the header, pkg-config file and compiler wrappers around it,
// `gshmem abi install --prefix DIR`; then `DIR/bin/mpicc` compiles and
// links programs and `DIR/bin/mpiexec` (gshmem run) starts them. A program
// started alone is a job of one process (an MPI singleton).
//
// # How a call flows
//
// include/mpi.h declares every entry point of the standard ABI. The
// generated zsymbols.c defines each as a strong PMPI_X with a weak MPI_X
// alias (so a profiling library's MPI_X interposes) that calls, in order
// of preference:
//
//   - abic_X, a C implementation in a hand-written .c file of this package
//     (env.c: MPI_Comm_rank/size, status accessors, attributes; wtime.c:
//     MPI_Wtime;
//     rma.c: the RMA hot paths; p2p.c: the eager MPI_Send and MPI_Recv,
//     MPI_Barrier, the small MPI_Allreduce), which hands what its fast
//     path does not serve to abigo_X;
//   - abigo_X, a Go function exported with //export abigo_X, over compat
//     and windows;
//   - for a large-count form X_c whose X is implemented and whose counts
//     are scalars, a generated shim over PMPI_X (internal/gen/shim.go);
//   - a stub that raises MPI_ERR_UNSUPPORTED_OPERATION through the error
//     handler of the call's communicator, window, file or session (or of
//     MPI_COMM_SELF), so that every standard-ABI binary links and loads.
//
// The generator (internal/gen, run by go generate ./compat/abi) finds the
// implementations by those names: adding a call is writing abigo_X (or
// abic_X) and running go generate. It also writes include/mpi.h from the
// tables in internal/gen/abi.txt and porting-guide/abi-status.md, the
// table of what is implemented; internal/gen's test fails when a
// generated file is not current.
//
// # Conventions of the Go side
//
// Handles, callbacks and untyped buffers cross as uintptr_t (C.uintptr_t
// in Go): the ABI's predefined handles and MPI_IN_PLACE are small
// integers that Go must never hold in a pointer type. cptr turns a buffer
// address into a pointer; cbuf and msgBuf into a byte slice, which fits
// every compat datatype.
//
// A user handle is the address of a C struct from state.h (abi_obj first,
// then what C reads of that kind), allocated with malloc and recycled,
// never freed, so a stale handle reads as invalid; handles.go maps it to
// the Go object (*commObj, *winObj, *reqObj, compat.Datatype, ...).
// The C hot paths dereference a communicator or window handle only once
// live.h's set says Go handed it out and has not freed it, so a garbage
// value gives MPI_ERR_COMM (or the kind's class, from Go) instead of a
// crash. Predefined handles are the ABI's constants, mapped at init (datatypes,
// info) or at MPI_Init (communicators, MPI_GROUP_EMPTY). state.go mirrors
// state.h field by field for Go's writes, checked by TestStateLayout:
// this is how Go publishes state for C hot paths (abi_global.comm_world
// is what MPI_Comm_rank reads).
//
// # The RMA hot paths
//
// A C->Go call costs about 50 ns, more than a whole 8-byte put and flush
// into a peer whose heap is mapped. So MPI_Put, MPI_Get, MPI_Accumulate,
// MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap, the
// flushes, shared MPI_Win_lock/unlock and MPI_Win_lock_all/unlock_all run
// in rma.c when the target is mapped, the datatype predefined and the
// same on both sides, and an epoch is open. winfast.go publishes what
// they read: each rank's mapped window memory, lock words and doorbell
// (windows.Win.Target), and windows' own epoch bytes, which the window
// keeps in the same C block (windows.Win.Bind), so a C fast path and the
// Go path of the next call see one state. The C paths use the same atomic
// instructions on the same words as windows (1- and 2-byte elements as a
// compare-and-swap on their aligned 4-byte word), the same phase-fair
// lock protocol (a shared locker that meets a writer waits in Go,
// windows.Win.AwaitShared) and ring the same doorbell, so C, Go and
// remote (TCP) updates stay atomic with each other. Lock releases ring the
// heap's doorbell for lock waiters; data writes ring none, as windows'
// Put does not: no MPI wait ends on window data, and a target asleep in
// MPI_Barrier would otherwise be woken by every put. Everything else, and
// every error, goes to the Go export of the call. test/perf/abi-calls.sh
// measures the calls beside Open MPI and MPICH.
//
// # The symmetric heap's C host API
//
// include/gshmem.h is NVSHMEM's host API with nvshmem renamed gshmem
// (OpenSHMEM 1.5's names with a g), in this same library: gshmem_init
// joins the job alone, gshmemx_init_attr with GSHMEMX_INIT_WITH_MPI_COMM
// shares MPI's World (compat.Env.World), and MPI_Init after gshmem_init
// runs compat.New on gshmem's World, so a job has one set of PEs and one
// heap whichever starts first. A communicator other than one of every
// process of MPI_COMM_WORLD in its order is refused: shmem makes Worlds of
// the whole job only. Since MPI_Init made the heap, a GSHMEM_SYMMETRIC_SIZE
// the program sets between the two (NVSHMEM programs do) is read from C's
// environment, not Go's copy, and checked against it. include/gshmemx.h is
// nvshmemx.h's place, and under nvcc gshmem.h includes gshmem.cuh, so an
// NVSHMEM program ports by sed alone.
//
// gshmem.c, gshmem_sync.c and shm.h hold the calls; the typed families (TYPENAME_put,
// _atomic_fetch_add, _wait_until, _OP_reduce, ...) are one line each in
// zgshmem.c, generated with the header by internal/gen from OpenSHMEM's
// type tables, over shm.h's inline cores. Those check every address
// against the objects of gshmem_malloc and every PE against the job, in
// C: a bad one ends the job with a message naming the call, as NVSHMEM
// does. gshmem.go publishes abi_shm (state.h) for them: this PE's heap
// base, each mapped PE's heap and doorbell (found through shmem.Ptr and
// World.Mapped), and the sorted list of live objects under a seqlock. So
// put, get, p, g, the atomics and the signals into a mapped PE are a
// copy or an atomic instruction in C followed by the doorbell's ring, as
// rma.c's paths and shmem's own; a wait polls in C (abi_shm.spin polls,
// the World's spin bounded to some tens of microseconds) before it goes to
// Go's wait, which sleeps and reports a lost peer; barrier_all and
// sync_all on a host heap are a dissemination barrier in C over a heap
// object of ABI_SHM_SYNC_WORDS counting words (shm_sync_set: at 2 PEs one
// remote atomic and one wait each, no call into Go); other PEs, waits that
// must sleep, team collectives and teams go to the Go exports
// (abiint_shmem_*) over package shmem. Operations Go carried set
// abi_shm.pending, so quiet and fence cross into Go only when they have
// something to complete.
//
// # shmem.h: OpenSHMEM 1.5
//
// include/shmem.h is OpenSHMEM 1.5's C API on the same engine and heap as
// gshmem.h (internal/gen/gshmem_openshmem*.go generates it, pshmem.h,
// zshmem.c and the aliases from the specification's type tables): every
// routine is pshmem_X, with shmem_X its weak alias; the typed families are
// gshmem.h's cores under OpenSHMEM's names, with a shmem_ctx_ form of each
// RMA, signal and atomic routine (a context is a team's PE map over the
// one engine); shmem_coll.c runs the deprecated active-set collectives
// over pSync (the same dissemination barrier on its words) and the
// reductions Go has no arithmetic for (long double, complex). shmem_init makes the executable's .data and .bss symmetric
// (shmem_static.go): they move into a heap object, whose pages are then
// mapped at their own address, and shm_find turns an address there into
// the object's heap offset, so every transport reaches a global.
// porting-guide/07-openshmem.md says what there is and what it costs.
//
// # gshmem.h on the GPU (stage 3 in C)
//
// In the library built with -tags cuda the heap may be GPU memory, as
// NVSHMEM's always is: gshmem_init alone puts it there unless
// GSHMEM_HEAP=host (or no GPU is usable: then a note on stderr and the
// host heap); when MPI_Init starts the job first, GSHMEM_HEAP decides for
// both (host by default, which MPI windows need; a note on stderr in the
// CUDA build says so). gshmemx_heap_on_device tells a program which it
// got. On a device heap (gshmem_device.go, shmdev.h) gshmem_malloc returns
// device memory, gshmem_ptr a peer's heap as CUDA IPC mapped it here, and C
// maps no PE: every call goes to Go, which moves device memory through
// shmem's device paths (stream memory writes, copies on the PE's stream,
// atomic kernels, the collectives' kernels), never a byte loop. A local
// buffer may be host memory, a symmetric object (PutSym, GetSym) or other
// device memory (one copy to or from the peer's mapped heap), ordered
// after the legacy default stream's work. Waits and tests read the words
// through Go (shm_read_word; shm_wait_set scans a host copy Go refreshes).
//
// The *_on_stream calls (gshmem_stream.c, gshmem_stream.go; the typed
// families in zgshmem.c) take a cudaStream_t or CUstream as
// gshmemx_stream_t, a pointer to CUDA's incomplete struct CUstream_st, so
// that gshmem.h needs no CUDA header, and enqueue their work through
// shmem's *OnDeviceStream calls: putmem, getmem (+ _nbi), putmem_signal,
// signal_op, signal_wait_until, quiet (nothing to enqueue: stream work
// completes in order), barrier_all, barrier(team), sync_all, team_sync,
// TYPENAME_OP_reduce and reducescatter (the reduction kernels' types and
// ops), broadcast, fcollect and alltoall. Like the rest of gshmem.h they
// return nothing (or 0) and end the job with a message naming the call on
// any error: a host heap (the host build says it needs -tags cuda), host
// memory as an on-stream local buffer, a bad PE, address or team.
// testdata/gshmem_stream.c checks every call on the GPU (test/gpu/run.sh
// cabi), and examples/c/jacobi-gpu/stage3_stream.cu is stage 3 of the
// Jacobi example in C.
//
// Every error is an MPI error class at the ABI's value (errors.go maps
// compat's classes) raised through the object's error handler (for calls
// without one, MPI_COMM_SELF's once one is set there, else
// MPI_COMM_WORLD's, which is where MPI-3 codes set theirs):
// MPI_ERRORS_ARE_FATAL by default (prints the call, the rank and the
// message, then ends the job with the class as exit status),
// MPI_ERRORS_RETURN, or a user handler called through callbacks.c. A
// lost peer (shmem.ErrPeerLost: it died, or stayed stopped for
// GSHMEM_PEER_TIMEOUT) is MPI_ERR_PROC_ABORTED, or MPIX_ERR_PROC_FAILED
// under GSHMEM_MPI_FT=ulfm; mpi-ext.h's MPIX_Comm_revoke, shrink, agree,
// failure_ack, failure_get_acked and get_failed (ulfm.c, ulfm.go) are
// compat's ulfm.go. Ranks,
// tags and comparison results differ between compat and the ABI: rankIn,
// rankOut, tagIn, tagOut and compareOut translate.
//
// # Files
//
//	doc.go, gen.go     this, and the go:generate line
//	main.go            the empty main a c-shared build needs (main_nocgo.go without cgo)
//	abi.h, state.h     the C side's shared declarations; the published state layout
//	state.go, layout.go Go's mirror of state.h; the C layout for its test
//	handles.go         the handle table, MPI_X_toint/fromint
//	fortran.go         MPI_Abi_get/set_fortran_info and _booleans: what a Fortran binding tells the library
//	fortran/           the Fortran binding library libgshmem_mpifort (mpif.h, use mpi, use mpi_f08),
//	                   generated (z*) from abi.txt, hand-written where no rule fits; built by gshmem abi install
//	live.h, live.c     the live handles the C hot paths may dereference
//	errors.go          error classes, strings and handlers
//	callbacks.c        calls into user code (error handlers, user ops, attribute copy/delete)
//	env.go, env.c      MPI_Init ... MPI_Finalize, versions, MPI_Abort; statuses, attributes in C
//	wtime.c            MPI_Wtime from the time stamp counter where it is a clock (GSHMEM_MPI_WTIME)
//	comm.go, group.go, topo.go, info.go   communicators, groups, Cartesian topologies, info
//	graph.go                              graph topologies, MPI_Dist_graph_create, Graph_map, Cart_map
//	neighbor.go, neighborcoll.go          distributed graphs; the neighborhood collectives, every form
//	attr.go                               communicator attributes with user keyvals
//	datatype.go, construct.go, grid.go    datatypes: predefined handles, constructors (subarray, darray)
//	envelope.go, query.go, typeattr.go    their decoding, queries, attributes
//	f90.go, pack.go, collc.go             f90 types, MPI_Pack(_external), the v/w collectives' _c forms
//	buffers.go                            buffers and statuses at the C boundary
//	p2p.go, request.go, bsend.go          point-to-point, requests, buffered sends (process and communicator buffers)
//	reqstatus.go                          MPI_Cancel, MPI_Request_free, MPI_Request_get_status(_all/_any/_some)
//	grequest.go, grequest.c               generalized requests and the calls into their user functions
//	partitioned.go                        partitioned communication over compat's Prequest
//	intercomm.go, intercoll.go            intercommunicators and their collectives
//	dynproc.go, names.go, disconnect.go   ports, accept/connect, join, spawn, the parent; the name service; disconnect
//	hwinfo.go                             MPI_Get_hw_resource_info
//	p2p.c                                 the eager fast path: MPI_Send, MPI_Recv, MPI_Barrier, small MPI_Allreduce (below)
//	mprobe.go                             matched probes, MPI_Isendrecv(_replace)
//	nbc.go, nbcv.go, pcoll.go             nonblocking and persistent collectives as schedules of point-to-point rounds
//	coll.go, userop.go                    collectives; user reduction ops
//	win.go, rma.go, mem.go                windows and their synchronization, RMA, MPI_Alloc_mem
//	rma.c, winfast.go                     the RMA hot paths in C; the state Go publishes for them
//	gshmem.go, gshmem_rma.go, gshmem_team.go  gshmem.h's setup and heap, its Go paths, teams and collectives
//	gshmem.c, gshmem_sync.c, shm.h        gshmem.h's calls in C and the inline cores of its typed families
//	gshmem_device.go, gshmem_cuda.go, shmdev.h  gshmem.h on a device heap (the CUDA build)
//	gshmem_stream.c, gshmem_stream.go     the *_on_stream calls
//	zgshmem.c, include/gshmem.h           generated: the typed families and the header
//	include/gshmemx.h                     nvshmemx.h's counterpart (gshmem.h)
//	shmem.c, shmem_coll.c, oshmem.h       OpenSHMEM 1.5's shmem.h: its untyped routines, the active-set collectives and C reductions
//	shmem_static.go, shmstatic.h          the program's globals and statics made symmetric at shmem_init
//	zshmem.c, zshmem_alias.h, include/shmem.h, pshmem.h, shmemx.h  generated: its typed routines, weak aliases, headers
//	gshmem_kern*.go, gshmem_kern.c         stage 4: gshmem.cuh's device state bound into the program's kernels (registered binders) and driver-API modules
//	zsymbols.c, zprotos.h, include/mpi.h  generated
//	include/mpi-ext.h, cudaaware.go       MPIX_CUDA_AWARE_SUPPORT (0; 1 as installed from a -tags cuda build)
//
// # Device buffers
//
// Built with -tags cuda (GOFLAGS=-tags=cuda gshmem abi install) and run
// with GSHMEM_HEAP=device, the library is CUDA-aware: device pointers
// (cudaMalloc memory, the symmetric heap) may be passed to the collectives
// (MPI_Allreduce, MPI_Reduce, MPI_Bcast, MPI_Allgather and MPI_Alltoall run
// on the GPU: compat's coll_device.go; MPI_Gather(v), MPI_Scatter(v),
// MPI_Allgatherv, MPI_Alltoallv and MPI_Reduce_scatter(_block) too, through
// the device scratch: coll_devv.go), to point-to-point calls (eager
// messages copied to and from the host mailboxes, larger ones device to
// device: compat's p2p_device.go) and to RMA (MPI_Win_allocate's memory is
// on the GPU unless info gshmem_memory=host; puts and gets between device
// memory run on the copy engine: windows' device.go). MPI_Alloc_mem
// returns device memory when its info says gshmem_memory=device (or
// asserts only cuda:device kinds), host memory otherwise (mem.go). The buffers reach
// compat and windows as bytes over their addresses and those tell device
// memory from host memory; the C fast paths (p2p.c, rma.c) stay off on such
// a heap, since they would read device pointers as host memory. Every
// other buffer-taking call takes device buffers over host copies, because
// it reads or writes them on the host: Scan, Exscan and Reduce_local copy
// in and out around the host call (viaHost in buffers.go); reductions with a user op, whose C
// function needs host memory, MPI_Pack and MPI_Unpack (only the packed
// bytes the call touches are copied) and the small MPI_Allreduce that Go
// runs as recursive doubling stage their buffers themselves; the
// nonblocking, persistent and neighborhood collectives and MPI_Alltoallw
// copy device inputs when the call (or MPI_Start) runs and write device
// results back in the schedule's last step, before MPI_Wait or MPI_Test
// says the request is complete (nbcdev.go). The copies are synchronous,
// after the legacy default stream, never on a stream of the user's; with
// host buffers nothing is copied. The installed mpi-ext.h says MPIX_CUDA_AWARE_SUPPORT 1, and
// MPIX_Query_cuda_support returns 1 (0 once MPI runs on a host heap, where
// device buffers are not supported); the host build says 0 in both
// (cudaaware.go, env.c). testdata/cudacoll.c (the collectives that run on
// the GPU, on device, host and mixed buffers), cudanbc.c (every call that
// runs over host copies, against the host result) and cudap2p.c are the
// device programs (run by test/gpu/run.sh abi; TestCUDAAwareBuild builds them);
// examples/c/jacobi-gpu/stage1_mpi.cu (MPI_Sendrecv on cudaMalloc rows) and
// stage2_win.cu (MPI_Put on a window in GPU memory) are stages 1 and 2 of
// the Jacobi example in C (test/gpu/run.sh cjacobi).
//
// # The eager fast path
//
// A blocking MPI_Send of up to the eager limit (8 KiB) on a predefined
// contiguous datatype writes the message into the mapped peer's ring in C,
// and a blocking MPI_Recv takes one from this process's ring, so that an
// 8-byte ping-pong never enters Go (p2p.c). They read and advance compat's
// engine state where compat keeps it for them, in its heap
// (compat/internal/p2pstate, mirrored by state.h's abi_p2p), and write
// compat's ring format, so each side reads what the other sent. They act
// only when that cannot change which receive a message matches: no
// earlier message waits in the Go engine's queue for that peer, and for a
// receive no posted receive and no unexpected message exist in the Go
// engine. Everything else goes to the Go calls, which start over. Below
// MPI_THREAD_MULTIPLE calls never overlap and compat makes no progress
// outside a call, so the two never run at once; at MULTIPLE the fast
// paths hold the engine's lock ("Threads" below).
//
// MPI_Barrier and the small MPI_Allreduce (up to 2 KiB of one integer or
// float type, a predefined arithmetic or bitwise op, a power-of-two
// communicator) run over the same rings in C: compat's point-to-point
// dissemination barrier, and recursive doubling, in the communicator's
// collective context. Each round's half that the fast path cannot serve
// goes to Go, which sends and receives the same messages, and whether an
// allreduce runs so depends only on what MPI makes every member pass
// alike (for a derived datatype, its element type and count), so every
// member runs the same protocol.
//
// Waits run on the caller's C thread, whose goroutine is locked to it: a
// Gosched there parks the thread, so the library's waits poll without
// yielding before they sleep (threadWaits in env.go).
//
// # Threads
//
// MPI_Init_thread provides what it is asked for, up to
// MPI_THREAD_MULTIPLE; MPI_Query_thread returns it and MPI_Is_thread_main
// compares with the thread that called MPI_Init (env.c). The state calls
// share, and what keeps each safe when any thread calls at once:
//
//   - compat.Env's engine (queues, requests' matching, rings' cursors,
//     rendezvous tables): one lock, compat's engineMutex, is the critical
//     section of every change. Its waiters spin briefly, then sleep on its
//     word in the kernel (a futex mutex, enginelock.go): a caller's
//     goroutine is locked to its C thread and a process PE has few Ps, so
//     waiters that yielded passed the P among themselves while the holder
//     queued for it. A blocking call takes it for a round of
//     progress and lets it go while it polls and sleeps under the World's
//     one wait policy (Env.waitFor, Env.recv), so a thread blocked in
//     MPI_Recv or MPI_Wait never holds up another's MPI_Send, and threads
//     waiting at once sleep on the heap's doorbell instead of spinning
//     every CPU away. A request completes under the lock and wakes every
//     waiter of the PE, so one thread may wait on a request another made.
//   - The lock's word is in the published state (p2pstate.Engine.Lock,
//     abi_p2p.lock), so at MULTIPLE p2p.c's eager MPI_Send and MPI_Recv
//     take the same lock around each try (a compare-and-swap and a swap;
//     one uncontended pair per 8-byte message; they never sleep on it: a
//     take that keeps failing goes to Go, and a receive's poll leaves for
//     Go once a sleeper wants the lock). A take from a ring under
//     the lock bumps abi_p2p.taken, which Go's idle waiters watch beside
//     their own completions, since it moves the ring positions they poll.
//     MPI_Barrier and the small MPI_Allreduce in C hold ring state across
//     rounds, so at MULTIPLE they go to Go.
//   - Collectives: compat's team collectives share one scratch area per
//     Env, so at MULTIPLE (compat.WithThreadMultiple) every communicator
//     runs its collectives over point-to-point in its own collective
//     context, and collectives on different communicators may overlap.
//   - Communicator creation: a PE's agreements on new context ids take
//     turns at its counter in rounds, the one over the parent of lowest
//     context first (compat's ctxalloc.go), so threads may create
//     communicators from different parents at once
//     (testdata/commthreads.c).
//   - The handle table (handles.go) has its own mutex for writers and a
//     concurrent map for readers; attributes, error handlers and the
//     datatype table have theirs.
//   - RMA (rma.c): puts, gets, accumulates and flushes into mapped ranks
//     are plain or atomic memory operations on the window's own memory
//     and read-only on its state, lock-free at every level; epochs on
//     different windows share nothing. A lock_all epoch's shared lock on
//     a rank is taken on first use: threads sharing one window open the
//     epoch (MPI_Win_lock_all) before they start, as MPI requires, and
//     their first operations to a target race for it by a compare-and-swap
//     of its access byte, in rma.c and in windows alike (windows'
//     access.go): one takes the lock, the others wait for it.
//
// At MPI_THREAD_SINGLE, FUNNELED and SERIALIZED nothing changes: the fast
// paths test one word (abi_global.thread_level) and take no lock, and the
// Go engine's lock is one uncontended compare-and-swap.
// Message order per pair of threads, MPI_ANY_SOURCE matching and
// MPI_Mprobe/MPI_Mrecv (the thread-safe probe: the message leaves the
// queue when matched) follow from matching under the one lock.
// Threads may lock and unlock different targets of one window at once
// (rma.c and windows swap each target's lock byte, so two threads on one
// target get MPI_ERR_RMA_SYNC), and MPI_Comm_idup of different
// communicators at once agree on contexts in turns (compat's DupAsync).
// testdata/threads.c is the test (4 threads per rank, per-thread windows
// and one shared window), with lockthreads.c, commthreads.c and
// idupthreads.c.
//
// # Not yet
//
// porting-guide/abi-status.md lists every entry point. The v and w
// collectives' _c forms take each count and displacement up to INT_MAX
// (MPI_ERR_COUNT past it); user ops take contiguous datatypes only.
// Exclusive locks, fence and PSCW epochs and derived datatypes are served
// by Go even to mapped ranks; nonblocking sends and receives, and the
// collectives other than MPI_Barrier and the small MPI_Allreduce, cross
// into Go.
package main
