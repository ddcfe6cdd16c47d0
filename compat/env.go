package compat

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"math/bits"
	"os"
	"strconv"
	"sync"

	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gshmem/gshmem/compat/internal/p2pstate"
	"github.com/gshmem/gshmem/internal/settings"
	"github.com/gshmem/gshmem/shmem"
)

// Env is one PE's MPI environment: what MPI_Init sets up. It owns the
// point-to-point mailboxes in the symmetric heap, the matching queues and
// the communicators. Init makes one in a process started by `gshmem run`;
// New makes one over an existing World (for example one of shmem.Run's).
//
// Calls on one Env may come from several goroutines at once, blocking
// ones included (MPI_THREAD_MULTIPLE): the engine's state changes under
// one lock, and a blocked call lets it go while it waits. Collectives on
// different communicators may overlap only on an Env made
// WithThreadMultiple. Progress happens only inside calls: there is no
// background goroutine.
type Env struct {
	w    *shmem.World
	down *uint32 // the job's loss word (shmem.World.DownWord), nil if none
	own  bool    // made by Init: Finalize finalizes w
	cfg  config

	mu engineMutex // guards everything below that is not atomic (enginelock.go)
	// multiple: WithThreadMultiple, calls may overlap in any way.
	multiple bool

	drive drivenSet // driven requests in flight (request_drive.go)

	me, n     int
	ctrl      shmem.Sym[uint64] // per-PE control words (ctrlWords)
	ctrlMine  []uint64
	rings     shmem.Sym[byte] // n inbound rings: ring s holds messages from PE s
	ringMine  []byte
	ringCells uint64 // cells per ring, a power of two
	staging   shmem.Sym[byte]
	stageMine []byte
	pool      shmem.Sym[byte]
	poolMine  []byte
	poolAlloc allocator
	scratch   shmem.Sym[byte] // collective scratch, same offset everywhere
	scratchAs [numBasic]any   // scratch as shmem.Sym[T] of each reducible Basic
	// scratchMine is this PE's scratch, nil when it is device memory (dev:
	// the World's heap is on a GPU, coll_device.go).
	scratchMine []byte
	dev         bool

	peers      []peer
	pubSym     shmem.Sym[uint64] // the published state's memory (p2pstate)
	pub        *p2pstate.Engine
	posted     []*Request          // posted receives, in posting order
	unexpected []*inMsg            // arrived, unmatched messages, in arrival order
	sends      map[uint64]*Request // rendezvous sends awaiting CTS, chunk acks or FIN
	recvs      map[uint64]*Request // staged receives awaiting chunks
	nextID     uint64
	freeChunks []int
	// devStage is the device staging area of a device World (nil Sym
	// otherwise), freeDevChunks its free chunks (p2p_device.go).
	devStage      shmem.Sym[byte]
	freeDevChunks []int
	stalled       []*Request // staged sends waiting for a free chunk
	stagedSends   int        // staged sends not yet complete
	teamComms     []*Comm    // communicators holding a shmem team, in creation order
	spareRecv     *Request   // the request of the next blocking Recv

	// Lock-free view for idle waiters.
	creditWatch []atomic.Uint64 // per peer: credit seen when a send blocked, 0 if none
	completions atomic.Uint64
	count       counters     // what tools read (stats.go)
	parked      int          // goroutines idle outside mu (guarded by mu)
	mine        shmem.Mapped // this PE's heap: wake wakes its idle goroutines

	world, self *Comm
	// nextCtx is one above every context id this PE has taken; read and
	// written only by the agreement holding ctxa (ctxalloc.go).
	nextCtx uint32
	ctxa    ctxAlloc
	// asyncNext is DupAsync's nextCtx (its contexts start at asyncBase),
	// read and written only by the agreement holding asynca.
	asyncNext uint32
	asynca    ctxAlloc
	closed    atomic.Bool

	dyn    dynState // other jobs' processes (dynlink.go)
	parent *Comm    // MPI_Comm_get_parent's intercommunicator (spawn.go)

	excuseMu sync.Mutex
	excused  []int // world PEs this PE agreed to go on without (ulfm.go)

	// The communicators by context, and the contexts whose kRevoke came
	// before their communicator was made here (revoke.go).
	byCtx, earlyRevokes sync.Map
}

