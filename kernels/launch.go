package kernels

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

var (
	// ErrBadLaunch: a grid or block shape that cannot be launched (empty,
	// more than MaxThreadsPerBlock threads per block, a cooperative grid
	// larger than MaxCooperativeThreads).
	ErrBadLaunch = errors.New("kernels: invalid launch configuration")
	// ErrNotCooperative: a grid barrier or grid-scope call in a launch that
	// is neither cooperative nor collective.
	ErrNotCooperative = errors.New("kernels: grid synchronization needs a cooperative or collective launch")
	// ErrNotCollective: a device-side BarrierAll or SyncAll in a launch that
	// is not collective.
	ErrNotCollective = errors.New("kernels: device-side barrier across PEs needs a collective launch")
	// ErrNoWorld: a device call that needs the PE's World (Quiet, Fence,
	// BarrierAll) in a launch without one.
	ErrNoWorld = errors.New("kernels: the launch has no World (launch on a stream, collectively, or WithWorld)")
)

// MaxCooperativeThreads bounds the grid of a cooperative or collective
// launch, whose blocks must all run at once.
const MaxCooperativeThreads = 16384

// residentThreads bounds how many threads of an ordinary launch run at
// once: blocks beyond it wait for a running block to finish, as blocks wait
// for a free multiprocessor on a GPU.
const residentThreads = 1024

// KernelError is the error of a launch in which a thread failed: a device
// call returned an error (it aborts the kernel, as a device-side trap
// does), the thread panicked or called Trap, or a wait was canceled.
type KernelError struct {
	Kernel string // the launch's name
	Block  Dim3   // the failing thread's block index
	Thread Dim3   // and thread index
	Op     string // the device call, e.g. "PutBlock", or "panic"
	Err    error
}

func (e *KernelError) Error() string {
	return fmt.Sprintf("kernels: kernel %q, block %v, thread %v: %s: %v", e.Kernel, e.Block, e.Thread, e.Op, e.Err)
}

func (e *KernelError) Unwrap() error { return e.Err }

type config struct {
	name        string
	world       *shmem.World
	ctx         context.Context
	cooperative bool
	collective  bool
}

// Option configures a launch.
type Option func(*config)

// WithName names the kernel in errors.
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithWorld gives the kernel a PE: Thread.World, Quiet, Fence and the
// waits' end when the World stops. A launch on a stream, or a collective
// launch, has its World already.
func WithWorld(w *shmem.World) Option { return func(c *config) { c.world = w } }

// WithContext bounds a launch (Launch, CollectiveLaunch): when ctx ends,
// waiting threads give up and the launch fails. A launch on a stream is
// bounded by the stream (Stream.Cancel).
func WithContext(ctx context.Context) Option { return func(c *config) { c.ctx = ctx } }

// Cooperative makes every block of the grid run at once, as
// cudaLaunchCooperativeKernel: threads may then synchronize the whole grid
// (Thread.SyncGrid) and use grid scope.
func Cooperative() Option { return func(c *config) { c.cooperative = true } }

// Launch runs fn once for every thread of a grid of grid blocks of block
// threads each, on goroutines, and returns when every thread has returned:
// nil, or a *KernelError for the first thread that failed.
func Launch(grid, block Dim3, fn func(t *Thread), opts ...Option) error {
	c := buildConfig(opts)
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return run(ctx, c, grid, block, fn)
}

// LaunchOnStream issues the kernel on s, as kernel<<<grid, block, 0, s>>>:
// it runs after the work issued on s before it and before the work issued
// after it, and the call returns at once. A failure fails the stream and
// is reported by s.Synchronize. Stream.Cancel ends the kernel's waits.
func LaunchOnStream(s *streams.Stream, grid, block Dim3, fn func(t *Thread), opts ...Option) {
	c := buildConfig(opts)
	c.world = s.World()
	s.Enqueue(opName(c), func(ctx context.Context) error { return run(ctx, c, grid, block, fn) })
}

// CollectiveLaunch is the collective launch of NVSHMEM
// (nvshmemx_collective_launch): every PE calls it, every block of each
// PE's grid runs at once, and the threads may call BarrierAll and SyncAll
// to synchronize with the kernels of the other PEs, as well as SyncGrid.
// It returns when this PE's grid has finished.
func CollectiveLaunch(w *shmem.World, grid, block Dim3, fn func(t *Thread), opts ...Option) error {
	c := buildConfig(opts)
	c.world, c.cooperative, c.collective = w, true, true
	ctx := c.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return run(ctx, c, grid, block, fn)
}

// CollectiveLaunchOnStream is CollectiveLaunch issued on a stream.
func CollectiveLaunchOnStream(s *streams.Stream, grid, block Dim3, fn func(t *Thread), opts ...Option) {
	c := buildConfig(opts)
	c.world, c.cooperative, c.collective = s.World(), true, true
	s.Enqueue(opName(c), func(ctx context.Context) error { return run(ctx, c, grid, block, fn) })
}

func buildConfig(opts []Option) config {
	c := config{name: "kernel"}
	for _, o := range opts {
		o(&c)
	}
	return c
}

func opName(c config) string {
	if c.collective {
		return "CollectiveLaunch " + c.name
	}
	return "Launch " + c.name
}

// launch is the state of one running grid.
type launch struct {
	cfg          config
	grid, block  Dim3
	nblocks      int
	blockThreads int
	ctx          context.Context
	cancel       context.CancelCauseFunc
	gridBar      *barrier // cooperative launches

	mu       sync.Mutex
	err      error
	barriers []*barrier // to release when the launch aborts
	stopped  bool
	done     atomic.Bool // the launch's context has ended (cheaper than ctx.Err)
}

