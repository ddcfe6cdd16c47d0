package shmem

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
	"github.com/gshmem/gshmem/shmem/internal/heap"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Layout of the control area at the start of every heap. The allocator
// hands out memory only above it.
const (
	pageSize     = 4096
	ctrlSize     = pageSize
	allocSlotOff = doorbell.Size // two 64-byte lines: Alloc's agreement (alloc.go)
	minHeap      = 64 << 10
)

// World is one PE's handle on a job: its rank, its heap and the transport to
// its peers. Init returns it in a process; Run passes one to each goroutine
// PE. There is no global state, so several worlds can share a process.
//
// RMA, atomics and waits may be called from several goroutines of one PE at
// once. Collective calls (Alloc, Free, BarrierAll, SyncAll, Finalize) must be
// made by one goroutine per PE, in the same order on every PE.
type World struct {
	pe, npes int
	opts     Options
	boot     bootstrap.Bootstrap
	tr       transport.Transport
	heap     []byte
	alloc    *heap.Allocator
	objs     objTable
	ctx      context.Context
	cancel   context.CancelFunc
	aborted  <-chan struct{}
	log      *logrus.Entry
	waiter   doorbell.Waiter // the wait policy (policy.go)
	cpuOf    []int           // crowded pinned node: each PE's CPU, -1 off the node (placePeers)
	pairSpin int             // polls for a partner on another CPU of a crowded node (placePeers)
	stopRing func() bool     // ends the ring of w.heap when ctx ends (before the heap goes)
	ringMu   sync.Mutex      // held by that ring; teardown takes it once closed is set
	closed   atomic.Bool
	job      *transport.Job     // process PEs: how each peer is reached
	live     transport.Liveness // who is lost, from the transport made at Init (nil for goroutine PEs)
	group    *runGroup          // goroutine PEs of one Run: who has finalized (nil for process PEs)
	bootWhy  string             // why this bootstrap was chosen

	// collMu serializes the collectives that streams and kernels issue on
	// this PE from their own goroutines (CollectiveLock).
	collMu sync.Mutex

	// Collective state, touched only by the PE's collective-calling goroutine.
	allocSeq uint64
	logFile  *os.File
	teams    teamPool     // team slots and the predefined teams (team.go)
	dev      deviceDomain // the GPU heap when GSHMEM_HEAP=device (device.go), else nil

	// A device World's host area (hostarea.go): its allocator and the
	// transport of the host heap underneath. nil otherwise.
	hostArea  *heap.Allocator
	hostTr    transport.Transport
	objsByOff map[uint64]objRef // live objects of the main allocator by offset, for DeviceSym and HeapSym
	// heapShared: the heap is a memfd mapped shared (a process PE), so
	// its pages can be mapped twice (AdoptPages) and freed by MADV_REMOVE.
	heapShared bool
}

// CollectiveLock returns the lock that serializes the collective
// operations issued on this PE's behalf by goroutines other than the one
// calling its collectives (streams' operations, kernels' launches): a PE's
// collectives share state in its World (barrier epochs, the allocation
// sequence) and must not run at once. Holding it keeps that state intact;
// it does not make PEs that issue collectives in different orders agree.
func (w *World) CollectiveLock() *sync.Mutex { return &w.collMu }

// MyPE returns this PE's number, 0..NPEs()-1.
func (w *World) MyPE() int { return w.pe }

// NPEs returns the number of PEs in the job.
func (w *World) NPEs() int { return w.npes }

// Options returns the configuration in effect.
func (w *World) Options() Options { return w.opts }

// BootstrapName says how the job was started ("inproc", "local", "pmi",
// "pmi2", "env", "singleton").
func (w *World) BootstrapName() string { return w.boot.Name() }

// Context is cancelled when the World is finalized or the job aborts.
func (w *World) Context() context.Context { return w.ctx }

// Logger returns the PE's logger (quiet unless GSHMEM_DEBUG is set).
func (w *World) Logger() logrus.FieldLogger { return w.log }