type config struct {
	ringBytes, eagerLimit  int
	stagingBytes, chunk    int
	poolBytes, scratchSize int
	shmemOpts              []shmem.Option
	noDirect               bool // tests: reach peers through shmem calls only, as over a network
	devV                   bool // tests: the v-collectives take a device World's exchange on a host World too
	poolDefault            bool // poolBytes and scratchSize follow the heap's size
	scratchDefault         bool
	multiple               bool // WithThreadMultiple
	err                    error
}

// Option configures an Env. Each has a GSHMEM_MPI_* variable; an Option
// wins over the environment. Every PE must use the same values.
type Option func(*config)

// WithThreadMultiple makes an Env for callers whose calls may overlap in
// any way, blocking ones included (MPI_THREAD_MULTIPLE; the ABI's
// MPI_Init_thread asks for it, so it has no GSHMEM_MPI_* variable).
// Every PE must pass it alike. Calls on any Env are safe from several
// goroutines at once (the engine's one lock, enginelock.go); what this
// changes is the collectives: the shmem team collectives share one
// scratch area and one team per communicator tree, so with this option
// every communicator runs its collectives over point-to-point, in its own
// collective context, and collectives on different communicators may run
// at once from different goroutines.
func WithThreadMultiple() Option { return func(c *config) { c.multiple = true } }

// WithRingSize sets the bytes of each per-pair mailbox ring
// (GSHMEM_MPI_RING_SIZE, default 64k; rounded up to a power of two, at
// least 4k). Every PE holds one ring per peer.
func WithRingSize(n int) Option { return func(c *config) { c.ringBytes = n } }

// WithEagerLimit sets the largest message sent eagerly through the ring
// (GSHMEM_MPI_EAGER_LIMIT, default 8k, at most half the ring); larger
// messages use the get-based rendezvous.
func WithEagerLimit(n int) Option { return func(c *config) { c.eagerLimit = n } }

// WithStaging sets the symmetric staging area for rendezvous between
// processes from buffers outside AllocMem memory, and its chunk size
// (GSHMEM_MPI_STAGING, default 1m in chunks of 256k).
func WithStaging(bytes, chunk int) Option {
	return func(c *config) { c.stagingBytes, c.chunk = bytes, chunk }
}

// WithPoolSize sets the symmetric memory AllocMem hands out
// (GSHMEM_MPI_POOL_SIZE, default an eighth of the heap, at most 256m).
func WithPoolSize(n int) Option { return func(c *config) { c.poolBytes = n } }

// WithScratchSize sets the symmetric scratch area through which
// collectives on shmem teams are staged (GSHMEM_MPI_SCRATCH, at least 4k;
// default a 32nd of the heap, 64k to 1m, and on a device heap a 16th of
// it, 64k to 256m, in GPU memory); larger collectives run in pieces of it.
func WithScratchSize(n int) Option { return func(c *config) { c.scratchSize = n } }

// WithShmemOptions passes options to shmem.Init (Init only).
func WithShmemOptions(opts ...shmem.Option) Option {
	return func(c *config) { c.shmemOpts = append(c.shmemOpts, opts...) }
}

// envSize reads the size variable name through its row of the settings
// table, which range-checks it and names it in the error.
func envSize(name string, dst *int, c *config) {
	n, ok, err := settings.Get(name).Size(os.Getenv)
	if err != nil {
		c.err = errorf(ClassArg, "%v", err)
	} else if ok {
		*dst = int(n)
	}
}