// track registers barriers to release on abort (or releases them at once
// if the launch has already stopped).
func (l *launch) track(bs ...*barrier) {
	l.mu.Lock()
	stopped := l.stopped
	if !stopped {
		l.barriers = append(l.barriers, bs...)
	}
	l.mu.Unlock()
	if stopped {
		for _, b := range bs {
			b.abort()
		}
	}
}

// stop releases every barrier: the launch's context has ended.
func (l *launch) stop() {
	l.done.Store(true)
	l.mu.Lock()
	l.stopped = true
	bs := l.barriers
	l.barriers = nil
	l.mu.Unlock()
	for _, b := range bs {
		b.abort()
	}
}

func run(ctx context.Context, c config, grid, block Dim3, fn func(t *Thread)) error {
	if !grid.valid() || !block.valid() {
		return fmt.Errorf("%w: grid %v, block %v", ErrBadLaunch, grid, block)
	}
	l := &launch{cfg: c, grid: grid.norm(), block: block.norm(), nblocks: grid.Count(), blockThreads: block.Count()}
	if l.blockThreads > MaxThreadsPerBlock {
		return fmt.Errorf("%w: %d threads per block (at most %d)", ErrBadLaunch, l.blockThreads, MaxThreadsPerBlock)
	}
	if l.nblocks == 0 || l.blockThreads == 0 {
		return fmt.Errorf("%w: empty grid %v of blocks %v", ErrBadLaunch, grid, block)
	}
	total := l.nblocks * l.blockThreads
	if c.cooperative && total > MaxCooperativeThreads {
		return fmt.Errorf("%w: cooperative grid of %d threads (at most %d run at once)", ErrBadLaunch, total, MaxCooperativeThreads)
	}
	if c.collective && c.world == nil {
		return fmt.Errorf("%w: collective launch without a World", ErrBadLaunch)
	}
	l.ctx, l.cancel = context.WithCancelCause(ctx)
	defer l.cancel(nil)
	stopBarriers := context.AfterFunc(l.ctx, l.stop)
	defer stopBarriers()
	if w := c.world; w != nil {
		stop := context.AfterFunc(w.Context(), func() {
			l.cancel(fmt.Errorf("%w: the World stopped", shmem.ErrAborted))
		})
		defer stop()
	}
	if c.cooperative {
		l.gridBar = newBarrier(total)
		l.track(l.gridBar)
	}

	resident := l.nblocks
	if !c.cooperative {
		resident = max(1, min(l.nblocks, residentThreads/l.blockThreads))
	}
	sem := make(chan struct{}, resident)
	var wg sync.WaitGroup
	for b := range l.nblocks {
		select {
		case sem <- struct{}{}:
		case <-l.ctx.Done():
		}
		if l.ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			l.runBlock(b, fn)
		}()
	}
	wg.Wait()
	if l.err == nil && l.ctx.Err() != nil {
		// Canceled before every block started.
		return causeError(l.ctx)
	}
	return l.err
}

// block is the shared state of one block.
type block struct {
	idx   Dim3
	rank  int
	bar   *barrier
	warps []*barrier
}

func (l *launch) runBlock(b int, fn func(t *Thread)) {
	blk := &block{idx: l.grid.index(b), rank: b, bar: newBarrier(l.blockThreads)}
	nw := (l.blockThreads + WarpSize - 1) / WarpSize
	blk.warps = make([]*barrier, nw)
	for i := range nw {
		blk.warps[i] = newBarrier(min(WarpSize, l.blockThreads-i*WarpSize))
	}
	l.track(blk.bar)
	l.track(blk.warps...)
	threads := make([]Thread, l.blockThreads)
	var wg sync.WaitGroup
	for i := range threads {
		t := &threads[i]
		*t = Thread{l: l, blk: blk, rank: i, idx: l.block.index(i)}
		if i == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.run(fn)
		}()
	}
	threads[0].run(fn)
	wg.Wait()
}

// run runs the kernel body for one thread and turns its end (return,
// abort, panic) into the barriers' leave and the launch's error.
func (t *Thread) run(fn func(t *Thread)) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(abortSignal); !ok {
				t.record("panic", fmt.Errorf("%v\n%s", r, debug.Stack()))
			}
		}
		t.blk.warps[t.rank/WarpSize].leave()
		t.blk.bar.leave()
		if t.l.gridBar != nil {
			t.l.gridBar.leave()
		}
	}()
	fn(t)
}

// abortSignal unwinds a thread of an aborted launch.
type abortSignal struct{}

// record sets the launch's error (the first one wins) and stops the launch.
func (t *Thread) record(op string, err error) {
	l := t.l
	l.mu.Lock()
	if l.err == nil {
		l.err = &KernelError{Kernel: l.cfg.name, Block: t.blk.idx, Thread: t.idx, Op: op, Err: err}
	}
	l.mu.Unlock()
	l.cancel(err)
}

// fail records a failed device call and unwinds the thread.
func (t *Thread) fail(op string, err error) {
	t.record(op, err)
	panic(abortSignal{})
}

// aborted unwinds a thread whose launch has stopped: silently when another
// thread's failure stopped it, as a failure of op otherwise (cancellation).
func (t *Thread) aborted(op string) {
	t.l.mu.Lock()
	failed := t.l.err != nil
	t.l.mu.Unlock()
	if failed {
		panic(abortSignal{})
	}
	t.fail(op, causeError(t.l.ctx))
}

// causeError is the error of a launch whose context ended.
func causeError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, streams.ErrCanceled) || errors.Is(cause, shmem.ErrAborted) {
		return cause
	}
	if errors.Is(cause, context.Canceled) || errors.Is(cause, context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", shmem.ErrAborted, cause)
	}
	return cause
}