// Init joins the job this process was started in: under `gshmem run`,
// mpiexec.hydra (PMI-1 or PMI-2), srun --mpi=pmi2 or any launcher plus
// GSHMEM_BOOTSTRAP_ADDR (see GSHMEM_BOOTSTRAP); started alone it is a job
// of one PE. PEs that can share memory (proved by handing the heap's memfd
// over a unix socket) use load/store; the others are reached over tcp. ctx
// bounds setup and, for the World's lifetime, every wait: cancelling it
// makes pending and future waits fail with ErrAborted.
func Init(ctx context.Context, opts ...Option) (*World, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := transport.CheckRemote(o.RemoteTransport); err != nil {
		if errors.Is(err, errors.ErrUnsupported) {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	setup, cancelSetup := context.WithTimeout(ctx, o.BootstrapTimeout)
	defer cancelSetup()
	secret := []byte(os.Getenv("GSHMEM_JOB_SECRET"))
	tl := logrus.New()
	tl.SetLevel(logrus.ErrorLevel)
	bc := bootstrap.Config{Name: o.Bootstrap, Addr: o.BootstrapAddr, Secret: secret,
		Logf: tl.WithField("pe", 0).Errorf} // only rank 0 of the env bootstrap logs
	getenv := os.Getenv
	if o.uid != nil {
		if bc, getenv, err = o.uid.config(bc, getenv); err != nil {
			return nil, err
		}
		secret = bc.Secret
	}
	boot, why, err := bootstrap.Open(setup, bc, getenv)
	if err != nil {
		if errors.Is(err, bootstrap.ErrUnknown) {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return nil, fmt.Errorf("shmem: %w", err)
	}
	host, _ := os.Hostname()
	nodeID := strings.NewReplacer("%r", strconv.Itoa(boot.Rank()), "%h", host).Replace(o.NodeID)
	job, err := transport.Connect(setup, transport.Config{
		Rank: boot.Rank(), Size: boot.Size(), HeapSize: o.SymmetricSize, Allgather: boot.Allgather,
		NodeID: nodeID, Secret: secret, TCPAddr: o.TCPAddr, PeerTimeout: o.PeerTimeout,
		Remote: o.RemoteTransport, Log: tl.WithField("pe", boot.Rank()),
	})
	if err != nil {
		_ = boot.Close()
		if errors.Is(err, unix.ENOMEM) {
			// The heap's mapping is what runs out: name what sized it.
			err = fmt.Errorf("%w (the symmetric heap, %s, is %d bytes per PE: is it meant to be that large?)", err, o.sizeFrom, o.SymmetricSize)
		}
		return nil, bootLost(fmt.Errorf("shmem: PE %d connecting to its peers (bootstrap %s): %w", boot.Rank(), boot.Name(), err))
	}
	boot = bootstrap.WithNode(boot, job.LocalRank, job.LocalSize)
	shareCPUs(job.LocalSize)
	cpu, allowed, bindErr := bindCPU(o.Bind, job.LocalRank, job.LocalSize)
	w, err := newWorld(ctx, o, boot, job.Transport, job.Heap, nil)
	if err != nil {
		_ = job.Transport.Close()
		_ = boot.Close()
		return nil, err
	}
	if bindErr != nil {
		w.log.Warnf("GSHMEM_BIND=%s: could not pin PE %d to a CPU: %v", o.Bind, w.pe, bindErr)
	} else if cpu >= 0 {
		w.log.Debugf("PE %d (local rank %d of %d) pinned to CPU %d", w.pe, job.LocalRank, job.LocalSize, cpu)
		w.placePeers(allowed, job.Node, job.LocalSize)
	}
	w.job, w.bootWhy = job, why
	job.Transport.SetLog(w.log)
	if err := w.attachDevice(setup); err != nil {
		_ = w.teardown()
		return nil, err
	}
	if err := boot.Barrier(setup); err != nil {
		_ = w.teardown()
		return nil, bootLost(fmt.Errorf("shmem: PE %d waiting for every PE to reach its peers: %w", w.pe, err))
	}
	w.log.Debugf("initialized: %d PEs on %d nodes, bootstrap %s (%s), heap %d bytes", w.npes, job.Nodes(), boot.Name(), why, o.SymmetricSize)
	if w.pe == 0 {
		warnMisspelled(os.Stderr)
	}
	return w, nil
}

// bootLost makes a setup error that a departed PE caused (the bootstrap's
// ErrLost) wrap ErrPeerLost too, as it would after Init.
func bootLost(err error) error {
	if errors.Is(err, bootstrap.ErrLost) && !errors.Is(err, ErrPeerLost) {
		return fmt.Errorf("%w: %w", ErrPeerLost, err)
	}
	return err
}

func newWorld(ctx context.Context, o Options, boot bootstrap.Bootstrap, tr transport.Transport, mem []byte, aborted <-chan struct{}) (*World, error) {
	w := &World{
		pe: boot.Rank(), npes: boot.Size(), opts: o, boot: boot, tr: tr, heap: mem,
		alloc:   heap.New(ctrlSize, o.SymmetricSize-ctrlSize),
		aborted: aborted,
		// Host heaps are memfds mapped shared, a process PE's
		// (transport.Connect) and a goroutine PE's (transport.MapAnon).
		heapShared: true,
	}
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.live, _ = tr.(transport.Liveness)
	if aborted != nil {
		// The World's context ends when the job aborts, so that waits built
		// on the context (streams, kernels) end with the runtime's own.
		go func() {
			select {
			case <-aborted:
				w.cancel()
			case <-w.ctx.Done():
			}
		}()
	}
	if err := w.setupLog(); err != nil {
		return nil, err
	}
	w.waiter = ChooseWaitPolicy(boot.LocalSize(), runtime.NumCPU(), boot.Name() != "inproc", o.Spin).waiter()
	w.shareSpin()
	// A sleeping waiter learns at once that the World ended.
	w.stopRing = context.AfterFunc(w.ctx, func() {
		w.ringMu.Lock()
		defer w.ringMu.Unlock()
		if !w.closed.Load() {
			doorbell.Ring(w.heap, true)
		}
	})
	if err := w.initTeams(); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *World) setupLog() error {
	l := logrus.New()
	l.SetLevel(logrus.ErrorLevel)
	if w.opts.Debug != "" {
		lvl, err := logrus.ParseLevel(w.opts.Debug)
		if err != nil {
			return fmt.Errorf("%w: GSHMEM_DEBUG=%q: want warn, info, debug or trace", ErrInvalid, w.opts.Debug)
		}
		l.SetLevel(lvl)
	}
	if f := w.opts.DebugFile; f != "" {
		host, _ := os.Hostname()
		name := strings.NewReplacer("%p", strconv.Itoa(os.Getpid()), "%r", strconv.Itoa(w.pe), "%h", host).Replace(f)
		fh, err := openDebugFile(name)
		if err != nil {
			return err
		}
		w.logFile = fh
		l.SetOutput(fh)
	}
	w.log = l.WithField("pe", w.pe)
	return nil
}

// openDebugFile opens the log for appending. The name is often in a shared
// directory such as /tmp, so a symlink planted there by another user is
// refused rather than followed, and a new file is readable by its owner
// only: the log names addresses and sockets of the job.
func openDebugFile(name string) (*os.File, error) {
	fd, err := unix.Open(name, unix.O_CREAT|unix.O_WRONLY|unix.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, fmt.Errorf("%w: GSHMEM_DEBUG_FILE=%s is a symbolic link; it is not followed (name the file itself)", ErrInvalid, name)
		}
		return nil, fmt.Errorf("%w: GSHMEM_DEBUG_FILE=%s: %w", ErrInvalid, name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// check returns why the World cannot wait any longer, or nil.
func (w *World) check() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	select {
	case <-w.aborted:
		return errf(ErrAborted, "PE %d: another PE stopped the job", w.pe)
	case <-w.ctx.Done():
		return errf(ErrAborted, "PE %d: %v", w.pe, w.ctx.Err())
	default:
	}
	if w.live != nil {
		return w.live.Lost() // wraps ErrPeerLost once any peer died
	}
	if w.group != nil {
		return w.group.lost(w.pe, w.opts.PeerTimeout)
	}
	return nil
}

// Finalize leaves the job. It is collective: it completes this PE's
// operations, waits for every PE and releases the heap. Calls on the World
// afterwards return ErrFinalized.
func (w *World) Finalize() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	busy := w.runFinalizeChecks()
	err := w.BarrierAll()
	if err == nil && w.group != nil {
		w.group.leave(w.pe)
	}
	if err2 := w.teardown(); err == nil {
		err = err2
	}
	return errors.Join(busy, err)
}

// FinalizeSurvivors is Finalize for a PE of a job that lost PEs which a
// layer above has agreed with the other survivors to go on without
// (ExcuseLost): Finalize's barrier over every PE can never complete, so it
// completes this PE's operations (Quiet; puts to lost PEs are not
// reported) and leaves without it. The caller must have synchronized the
// survivors first (compat's MPI_Finalize agrees with them over
// point-to-point messages). It returns ErrInvalid for goroutine PEs
// (Run), which cannot go on after a loss.
func (w *World) FinalizeSurvivors() error {
	if w.closed.Load() {
		return ErrFinalized
	}
	if w.live == nil {
		return errf(ErrInvalid, "FinalizeSurvivors: this World's transport does not report losses (goroutine PEs): Finalize")
	}
	busy := w.runFinalizeChecks()
	err := w.Quiet()
	if errors.Is(err, ErrPeerLost) {
		err = nil // puts to a lost PE: nothing more to tell
	}
	return errors.Join(busy, err, w.teardown())
}

func (w *World) teardown() error {
	if w.closed.Swap(true) {
		return nil
	}
	w.stopRing()
	w.ringMu.Lock() // a ring under way ends before the heap goes
	w.ringMu.Unlock()
	w.cancel()
	err := errors.Join(w.tr.Close(), w.boot.Close())
	if w.logFile != nil {
		_ = w.logFile.Close()
	}
	return err
}

// GlobalExit stops every PE of the job with the exit status code, as
// shmem_global_exit. A process PE exits; the launcher stops the others. A
// goroutine PE (Run) stops: the other PEs' waits fail with ErrAborted and Run
// returns an *ExitError (nil for code 0).
func (w *World) GlobalExit(code int) {
	w.log.Warnf("global exit with code %d", code)
	_ = w.boot.Abort(code, fmt.Sprintf("PE %d called GlobalExit(%d)", w.pe, code))
	if w.boot.Name() == "inproc" {
		runtime.Goexit()
	}
	os.Exit(code)
}

// Run runs fn as n PEs, each a goroutine of this process with its own World
// and heap, with the semantics of n processes. It returns when every PE has
// returned. When a PE fails (returns an error or panics) or calls GlobalExit,
// the others' waits fail with ErrAborted, as a launcher would stop them.
// Each World is finalized after its fn returns.
func Run(n int, fn func(w *World) error, opts ...Option) error {
	return RunContext(context.Background(), n, fn, opts...)
}

// RunContext is Run with a context that cancels every PE's waits.
func RunContext(ctx context.Context, n int, fn func(w *World) error, opts ...Option) error {
	if n < 1 {
		return errf(ErrInvalid, "Run with %d PEs", n)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return err
	}
	heaps := make([][]byte, n)
	defer func() {
		for _, h := range heaps {
			if h != nil {
				_ = transport.Unmap(h)
			}
		}
	}()
	for i := range heaps {
		if heaps[i], err = transport.MapAnon(o.SymmetricSize); err != nil {
			return fmt.Errorf("shmem: reserving %d bytes of heap for PE %d: %w", o.SymmetricSize, i, err)
		}
	}
	g := bootstrap.NewGroup(n)
	rg := new(runGroup)
	errs := make([]error, n)
	exited := make([]bool, n)
	var wg sync.WaitGroup
	for pe := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[pe] = runPE(ctx, o, g, rg, pe, heaps, fn, &exited[pe])
			if errs[pe] != nil && !exited[pe] {
				_ = g.PE(pe).Abort(1, errs[pe].Error())
			}
		}()
	}
	wg.Wait()
	return collectErrors(g, errs, exited)
}

func runPE(ctx context.Context, o Options, g *bootstrap.Group, rg *runGroup, pe int, heaps [][]byte, fn func(*World) error, exited *bool) (err error) {
	w, err := newWorld(ctx, o, g.PE(pe), transport.NewShm(heaps, nil), heaps[pe], g.Aborted())
	if err != nil {
		return err
	}
	w.group = rg
	if err := w.attachDevice(ctx); err != nil {
		_ = w.teardown()
		return err
	}
	normal := false
	defer func() {
		if !normal {
			if r := recover(); r != nil {
				err = fmt.Errorf("shmem: PE %d panicked: %v", pe, r)
			} else if err == nil {
				*exited = true // runtime.Goexit from GlobalExit
			}
		}
		if err == nil && !*exited {
			err = w.Finalize()
		} else {
			_ = w.teardown()
		}
	}()
	err = fn(w)
	normal = true
	if err != nil {
		err = fmt.Errorf("PE %d: %w", pe, err)
	}
	return err
}

func collectErrors(g *bootstrap.Group, errs []error, exited []bool) error {
	for pe, ex := range exited {
		if ex {
			code, _ := g.ExitCode()
			if code == 0 {
				return nil
			}
			return &ExitError{PE: pe, Code: code}
		}
	}
	var real []error
	for _, e := range errs {
		if e != nil && !errors.Is(e, ErrAborted) {
			real = append(real, e)
		}
	}
	if len(real) == 0 {
		return errors.Join(errs...)
	}
	return errors.Join(real...)
}

// shareCPUs gives a process PE its share of the node's CPUs unless the
// GOMAXPROCS variable says otherwise. Go's idle scheduler threads spin
// before they park; in a PE that waits for a peer they take the CPU that
// peer needs to answer (4 PEs on 2 CPUs: barriers 3 to 4 times slower).
func shareCPUs(localPEs int) {
	if os.Getenv("GOMAXPROCS") == "" && localPEs > 1 {
		runtime.GOMAXPROCS(max(1, runtime.NumCPU()/localPEs))
	}
}