func buildConfig(opts []Option, heap uint64, npes int) (config, error) {
	var c config
	envSize("GSHMEM_MPI_RING_SIZE", &c.ringBytes, &c)
	envSize("GSHMEM_MPI_EAGER_LIMIT", &c.eagerLimit, &c)
	envSize("GSHMEM_MPI_STAGING", &c.stagingBytes, &c)
	envSize("GSHMEM_MPI_POOL_SIZE", &c.poolBytes, &c)
	envSize("GSHMEM_MPI_SCRATCH", &c.scratchSize, &c)
	for _, name := range []string{"GSHMEM_MPI_WTIME", "GSHMEM_MPI_FT"} {
		if _, err := settings.Get(name).Choice(os.Getenv); err != nil && c.err == nil {
			c.err = errorf(ClassArg, "%v", err)
		}
	}
	for _, o := range opts {
		o(&c)
	}
	if c.err != nil {
		return c, c.err
	}
	if c.ringBytes == 0 {
		c.ringBytes = 64 << 10
	}
	if c.ringBytes < 4096 || c.ringBytes > 1<<30 {
		return c, errorf(ClassArg, "ring size %d: want 4k to 1g", c.ringBytes)
	}
	c.ringBytes = 1 << bits.Len(uint(c.ringBytes-1))
	if c.eagerLimit == 0 {
		c.eagerLimit = min(8<<10, c.ringBytes/8)
	}
	if c.eagerLimit < 0 || c.eagerLimit > c.ringBytes/2-hdrSize-cell {
		return c, errorf(ClassArg, "eager limit %d: want 0 to %d for rings of %d bytes", c.eagerLimit, c.ringBytes/2-hdrSize-cell, c.ringBytes)
	}
	if c.chunk == 0 {
		c.chunk = 256 << 10
	}
	if c.stagingBytes == 0 {
		c.stagingBytes = 1 << 20
	}
	if c.chunk < 4096 || c.stagingBytes < c.chunk {
		return c, errorf(ClassArg, "staging of %d bytes in chunks of %d: want chunks of at least 4k and room for one", c.stagingBytes, c.chunk)
	}
	c.chunk = (c.chunk + cell - 1) &^ (cell - 1)
	c.stagingBytes = c.stagingBytes / c.chunk * c.chunk
	if c.poolBytes == 0 {
		c.poolDefault = true
		c.poolBytes = int(min(heap/8, 256<<20))
	}
	if c.poolBytes < 0 {
		return c, errorf(ClassArg, "pool size %d", c.poolBytes)
	}
	c.poolBytes &^= cell - 1
	if c.scratchSize == 0 {
		c.scratchDefault = true
		c.scratchSize = int(min(max(heap/32, 64<<10), 1<<20))
	}
	if c.scratchSize < 4096 {
		return c, errorf(ClassArg, "collective scratch of %d bytes: want at least 4k", c.scratchSize)
	}
	c.scratchSize &^= cell - 1
	if err := heapFits(c, heap, npes); err != nil {
		return c, err
	}
	return c, nil
}

// procToken identifies this process: peers with the same token share an
// address space, and a rendezvous between them copies straight from the
// sender's buffer.
var procToken = func() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}()

// Init joins the job this process was started in (shmem.Init) and sets up
// MPI on it, as MPI_Init. Finalize then finalizes both.
func Init(ctx context.Context, opts ...Option) (*Env, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	w, err := shmem.Init(ctx, c.shmemOpts...)
	if err != nil {
		return nil, wrap(err, "shmem.Init")
	}
	e, err := New(w, opts...)
	if err != nil {
		_ = w.Finalize()
		return nil, err
	}
	e.own = true
	return e, nil
}

// New sets up MPI over an existing World. It is collective: every PE of w
// calls it, with the same options. Finalize releases what it allocated
// and leaves w running.
func New(w *shmem.World, opts ...Option) (*Env, error) {
	if w == nil {
		return nil, errorf(ClassArg, "New: nil World")
	}
	cfg, err := buildConfig(opts, w.Options().SymmetricSize, w.NPEs())
	if err == nil && w.HeapOnDevice() {
		err = deviceConfig(&cfg, opts, w)
	}
	if err != nil {
		return nil, err
	}
	e := &Env{w: w, down: w.DownWord(), cfg: cfg, me: w.MyPE(), n: w.NPEs(), nextCtx: 2, asyncNext: asyncBase, dev: w.HeapOnDevice(), multiple: cfg.multiple,
		sends: map[uint64]*Request{}, recvs: map[uint64]*Request{}}
	if err := e.allocate(); err != nil {
		return nil, err
	}
	e.mu.word = &e.pub.Lock // from here on, the lock C may take too
	e.mine = w.Mapped(e.me)
	all := make([]int, e.n)
	for i := range all {
		all[i] = i
	}
	e.world = &Comm{env: e, ctx: 0, group: newGroup(all, e.me), name: "MPI_COMM_WORLD"}
	e.self = &Comm{env: e, ctx: 1, group: newGroup([]int{e.me}, e.me), name: "MPI_COMM_SELF"}
	e.world.init()
	e.self.init()
	if !e.multiple {
		e.world.coll.team = w.TeamWorld()
	}
	e.register(e.world)
	e.register(e.self)
	if err := e.connectParent(); err != nil {
		return nil, err
	}
	return e, nil
}

