package windows

import (
	"context"
	"os"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// Layout of a window's control area, in bytes. Every PE has one in its heap.
const (
	ctrlRin     = 0  // phase-fair lock: reader ins
	ctrlRout    = 4  // reader outs
	ctrlWin     = 8  // writer tickets
	ctrlWout    = 12 // writer tickets served
	ctrlAgree   = 16 // two uint64 slots for agree
	ctrlMeta    = 32 // size, disp unit, flags, pool: four uint64
	ctrlStripes = 64 // nStripes uint32 accumulate locks
	ctrlPosted  = ctrlStripes + 4*nStripes
	// then posted[n] uint64 (Post counts from each rank) and completed[n]
	// uint64 (Complete counts from each rank)
)

func ctrlWords(n int) int { return ctrlPosted/8 + 2*n + ctrlFileWords }

// Flags every PE publishes at creation, so that all decide alike.
const (
	flagBad       = 1 << iota // this PE's arguments were invalid
	flagNoShare               // this PE cannot load/store every peer's heap
	flagSameSize              // this PE passed same_size=true
	flagSameDisp              // this PE passed same_disp_unit=true
	flagNoncontig             // this PE passed alloc_shared_noncontig=true
	flagDevice                // this PE wants the memory on the GPU (device.go)
	flagSeparate              // Create: this PE asks for (info) or needs the separate model
)

// Access states of a target, per origin.
const (
	accNone     uint8 = iota
	accOK             // an epoch is open and the target may be accessed
	accFence          // a fence opened an epoch no RMA has used yet
	accWaitPost       // in a Start epoch, the target's Post not yet seen
	accLockAll        // in a LockAll epoch, the target's shared lock not yet taken
	accOpening        // in a LockAll epoch, one thread is taking the target's shared lock (access.go)
)

const (
	fenceNone uint8 = iota
	fenceMaybe
	fenceActive
)

// seg is where a rank's window memory lives: in the data allocation of PE
// pe, from byte base, size bytes, with a displacement unit.
type seg struct {
	mem     *rmem
	pe      int
	base    int
	size    int
	unit    int
	maxDisp int // size / unit: any disp above it is out of range
}

// Win is one PE's handle on an RMA window (MPI_Win). The window spans the
// ranks of the communicator it was created over, and every rank in its
// calls is a rank of that communicator. Creation and Free are collective
// over it.
//
// A Win is not safe for concurrent use: one goroutine per PE issues its
// operations and synchronization calls (as MPI_THREAD_SERIALIZED).
type Win struct {
	comm   *compat.Comm
	pes    []int // rank -> world PE
	world  *shmem.World
	ctx    context.Context
	me, n  int
	flavor Flavor
	model  Model
	set    settings

	ctrl    shmem.Sym[uint64]
	data    shmem.Sym[byte]
	ctrlMem []rmem
	dataMem []rmem
	segs    []seg

	base   []byte   // this PE's window memory (the private copy for a separate Create)
	public []byte   // separate Create: this PE's public copy in the heap
	shadow []byte   // separate Create: the contents at the last reconciliation
	adopt  *adopted // unified Create: the heap pages this PE's buffer was moved onto
	dyn    *dynamic
	// On a World whose heap is GPU memory (device.go): devWorld, and
	// pubDev, a Create window's public copy when it is device memory.
	devWorld bool
	pubDev   uintptr

	// ep, access and locks are the epoch state every operation checks
	// first; they live in own, or in memory a binding supplied (Bind).
	ep       *epoch
	own      epoch
	access   []uint8
	locks    []uint8 // LockType held on each target, 0 if none, | lockNoCheck
	startG   []int   // ranks
	startsTo []uint64
	postG    []int
	postsTo  []uint64
	inPost   bool
	// PSCW's counters: ctrlLocal is this PE's control area (nil on a
	// device heap); posted and completed are the words this PE bumps on
	// its targets and origins.
	ctrlLocal         []uint64
	posted, completed shmem.Sym[uint64]

	agreeSeq uint64
	freed    bool
	dead     atomic.Bool
	stop     func() bool
}

// lockNoCheck marks a locks byte taken with ModeNoCheck; lockTaking is the
// byte while one thread takes or releases the target's lock (lock.go).
const (
	lockNoCheck = 0x80
	lockTaking  = 0x40
)

// Allocate creates a window over comm with size bytes of new symmetric
// memory on this PE (MPI_Win_allocate). Sizes and displacement units may
// differ between ranks: every rank reserves the largest size and remembers
// each rank's own. The memory starts zeroed; Base returns it, and Memory
// returns it as a symmetric object for streams and kernels. Collective
// over comm. The memory comes from comm.AllocSymmetric: the symmetric heap
// for a communicator of every PE, the AllocMem pools for a smaller one.
func Allocate(comm *compat.Comm, size, dispUnit int, info compat.Info) (*Win, error) {
	return create(comm, FlavorAllocate, size, dispUnit, info, nil)
}

// AllocateOf is Allocate for n elements of T, with disp unit sizeof(T);
// it also returns the memory as a []T.
func AllocateOf[T compat.Elem](comm *compat.Comm, n int, info compat.Info) (*Win, []T, error) {
	sz := int(unsafe.Sizeof(*new(T)))
	win, err := create(comm, FlavorAllocate, n*sz, sz, info, nil)
	if err != nil {
		return nil, nil, err
	}
	return win, Local[T](win), nil
}

// AllocateShared creates a window every PE can also reach by load and
// store (MPI_Win_allocate_shared); SharedQuery returns any rank's part.
// The parts are contiguous in rank order unless the info key
// alloc_shared_noncontig is true. Every rank must be able to map every
// other's heap (one node), or all fail with ErrRMAShared. Collective over
// comm.
func AllocateShared(comm *compat.Comm, size, dispUnit int, info compat.Info) (*Win, error) {
	return create(comm, FlavorShared, size, dispUnit, info, nil)
}

// Create makes a window over the caller's buffer (MPI_Win_create), in the
// unified memory model: RMA from every peer, passive target included,
// reads and writes buf itself, and stores to buf are what peers read
// (create.go says how: on process PEs the pages holding buf become heap
// pages for the window's life, so no other goroutine may store to those
// pages while Create and Free run). Info gshmem_model=separate asks for
// the separate model instead (a public copy reconciled at the
// synchronization calls, see Model), as does a buffer in GPU memory. buf
// must stay valid until Free; memory freed earlier is not touched again
// by this PE. Collective over comm.
func Create[T compat.Elem](comm *compat.Comm, buf []T, dispUnit int, info compat.Info) (*Win, error) {
	return create(comm, FlavorCreate, len(buf)*int(unsafe.Sizeof(*new(T))), dispUnit, info, mpitype.AsBytes(buf))
}

// CreateDynamic makes a window with no memory (MPI_Win_create_dynamic);
// Attach adds some. Displacements are addresses as Address returns them,
// with unit 1. The model is unified, as Create's: RMA reaches attached
// memory itself (dynamic.go says how). Every PE reserves
// gshmem_dynamic_pool bytes of heap address space (info key, default a
// sixteenth of the heap; the largest any PE asks for) for attached pages.
// Collective over comm.
func CreateDynamic(comm *compat.Comm, info compat.Info) (*Win, error) {
	return create(comm, FlavorDynamic, 0, 1, info, nil)
}

func create(comm *compat.Comm, flavor Flavor, size, unit int, info compat.Info, buf []byte) (*Win, error) {
	if comm == nil || comm.Rank() == compat.Undefined {
		return nil, errorf(compat.ClassComm, "window over a nil communicator (MPI_COMM_NULL)")
	}
	w := comm.World()
	if w.HeapOnDevice() && (flavor == FlavorShared || flavor == FlavorDynamic) {
		// The same answer on every PE of the World: no collective starts.
		return nil, errorf(compat.ClassOther, "%v windows need a host heap: this World's heap is GPU memory (GSHMEM_HEAP=device), where allocate and create windows work", flavor)
	}
	n, me := comm.Size(), comm.Rank()
	set := defaultSettings()
	var localErr error
	switch {
	case size < 0:
		localErr = errorf(compat.ClassSize, "window of %d bytes", size)
	case unit <= 0:
		localErr = errorf(compat.ClassDisp, "displacement unit %d", unit)
	default:
		localErr = set.apply(info, true)
	}
	cb, err := comm.AllocSymmetricHost(8 * ctrlWords(n))
	if err != nil {
		return nil, wrap(err, "allocating the window's control area")
	}
	ctrl, err := shmem.View[uint64](cb)
	if err != nil {
		_ = comm.FreeSymmetric(cb)
		return nil, wrap(err, "allocating the window's control area")
	}
	pes := make([]int, n)
	for r := range pes {
		pes[r] = comm.WorldRank(r)
	}
	win := &Win{comm: comm, pes: pes, world: w, ctx: w.Context(), me: me, n: n, flavor: flavor, set: set, ctrl: ctrl,
		access: wordBytes(n), locks: wordBytes(n), startsTo: make([]uint64, n),
		postsTo: make([]uint64, n), model: Unified, ctrlLocal: ctrl.Local(), devWorld: w.HeapOnDevice()}
	win.ep = &win.own
	win.posted, win.completed = ctrl.At(win.postedIdx(me)), ctrl.At(win.completedIdx(me))
	span, unified := 0, true
	if flavor == FlavorCreate && localErr == nil {
		span, unified = createSpan(w, buf)
	}
	// Until setupCreate adopts them, the pages claimed are let go on
	// every way out.
	adopting := span > 0
	defer func() {
		if adopting {
			releaseClaim(w, buf, span)
		}
	}()
	win.ctrlMem = make([]rmem, n)
	var flags uint64
	for r := range n {
		win.ctrlMem[r] = newRmem(cb, pes[r])
		if win.ctrlMem[r].mapped == nil {
			flags |= flagNoShare
		}
	}
	if localErr != nil {
		flags |= flagBad
	}
	for _, f := range []struct {
		on  bool
		bit uint64
	}{{set.sameSize, flagSameSize}, {set.sameDisp, flagSameDisp}, {set.noncontig, flagNoncontig}, {win.wantsDevice(buf), flagDevice},
		{flavor == FlavorCreate && (set.separate || !unified || w.HeapOnDevice()), flagSeparate}} {
		if f.on {
			flags |= f.bit
		}
	}
	meta := ctrl.Local()[ctrlMeta/8 : ctrlMeta/8+4]
	pool := uint64(set.pool)
	if flavor == FlavorCreate {
		pool = uint64(span) // Create has no pool: the page span it needs instead
	}
	meta[0], meta[1], meta[2], meta[3] = uint64(size), uint64(unit), flags, pool
	if err := comm.Barrier(); err != nil {
		_ = comm.FreeSymmetric(cb)
		return nil, wrap(err, "window creation")
	}
	sizes, units := make([]int, n), make([]int, n)
	var any uint64
	maxPool := 0
	for r := range n {
		var m [4]uint64
		if err := shmem.Get(m[:], ctrl.Slice(ctrlMeta/8, ctrlMeta/8+4), pes[r]); err != nil {
			return nil, wrap(err, "reading rank %d's window arguments", r)
		}
		sizes[r], units[r], maxPool = int(m[0]), int(m[1]), max(maxPool, int(m[3]))
		any |= m[2]
		if localErr == nil && m[2]&flagBad != 0 {
			localErr = errorf(compat.ClassArg, "rank %d passed invalid window arguments", r)
		}
	}
	switch {
	case localErr != nil:
	case flavor == FlavorShared && any&flagNoShare != 0:
		localErr = errorf(compat.ClassRMAShared, "some PEs cannot load and store each other's memory")
	case any&flagSameSize != 0 && slices.Min(sizes) != slices.Max(sizes):
		localErr = errorf(compat.ClassArg, "info same_size=true but sizes differ (%d..%d)", slices.Min(sizes), slices.Max(sizes))
	case any&flagSameDisp != 0 && slices.Min(units) != slices.Max(units):
		localErr = errorf(compat.ClassArg, "info same_disp_unit=true but units differ")
	}
	if localErr != nil {
		// Every rank reads every rank's flags before any frees the area.
		if err := comm.Barrier(); err != nil {
			return nil, wrap(err, "window creation")
		}
		_ = comm.FreeSymmetric(cb)
		return nil, localErr
	}
	// Settings that shape the memory are the same on every PE.
	win.set.noncontig = any&flagNoncontig != 0
	if flavor == FlavorCreate && any&flagSeparate != 0 {
		win.model = Separate
	}
	if flavor == FlavorCreate && win.model == Unified {
		// setupCreate fails alike on every PE: its allocation is
		// collective, and it agrees on any PE's failure before it returns.
		adopting = false // setupCreate owns the claim from here
		if err := win.setupCreate(sizes, units, maxPool, buf, span); err != nil {
			_ = win.freeCreate()
			if win.data.Len() > 0 {
				_ = comm.FreeSymmetric(win.data)
			}
			_ = comm.FreeSymmetric(cb)
			return nil, err
		}
	} else {
		if flavor == FlavorDynamic {
			win.set.pool, win.set.gran = dynPool(w, maxPool)
		}
		if err := win.setupData(sizes, units, buf, any&flagDevice != 0); err != nil {
			_ = comm.FreeSymmetric(cb)
			return nil, err
		}
	}
	// Nobody may reach a PE's memory before it is initialized.
	if err := comm.Barrier(); err != nil {
		return nil, wrap(err, "window creation")
	}
	win.stop = context.AfterFunc(win.ctx, func() { win.dead.Store(true) })
	return win, nil
}

func roundUp(n, k int) int { return (n + k - 1) / k * k }

func (win *Win) setupData(sizes, units []int, buf []byte, device bool) error {
	n, me := win.n, win.me
	total, largest := 0, slices.Max(sizes)
	for _, s := range sizes {
		total += s
	}
	contig := win.flavor == FlavorShared && !win.set.noncontig
	alloc := largest
	switch {
	case contig:
		alloc = total
	case win.flavor == FlavorDynamic:
		// The pool starts at a page boundary (dynamic.go).
		alloc = dynTableBytes + os.Getpagesize() + win.set.pool
	}
	alloc8 := roundUp(alloc, 8)
	var data shmem.Sym[byte]
	var err error
	if device {
		data, err = win.comm.AllocSymmetric(alloc8)
	} else {
		data, err = win.comm.AllocSymmetricHost(alloc8)
	}
	if err != nil {
		return wrap(err, "allocating %d bytes of window memory", alloc)
	}
	win.data = data
	win.dataMem = make([]rmem, n)
	for r := range n {
		win.dataMem[r] = newRmem(data, win.pes[r])
	}
	win.segs = make([]seg, n)
	off := 0
	for r := range n {
		s := seg{pe: r, size: sizes[r], unit: units[r], maxDisp: sizes[r] / units[r]}
		if contig {
			s.pe, s.base = 0, off
			off += sizes[r]
		}
		s.mem = &win.dataMem[s.pe]
		win.segs[r] = s
	}
	my := win.segs[me]
	local := win.dataMem[my.pe].mapped
	if win.devWorld && (win.dataMem[my.pe].dev != 0 || win.flavor == FlavorCreate) {
		return win.setupDevice(my, buf)
	}
	win.set.memory = MemoryHost
	switch win.flavor {
	case FlavorAllocate, FlavorShared:
		if local != nil {
			// Zeroed already (AllocSymmetric): clearing again would touch
			// every page of a window that may be gigabytes.
			win.base = local[my.base : my.base+my.size : my.base+my.size]
		}
	case FlavorCreate:
		win.base = buf
		win.public = local[:my.size:my.size]
		copy(win.public, buf)
		win.shadow = slices.Clone(buf)
	case FlavorDynamic:
		win.dyn = newDynamic(win, local)
	}
	return nil
}

// Free releases the window (MPI_Win_free). It is collective and fails on
// every PE, freeing nothing, with ErrRMASync when any PE still has an
// epoch open (a lock held, a Start or Post not completed, or a fence
// epoch in which RMA was issued). Create and dynamic windows bring their
// buffers up to date first.
func (win *Win) Free() error {
	raceSynced() // race builds: peers' copies into this memory came before
	if win == nil || win.freed {
		return errorf(compat.ClassWin, "window is nil or already freed")
	}
	if err := win.alive(); err != nil {
		return err
	}
	open := atomic.LoadInt32(&win.ep.nlocks) > 0 || win.ep.lockAll != 0 || win.ep.inStart || win.inPost || win.ep.fence == fenceActive
	ok, err := win.agree(!open)
	if err != nil {
		return err
	}
	if !ok {
		if open {
			return errorf(compat.ClassRMASync, "Free with an epoch open on this PE")
		}
		return errorf(compat.ClassRMASync, "Free with an epoch open on another PE")
	}
	win.syncAll(true, true)
	win.freed = true
	win.stop()
	win.dead.Store(true)
	// Back to the Win's own memory: a binding's may go once Free returns.
	win.own, win.ep = epoch{}, &win.own
	win.access, win.locks = wordBytes(win.n), wordBytes(win.n)
	errPages := win.freeCreate()
	if err := win.freeDynamic(); errPages == nil {
		errPages = err
	}
	err1 := win.comm.FreeSymmetric(win.data)
	err2 := win.comm.FreeSymmetric(win.ctrl.Bytes())
	if err1 != nil {
		return wrap(err1, "freeing window memory")
	}
	if errPages != nil {
		return errPages
	}
	return wrap(err2, "freeing the window's control area")
}

// agree is a collective vote: it returns whether every PE passed true.
func (win *Win) agree(mine bool) (bool, error) {
	win.agreeSeq++
	v := win.agreeSeq << 1
	if mine {
		v |= 1
	}
	idx := ctrlAgree/8 + int(win.agreeSeq&1)
	win.ctrl.Local()[idx] = v
	if err := win.comm.Barrier(); err != nil {
		return false, wrap(err, "window collective")
	}
	all := true
	for r := range win.n {
		got, err := shmem.G(win.ctrl.At(idx), win.pes[r])
		if err != nil {
			return false, wrap(err, "window collective")
		}
		if got>>1 != win.agreeSeq {
			return false, errorf(compat.ClassArg, "rank %d is in a different window call", r)
		}
		all = all && got&1 == 1
	}
	return all, nil
}

// Base returns this PE's window memory (MPI_WIN_BASE): heap memory for
// allocate and shared windows, the caller's buffer for Create, nil for
// dynamic windows.
func (win *Win) Base() []byte { return win.base }

// Local returns this PE's window memory as elements of T.
func Local[T compat.Elem](win *Win) []T {
	b := win.Base()
	sz := int(unsafe.Sizeof(*new(T)))
	if len(b) < sz {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/sz)
}

// Size returns this PE's window size in bytes (MPI_WIN_SIZE).
func (win *Win) Size() int { return win.segs[win.me].size }

// DispUnit returns this PE's displacement unit (MPI_WIN_DISP_UNIT).
func (win *Win) DispUnit() int { return win.segs[win.me].unit }

// TargetSize returns rank's window size in bytes, or -1 for a bad rank.
func (win *Win) TargetSize(rank int) int {
	if rank < 0 || rank >= win.n {
		return -1
	}
	return win.segs[rank].size
}

// TargetDispUnit returns rank's displacement unit, or -1 for a bad rank.
func (win *Win) TargetDispUnit(rank int) int {
	if rank < 0 || rank >= win.n {
		return -1
	}
	return win.segs[rank].unit
}

// Flavor returns how the window was created (MPI_WIN_CREATE_FLAVOR).
func (win *Win) Flavor() Flavor { return win.flavor }

// Model returns the memory model (MPI_WIN_MODEL).
func (win *Win) Model() Model { return win.model }

// Rank returns this PE's rank in the window.
func (win *Win) Rank() int { return win.me }

// NRanks returns the number of ranks in the window.
func (win *Win) NRanks() int { return win.n }

// Group returns the window's group (MPI_Win_get_group): the group of the
// communicator it was created over.
func (win *Win) Group() (*compat.Group, error) { return win.comm.Group() }

// Comm returns the communicator the window was created over.
func (win *Win) Comm() *compat.Comm { return win.comm }

// PE returns the world PE number of rank, or -1 for a bad rank: the PE to
// name in shmem, streams and kernels calls on the window's Memory.
func (win *Win) PE(rank int) int {
	if rank < 0 || rank >= win.n {
		return -1
	}
	return win.pes[rank]
}

// World returns the World the window belongs to.
func (win *Win) World() *shmem.World { return win.world }

// Info returns the info keys in effect (MPI_Win_get_info).
func (win *Win) Info() compat.Info { return win.set.info() }

// SetInfo changes info keys (MPI_Win_set_info): no_locks,
// accumulate_ordering and accumulate_ops; the others only at creation.
func (win *Win) SetInfo(info compat.Info) error {
	s := win.set
	if err := s.apply(info, false); err != nil {
		return err
	}
	win.set = s
	return nil
}

// SharedQuery returns rank's part of a shared window (MPI_Win_shared_query):
// its memory, which this PE may load and store, its size and disp unit.
// ProcNull gives the lowest rank with a non-empty part.
func (win *Win) SharedQuery(rank int) ([]byte, int, int, error) {
	if win.flavor != FlavorShared {
		return nil, 0, 0, errorf(compat.ClassRMAFlavor, "SharedQuery on %s window", withArticle(win.flavor.String()))
	}
	if err := win.alive(); err != nil {
		return nil, 0, 0, err
	}
	if rank == compat.ProcNull {
		rank = 0
		for rank < win.n-1 && win.segs[rank].size == 0 {
			rank++
		}
	}
	if rank < 0 || rank >= win.n {
		return nil, 0, 0, errorf(compat.ClassRank, "rank %d of %d", rank, win.n)
	}
	s := win.segs[rank]
	m := s.mem.mapped
	return m[s.base : s.base+s.size : s.base+s.size], s.size, s.unit, nil
}

// SharedSlice is SharedQuery with the memory as elements of T.
func SharedSlice[T compat.Elem](win *Win, rank int) ([]T, error) {
	b, _, _, err := win.SharedQuery(rank)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	sz := int(unsafe.Sizeof(*new(T)))
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/sz), nil
}

