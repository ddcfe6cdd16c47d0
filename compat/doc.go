// Package compat is gshmem's MPI layer: communicators, point-to-point
// messages, collectives, datatypes and ops with MPI's semantics and error
// classes, over the symmetric heap. It is stage 1 of the migration path
// (MPI calls, RMA windows, stream-ordered operations, kernel-issued puts):
// an MPI code keeps its shape and runs on gshmem, then moves one phase at a
// time to windows, streams and kernels. porting-guide/01-mpi.md maps every
// supported MPI call to its form here.
//
// # A walk-through
//
// MPI_Init and MPI_Finalize become Init and Finalize; a program started by
// `gshmem run -n 4 ./prog` gets one PE per process:
//
//	env, err := compat.Init(ctx)          // MPI_Init (shmem.Init underneath)
//	defer env.Finalize()                  // MPI_Finalize, collective
//	world := env.CommWorld()              // MPI_COMM_WORLD
//	me, n := world.Rank(), world.Size()
//
// Over PEs that already exist, for example the goroutine PEs of shmem.Run
// in a test, New sets MPI up on a World (collectively) and Finalize leaves
// the World running:
//
//	shmem.Run(4, func(w *shmem.World) error {
//		env, err := compat.New(w)
//		...
//		return env.Finalize()
//	})
//
// Buffers are Go slices; a call takes the slice, a count and a Datatype,
// as MPI takes a pointer, a count and an MPI_Datatype. The slice's element
// type must fit the datatype (a []float64 with Float64, or anything with
// Byte), and the slice must hold count instances:
//
//	compat.Send(world, buf, n, compat.Float64, dest, tag)           // MPI_Send
//	st, err := compat.Recv(world, buf, n, compat.Float64, compat.AnySource, compat.AnyTag)
//	st.Source, st.Tag, st.Count(compat.Float64)                     // MPI_Status, MPI_Get_count
//	req, err := compat.Irecv(world, buf, n, compat.Float64, src, tag) // MPI_Irecv
//	req2, err := compat.Isend(world, out, n, compat.Float64, dst, tag)
//	err = compat.Waitall([]*compat.Request{req, req2}, nil)          // MPI_Waitall
//	compat.Sendrecv(world, out, n, compat.Float64, right, 0, in, n, compat.Float64, left, 0)
//
// Collectives are package functions too; InPlace[T]() is MPI_IN_PLACE:
//
//	compat.Allreduce(world, compat.InPlace[float64](), res, 1, compat.Float64, compat.OpMax)
//	compat.Bcast(world, params, 3, compat.Int32, 0)
//	compat.Allgatherv(world, mine, k, compat.Int64, all, counts, displs, compat.Int64)
//
// Communicators and groups:
//
//	row, err := world.Split(me/q, me)      // MPI_Comm_split
//	g, _ := world.Group()
//	evens, _ := g.Incl([]int{0, 2, 4})     // MPI_Group_incl
//	ce, err := world.Create(evens)         // MPI_Comm_create: nil on odd ranks
//	ranks, _ := compat.TranslateRanks(evens, []int{0, 1}, g)
//	row.Free()                             // collective, as MPI_Comm_free
//
// Topologies, cancel and partitioned communication:
//
//	grid, err := world.CartCreate([]int{2, 2}, []bool{true, false}, false) // MPI_Cart_create
//	src, dst := grid.Cart().Shift(grid.Rank(), 0, 1)                        // MPI_Cart_shift
//	dg, err := world.DistGraphCreate(srcs, degrees, dsts, nil, false, false) // MPI_Dist_graph_create
//	req.Cancel()                                 // MPI_Cancel: an unmatched receive is taken back
//	p, err := compat.PsendInit(world, buf, 8, k, compat.Float64, dest, tag) // MPI_Psend_init
//	p.Start(); p.Pready(i); p.Wait()              // Pready from any goroutine
//
// Derived datatypes describe strided layouts, such as a matrix column:
//
//	col := compat.Vector(rows, 1, cols, compat.Float64) // MPI_Type_vector
//	compat.Send(world, m[j:], 1, col, dest, tag)
//
// and any other MPI type map: Indexed and Struct blocks at byte
// displacements of any sign, of several basic types (sent from a []byte),
// Resized bounds. A buffer holds a datatype's data from its true lower
// bound (TrueLB: 0 unless the first data byte lies away from the origin).
//
// # Semantics
//
// Messages between two ranks on one communicator are received in the order
// they were sent when both match a receive (MPI's non-overtaking rule);
// AnySource and AnyTag match anything; a receive into a buffer too short
// fills what fits and returns ErrTruncate with the Status counting what was
// delivered. A message up to the eager limit (WithEagerLimit, 8 KiB) is
// copied into the receiver's mailbox and Send returns at once; a larger one
// waits in a rendezvous until the receiver has taken it. Ssend waits for
// the match whatever the size. ProcNull is a valid peer that sends and
// receives nothing.
//
// Progress happens inside calls only, as in most MPI libraries: a rank
// that computes for a long time between calls delays the rendezvous of its
// peers, never their correctness. There is no background goroutine, and a
// rank waiting in a call polls and then sleeps on a futex, by the World's
// one wait policy (shmem.WaitPolicy), so jobs with more PEs than cores (8
// PEs on 2 cores) run well. Calls on one Env may come
// from several goroutines at once, blocking ones included
// (MPI_THREAD_MULTIPLE): the engine's state changes under one lock
// (enginelock.go) that a blocked call lets go while it waits; an Env made
// WithThreadMultiple runs collectives over point-to-point so that those on
// different communicators may overlap too; communicators may be created
// from different parents at once (ctxalloc.go); and Comm.Mprobe/Improbe
// take a probed message out of matching at once, the race-free probe.
//
// # Intercommunicators and communicators from groups
//
// IntercommCreate joins the groups of two disjoint communicators through
// their leaders and a peer communicator holding both; Merge makes the
// intracommunicator over both groups; IsInter, RemoteSize and RemoteGroup
// describe one. On an intercommunicator, point-to-point ranks (and a
// receive's Status.Source) name the remote group, Dup, Split, Create and
// Compare act on both groups, and every collective runs across the groups
// as MPI-4.1 §6.2.2 says: in a rooted one the root passes Root, the rest
// of its group ProcNull and the other group the root's rank there; the
// all-to-all ones give each group the other's data; Scan, Exscan and
// InPlace are errors there. Its collectives are point-to-point messages
// only (no shmem team), so DupAsync (MPI_Comm_idup) and the C library's
// nonblocking intercommunicator collectives may run them on goroutines.
// CreateGroup (MPI_Comm_create_group) is collective over the group's
// members only, as are Env.CommFromGroup and Env.IntercommFromGroups
// (MPI-4's MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups, by string tag).
//
// # Other jobs: ports, join, spawn
//
// Two jobs make an intercommunicator between their groups through a port
// (Env.OpenPort, Comm.Accept on one side, Comm.Connect with the port's
// name on the other), two processes through a connected socket
// (Env.Join), and a job through the children it starts (Comm.Spawn, under
// gshmem run; the children find theirs as Env.Parent). The other job's
// processes are reached over TCP connections of their own, authenticated
// by secrets (dynlink.go), and such an intercommunicator, and what Merge
// makes of it, works as one within the World, but for symmetric memory
// (no windows across jobs). Every wait of the meeting is bounded by
// GSHMEM_DYNPROC_TIMEOUT; a bad or closed port name is ErrPort, a spawn
// that cannot start is ErrSpawn.
//
// # Transport
//
// Each PE holds, in its symmetric heap, one mailbox ring per peer. A
// sender writes a message (a 32-byte header and the payload) straight into
// its ring in the receiver's heap and publishes it with one atomic store of
// a stamp in the header's own cache line: a put-with-signal whose signal
// travels with the data. The receiver drains its rings whenever it makes
// progress, matching each message against its posted receives, in posting
// order, or keeping it in the unexpected queue, in arrival order. Credits
// returned in the sender's control words keep a ring from overflowing.
// The rings' cursors and the queues' lengths live in the heap too
// (internal/p2pstate, reached through p2pstate.Of), outside Go's heap: the C library
// (compat/abi) sends and receives eager messages through the same rings
// without calling into Go while the queues are empty.
//
// A message above the eager limit sends only a request; the receiver, once
// it has matched it, copies the data itself, once, with no copy on the
// sender's side:
//
//   - from AllocMem memory (MPI_Alloc_mem, a pool in the symmetric heap) it
//     Gets the bytes straight from the sender's pool, between goroutine PEs
//     or processes alike;
//   - between goroutine PEs of one process it copies straight from the
//     sender's slice;
//   - between processes, from ordinary Go memory, the sender copies the data
//     through a symmetric staging area in chunks (two in flight per
//     message) that the receiver Gets: the one case with two copies.
//
// # Collectives
//
// Every communicator derived from CommWorld gets a shmem team of the same
// members, and Barrier, Bcast, Reduce, Allreduce, Allgather, Alltoall and
// ReduceScatterBlock run as the team's collectives (staged through a
// symmetric scratch area) when the type and op are OpenSHMEM's; the others
// (the v forms, Gather, Scatter, Scan, OpMaxloc, logical ops, complex and
// bool types) use point-to-point algorithms in the communicator's own
// collective context. Either way every member gets bit-for-bit the same
// result. A rank that owes its peers point-to-point progress keeps making it
// while it waits in a team collective.
//
// # GPU memory
//
// On a World whose heap is GPU memory (shmem.WithDevice), the mailboxes live
// in the heap's host area (shmem.AllocHost) and the collective scratch on
// the GPU, where the team collectives run as kernels. Allreduce, Reduce,
// Bcast, Allgather and Alltoall then take device buffers (slices over device
// addresses, as a CUDA-aware MPI takes pointers): symmetric-heap buffers at
// the same offsets on every member are used in place, other device memory is
// copied device-to-device through the scratch, host buffers host-to-device;
// members may mix them. Gather(v), Scatter(v), Allgatherv and Alltoallv
// take them too, as an exchange through the device scratch (each member
// puts its blocks into its destinations' scratch, a copy-engine or IPC
// copy, and each destination copies its slots out), and ReduceScatter(Block)
// as the device all-reduce of which each member keeps its block
// (coll_devv.go). What has no kernel takes the host path, copying device
// buffers to the host and back (coll_device.go).
//
// Point-to-point calls (Send, Recv, Isend, Irecv, Sendrecv,
// SendrecvReplace, the synchronous forms, Probe then Recv) take device
// buffers on either side too, mixed with host ones (p2p_device.go): an
// eager message is copied device-to-host into the ring and host-to-device
// out of it, through pinned bounce buffers; a larger one moves device to
// device by the copy engine in one copy, straight from the sender's buffer
// when it lies in the symmetric heap or the peer is in the same process,
// and from the sender's allocation mapped by CUDA IPC between processes
// (p2p_ipc.go); memory IPC cannot export goes through a device staging
// area in the sender's heap that the receiver reads over CUDA IPC. Only
// non-contiguous datatypes over device memory and SendrecvReplace of a
// device buffer cross the host.
//
// # Errors
//
// Every error is an *Error with an MPI error class; test it with errors.Is
// against the class sentinels (ErrTruncate, ErrRank, ErrTag, ErrCount,
// ErrType, ErrOp, ErrComm, ErrRoot, ErrGroup, ErrBuffer, ErrRequest,
// ErrArg, ErrInStatus, ErrNoMem, ErrOther) or read ClassOf(err). Bad
// arguments are reported, never a panic. An error from the runtime (a job
// that stopped while this PE waited) is ErrOther wrapping the shmem error,
// so errors.Is(err, shmem.ErrAborted) works.
//
// # Performance tests
//
// `gshmem perf` runs the OSU patterns (osu_latency's ping-pong, osu_bw's
// windows, osu_allreduce) through internal/mpibench, which uses only this
// package's API, and the package's Go benchmarks measure the same on
// in-process ranks.
package compat