// allocate reserves the symmetric objects and learns which peers share
// this process.
func (e *Env) allocate() (err error) {
	w, c := e.w, e.cfg
	fail := func(what string, err error) error {
		return wrap(err, "New: allocating %s", what)
	}
	// The mailboxes, the staging area and the pool are read and written
	// by the host: on a World whose heap is GPU memory they go to its host
	// area. The collective scratch goes where the heap is: on a GPU, the
	// team collectives run there as kernels (coll_device.go).
	if e.ctrl, err = shmem.CallocHost[uint64](w, ctrlWords(e.n)); err != nil {
		return fail("control words", err)
	}
	if e.rings, err = shmem.CallocHost[byte](w, e.n*c.ringBytes); err != nil {
		return fail("mailbox rings", err)
	}
	if e.staging, err = shmem.AllocHost[byte](w, c.stagingBytes); err != nil {
		return fail("rendezvous staging", err)
	}
	if e.pool, err = shmem.AllocHost[byte](w, c.poolBytes); err != nil {
		return fail("AllocMem pool", err)
	}
	if e.scratch, err = shmem.Alloc[byte](w, c.scratchSize); err != nil {
		return fail("collective scratch", err)
	}
	if w.HeapOnDevice() {
		// Rendezvous between processes from device buffers outside the
		// heap go through here, device to device (p2p_device.go).
		if e.devStage, err = shmem.Alloc[byte](w, c.stagingBytes); err != nil {
			return fail("device rendezvous staging", err)
		}
		for i := range c.stagingBytes / c.chunk {
			e.freeDevChunks = append(e.freeDevChunks, i)
		}
	}
	// The published state is private to this PE; it is in the symmetric
	// heap (every PE asks for the same size) because that memory is
	// outside Go's heap, so C may hold its address (the host area of a
	// device heap: C reads it).
	if e.pubSym, err = shmem.CallocHost[uint64](w, p2pstate.Words(e.n)); err != nil {
		return fail("engine state", err)
	}
	if e.scratchAs, err = scratchViews(e.scratch); err != nil {
		return fail("collective scratch", err)
	}
	e.ctrlMine, e.ringMine = e.ctrl.Local(), e.rings.Local()
	e.scratchMine = e.scratch.Local()
	pubMine := e.pubSym.Local()
	if e.ctrlMine == nil || e.ringMine == nil || pubMine == nil || (e.scratchMine == nil && !w.HeapOnDevice()) {
		for _, f := range []func() error{func() error { return shmem.Free(e.pubSym) }, func() error { return freeIfAny(e.devStage) },
			func() error { return shmem.Free(e.scratch) }, func() error { return shmem.Free(e.pool) },
			func() error { return shmem.Free(e.staging) }, func() error { return shmem.Free(e.rings) }, func() error { return shmem.Free(e.ctrl) }} {
			_ = f()
		}
		return errorf(ClassOther, "New: the mailboxes have no host view")
	}
	e.stageMine, e.poolMine = e.staging.Local(), e.pool.Local()
	e.poolAlloc.init(c.poolBytes)
	e.ringCells = uint64(c.ringBytes / cell)
	for i := range c.stagingBytes / c.chunk {
		e.freeChunks = append(e.freeChunks, i)
	}
	atomic.StoreUint64(&e.ctrlMine[tokenIdx], procToken)
	if err := w.BarrierAll(); err != nil {
		return wrap(err, "New: barrier")
	}
	e.peers = make([]peer, e.n)
	e.creditWatch = make([]atomic.Uint64, e.n)
	var curs []p2pstate.Peer
	e.pub, curs = p2pstate.At(pubMine, e.n)
	*e.pub = p2pstate.Engine{RingCells: e.ringCells, EagerLimit: uint64(c.eagerLimit),
		RingMine: uintptr(unsafe.Pointer(&e.ringMine[0])), CtrlMine: uintptr(unsafe.Pointer(&e.ctrlMine[0])),
		Me: int32(e.me), N: int32(e.n)}
	for p := range e.peers {
		pr := &e.peers[p]
		pr.cur = &curs[p]
		tok, err := shmem.Load(e.ctrl.At(tokenIdx), p)
		if err != nil {
			return wrap(err, "New: reading PE %d's token", p)
		}
		pr.sameProc = tok == procToken && !c.noDirect
		if c.noDirect {
			continue
		}
		if r := shmem.Ptr(e.rings, p); r != nil {
			pr.ring = r[e.me*c.ringBytes : (e.me+1)*c.ringBytes]
			touchPages(pr.ring)
		}
		pr.ctrl = shmem.Ptr(e.ctrl, p)
		pr.mem = w.Mapped(p) // valid where Ptr gave ring and ctrl
		if pr.ring != nil && pr.ctrl != nil {
			pr.cur.RingOut = uintptr(unsafe.Pointer(&pr.ring[0]))
			pr.cur.CtrlPeer = uintptr(unsafe.Pointer(&pr.ctrl[0]))
			// The heap starts with its doorbell, the control words are
			// ctrl's offset into it.
			pr.cur.HeapPeer = pr.cur.CtrlPeer - uintptr(e.ctrl.Offset())
		}
	}
	return nil
}