// Memory returns the memory of an allocate-flavor window as a symmetric
// object: the stage 2 -> 3 seam. Every rank's window memory starts at the
// same offset of its PE's heap, so a stream or a kernel can put into and
// signal any rank's part directly (shmem.Put, streams.PutOnStream, ...,
// naming the rank's world PE, PE(rank)). The object is as long as the
// largest rank's window; a rank's own part is its first Size() bytes.
// RMA through the object bypasses the window's epochs: order it against
// window operations with the window's synchronization calls (Fence,
// Flush, Unlock) on the one side and the stream's (Quiet, a wait) on the
// other. Other flavors fail with ErrRMAFlavor (their memory is not
// symmetric: the caller's for Create and dynamic windows, one block for a
// shared window).
func (win *Win) Memory() (shmem.Sym[byte], error) {
	if err := win.check(); err != nil {
		return shmem.Sym[byte]{}, err
	}
	if win.flavor != FlavorAllocate {
		return shmem.Sym[byte]{}, errorf(compat.ClassRMAFlavor, "Memory of %s window: only allocate windows have symmetric memory", withArticle(win.flavor.String()))
	}
	largest := 0
	for _, s := range win.segs {
		largest = max(largest, s.size)
	}
	return win.data.Slice(0, largest), nil
}

// MemoryOf is Win.Memory typed as elements of T (the window's memory must
// be a whole number of them, which AllocateOf guarantees).
func MemoryOf[T compat.Elem](win *Win) (shmem.Sym[T], error) {
	m, err := win.Memory()
	if err != nil {
		return shmem.Sym[T]{}, err
	}
	s, err := shmem.View[T](m)
	return s, wrap(err, "window memory as %v", mpitype.Of[T]())
}