// touchPages maps every page of a peer's ring into this process now: the
// first message into each page would otherwise take a page fault (16 of
// them over a default ring's first lap, a tenth of those messages' time).
// The loads are atomic because the peer may already be writing.
func touchPages(b []byte) {
	ps := os.Getpagesize()
	for off := 0; off < len(b); off += ps {
		atomic.LoadUint64(word(b, off))
	}
}

// World returns the World the Env runs on.
func (e *Env) World() *shmem.World { return e.w }

// CommWorld returns MPI_COMM_WORLD: every PE, ranked by PE number.
func (e *Env) CommWorld() *Comm { return e.world }

// CommSelf returns MPI_COMM_SELF: this PE alone.
func (e *Env) CommSelf() *Comm { return e.self }

// EagerLimit returns the largest message sent eagerly.
func (e *Env) EagerLimit() int { return e.cfg.eagerLimit }

// Abort stops every PE of the job with code (MPI_Abort).
func (e *Env) Abort(code int) { e.w.GlobalExit(code) }

// Finalize is MPI_Finalize: collective over every PE, and over the
// processes of other jobs still connected to this one (MPI-4.1 §11.10.4;
// dynclose.go). Every request must be complete. It waits for every PE, releases the mailboxes and, when
// Init made the World, finalizes it. Calls afterwards fail with ErrComm.
func (e *Env) Finalize() error {
	if e.closed.Load() {
		return errorf(ClassOther, "Finalize: already finalized")
	}
	if len(e.world.lostMembers()) > 0 || e.world.Revoked() {
		return e.finalizeSurvivors()
	}
	// Collective over connected processes too (dynclose.go): the other
	// jobs' processes hear of it before the barrier, and are waited for
	// after it.
	linked := e.announceFinalize()
	err := e.world.Barrier()
	if cl := ClassOf(err); cl == ClassProcFailed || cl == ClassRevoked {
		return e.finalizeSurvivors() // lost (or revoked) while the others finalize
	}
	if err == nil {
		err = wrap(e.awaitFinalize(linked), "Finalize: waiting for the connected jobs")
	}
	for len(e.teamComms) > 0 && err == nil {
		c := e.teamComms[0]
		c.freed.Store(true)
		err = c.releaseTeam()
	}
	e.closed.Store(true)
	e.closeLinks()
	if e.dev {
		e.w.ReleaseDeviceImports() // peers' device buffers mapped by CUDA IPC (p2p_ipc.go)
	}
	for _, f := range []func() error{
		func() error { return shmem.Free(e.scratch) }, func() error { return shmem.Free(e.pool) },
		func() error { return shmem.Free(e.staging) }, func() error { return shmem.Free(e.rings) },
		func() error { return shmem.Free(e.ctrl) }, func() error { return shmem.Free(e.pubSym) },
		func() error { return freeIfAny(e.devStage) },
	} {
		if err == nil {
			err = wrap(f(), "Finalize: freeing")
		}
	}
	if e.own {
		err = errors.Join(err, wrap(e.w.Finalize(), "Finalize"))
	}
	return err
}

var epoch = time.Now()

// Wtime returns seconds since an arbitrary point of this process, from a
// monotonic clock (MPI_Wtime; not synchronized between PEs).
func Wtime() float64 { return time.Since(epoch).Seconds() }

// Wtick returns the resolution of Wtime in seconds (MPI_Wtick).
func Wtick() float64 { return 1e-9 }

func (e *Env) String() string { return "compat.Env(PE " + strconv.Itoa(e.me) + ")" }
