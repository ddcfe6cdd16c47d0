package kernels

import (
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// The device-side API: what kernel threads call, after NVSHMEM's device
// library. Every call takes a Scope first: the thread itself (t), its warp
// (t.Warp()), its block (t.Block()) or the grid (t.Grid()), which maps to
// NVSHMEM's nvshmem_X, nvshmemx_X_warp and nvshmemx_X_block. A call that
// fails aborts the kernel (see Thread.Trap) and the launch reports which
// call failed in which thread; device calls therefore return no error.

// split returns the part [lo, hi) of n elements that rank of size handles.
func split(n, rank, size int) (int, int) {
	return rank * n / size, (rank + 1) * n / size
}

type result struct {
	v   any
	err error
}

// transfer runs an RMA call at scope sc: part moves elements [lo, hi) and
// after (may be nil) runs once, when every part is done (the signal of a
// put-with-signal). A blocking call (wait) returns in every thread when the
// whole transfer is done, which costs a group barrier; a non-blocking one
// returns as soon as the thread's own share is issued, and its after runs
// in whichever thread finishes its share last, so it costs no barrier.
func transfer(sc Scope, op string, n int, wait bool, part func(lo, hi int) error, after func() error) {
	t, bar, rank, size := group(op, sc)
	name := op + scopeSuffix[sc.scopeKind()]
	if bar == nil {
		if err := part(0, n); err != nil {
			t.fail(name, err)
		}
		if after != nil {
			if err := after(); err != nil {
				t.fail(name, err)
			}
		}
		return
	}
	if t.l.done.Load() {
		t.aborted(name)
	}
	lo, hi := split(n, rank, size)
	var perr error
	if hi > lo || rank == 0 {
		// Rank 0 also makes an empty transfer so that bad arguments are
		// reported even for zero elements.
		perr = part(lo, hi)
	}
	if !wait {
		if perr != nil {
			t.fail(name, perr)
		}
		if after != nil && bar.finish(t.nextSeq(sc.scopeKind()), size) {
			if err := after(); err != nil {
				t.fail(name, err)
			}
		}
		return
	}
	if perr != nil {
		t.record(name, perr)
	}
	ok := bar.wait(func() {
		var err error
		if after != nil && !t.l.done.Load() {
			err = after()
			if err != nil {
				t.record(name, err)
			}
		}
		bar.slot = result{err: err}
	})
	if !ok || perr != nil {
		t.aborted(name)
	}
	if r := bar.slot.(result); r.err != nil {
		panic(abortSignal{})
	}
}

// single runs fn once for the group of sc (by the last thread to arrive)
// and returns its result to every thread of the group.
func single[R any](sc Scope, op string, fn func(t *Thread) (R, error)) R {
	t, bar, _, _ := group(op, sc)
	name := op + scopeSuffix[sc.scopeKind()]
	if bar == nil {
		v, err := fn(t)
		if err != nil {
			t.fail(name, err)
		}
		return v
	}
	ok := bar.wait(func() {
		v, err := fn(t)
		if err != nil {
			t.record(name, err)
		}
		bar.slot = result{v: v, err: err}
	})
	if !ok {
		t.aborted(name)
	}
	r := bar.slot.(result)
	if r.err != nil {
		panic(abortSignal{})
	}
	return r.v.(R)
}

// Put copies src into dst on PE pe (nvshmem_put, _warp, _block): at group
// scope each thread copies its share. It returns, in every thread of the
// group, when all of src may be reused.
func Put[T any](sc Scope, dst shmem.Sym[T], src []T, pe int) {
	transfer(sc, "Put", len(src), true, func(lo, hi int) error {
		return shmem.Put(dst.Slice(lo, hi), src[lo:hi], pe)
	}, nil)
}

// PutNBI starts a put (nvshmem_put_nbi): complete after Quiet, and src
// must not change until then. At group scope each thread returns once its
// own share is issued, without waiting for the others.
func PutNBI[T any](sc Scope, dst shmem.Sym[T], src []T, pe int) {
	transfer(sc, "PutNBI", len(src), false, func(lo, hi int) error {
		return shmem.PutNBI(dst.Slice(lo, hi), src[lo:hi], pe)
	}, nil)
}

// Get copies len(dst) elements of src on PE pe into dst (nvshmem_get): at
// group scope each thread fetches its share and every thread returns with
// all of dst filled.
func Get[T any](sc Scope, dst []T, src shmem.Sym[T], pe int) {
	transfer(sc, "Get", len(dst), true, func(lo, hi int) error {
		return shmem.Get(dst[lo:hi], src.Slice(lo, hi), pe)
	}, nil)
}

// GetNBI starts a get (nvshmem_get_nbi): dst is filled after Quiet (at
// group scope, after a Quiet at that scope or a barrier of the group).
func GetNBI[T any](sc Scope, dst []T, src shmem.Sym[T], pe int) {
	transfer(sc, "GetNBI", len(dst), false, func(lo, hi int) error {
		return shmem.GetNBI(dst[lo:hi], src.Slice(lo, hi), pe)
	}, nil)
}

// PutSignal puts src into dst on PE pe and then updates its signal word
// (nvshmem_put_signal): at group scope the threads copy their shares and
// the signal is sent once, after all of them.
func PutSignal[T any](sc Scope, dst shmem.Sym[T], src []T, sig shmem.Sym[uint64], value uint64, op shmem.SignalOp, pe int) {
	putSignal(sc, "PutSignal", true, dst, src, sig, value, op, pe)
}

// PutSignalNBI is the non-blocking PutSignal (nvshmem_put_signal_nbi): at
// group scope each thread returns once its share is issued, and the thread
// that finishes last sends the signal, so it costs no group barrier.
func PutSignalNBI[T any](sc Scope, dst shmem.Sym[T], src []T, sig shmem.Sym[uint64], value uint64, op shmem.SignalOp, pe int) {
	putSignal(sc, "PutSignalNBI", false, dst, src, sig, value, op, pe)
}

func putSignal[T any](sc Scope, name string, wait bool, dst shmem.Sym[T], src []T, sig shmem.Sym[uint64], value uint64, op shmem.SignalOp, pe int) {
	if sc.scopeKind() == threadScope {
		t := sc.scopeThread()
		if err := shmem.PutSignal(dst, src, sig, value, op, pe); err != nil {
			t.fail(name, err)
		}
		return
	}
	transfer(sc, name, len(src), wait, func(lo, hi int) error {
		return shmem.PutNBI(dst.Slice(lo, hi), src[lo:hi], pe)
	}, func() error {
		w := dst.World()
		if w == nil {
			return shmem.SignalOpAt(sig, value, op, pe) // reports the bad object
		}
		if err := w.Fence(); err != nil {
			return err
		}
		return shmem.SignalOpAt(sig, value, op, pe)
	})
}

// P writes one element on PE pe (nvshmem_p).
func P[T any](sc Scope, dst shmem.Sym[T], v T, pe int) {
	single(sc, "P", func(*Thread) (struct{}, error) { return struct{}{}, shmem.P(dst, v, pe) })
}

// G reads one element from PE pe (nvshmem_g).
func G[T any](sc Scope, src shmem.Sym[T], pe int) T {
	return single(sc, "G", func(*Thread) (T, error) { return shmem.G(src, pe) })
}

// SignalOp updates the signal word sig on PE pe (nvshmemx_signal_op).
func SignalOp(sc Scope, sig shmem.Sym[uint64], value uint64, op shmem.SignalOp, pe int) {
	single(sc, "SignalOp", func(*Thread) (struct{}, error) { return struct{}{}, shmem.SignalOpAt(sig, value, op, pe) })
}

// SignalWaitUntil waits until this PE's signal word satisfies the
// comparison and returns its value (nvshmem_signal_wait_until). The wait
// ends, failing the kernel, when the launch is canceled.
func SignalWaitUntil(sc Scope, sig shmem.Sym[uint64], cmp shmem.Cmp, value uint64) uint64 {
	return single(sc, "SignalWaitUntil", func(t *Thread) (uint64, error) {
		if err := waitWords(t, sig, nil, cmp, value); err != nil {
			return 0, err
		}
		return shmem.SignalFetch(sig)
	})
}

// WaitUntil waits until the first element of ivar on this PE satisfies
// "ivar cmp value" (nvshmem_wait_until).
func WaitUntil[T shmem.Integer](sc Scope, ivar shmem.Sym[T], cmp shmem.Cmp, value T) {
	single(sc, "WaitUntil", func(t *Thread) (struct{}, error) {
		return struct{}{}, waitWords(t, ivar.Slice(0, min(1, ivar.Len())), nil, cmp, value)
	})
}

// WaitUntilAll waits until every element of ivars not excluded by status
// satisfies the comparison (nvshmem_wait_until_all).
func WaitUntilAll[T shmem.Integer](sc Scope, ivars shmem.Sym[T], status []int, cmp shmem.Cmp, value T) {
	single(sc, "WaitUntilAll", func(t *Thread) (struct{}, error) {
		return struct{}{}, waitWords(t, ivars, status, cmp, value)
	})
}

func waitWords[T shmem.Integer](t *Thread, ivars shmem.Sym[T], status []int, cmp shmem.Cmp, value T) error {
	if ivars.Len() == 0 {
		_, err := shmem.Test(ivars, cmp, value) // the core names what is wrong
		if err != nil {
			return err
		}
	}
	// The World's one wait policy; a write into this PE's heap through the
	// core wakes the thread, and ending the launch ends the wait.
	ctx := t.l.ctx
	err := ivars.World().AwaitContext(ctx, shmem.AnyPE, func() (bool, error) { return shmem.TestAll(ivars, status, cmp, value) })
	if err != nil && ctx.Err() != nil {
		return causeError(ctx)
	}
	return err
}

func (t *Thread) world(op string) *shmem.World {
	w := t.l.cfg.world
	if w == nil {
		t.fail(op, ErrNoWorld)
	}
	return w
}

// Quiet completes every put, get, atomic and signal this PE issued
// (nvshmem_quiet).
func Quiet(sc Scope) {
	w := sc.scopeThread().world("Quiet")
	single(sc, "Quiet", func(*Thread) (struct{}, error) { return struct{}{}, w.Quiet() })
}

// Fence orders this PE's puts, atomics and signals to each target
// (nvshmem_fence).
func Fence(sc Scope) {
	w := sc.scopeThread().world("Fence")
	single(sc, "Fence", func(*Thread) (struct{}, error) { return struct{}{}, w.Fence() })
}

// BarrierAll is the device-side barrier across PEs (nvshmem_barrier_all):
// it completes this PE's operations and waits until every PE's kernel has
// reached it. It needs a collective launch, and is made once per PE: by
// one thread (thread scope), by every thread of one block (block scope),
// or by every thread of the grid (grid scope). Like a host collective it
// is not interrupted by cancellation, only by the end of the World.
func BarrierAll(sc Scope) {
	w := collectiveWorld(sc, "BarrierAll")
	single(sc, "BarrierAll", func(*Thread) (struct{}, error) { return struct{}{}, lockedCollective(w, w.BarrierAll) })
}

// SyncAll is BarrierAll without completing outstanding operations
// (nvshmem_sync_all).
func SyncAll(sc Scope) {
	w := collectiveWorld(sc, "SyncAll")
	single(sc, "SyncAll", func(*Thread) (struct{}, error) { return struct{}{}, lockedCollective(w, w.SyncAll) })
}

// lockedCollective runs a collective of w's PE under the lock that keeps
// the PE's streams and kernels from running collectives at the same time.
func lockedCollective(w *shmem.World, fn func() error) error {
	mu := streams.CollectiveLock(w)
	mu.Lock()
	defer mu.Unlock()
	return fn()
}

func collectiveWorld(sc Scope, op string) *shmem.World {
	t := sc.scopeThread()
	if !t.l.cfg.collective {
		t.fail(op+scopeSuffix[sc.scopeKind()], ErrNotCollective)
	}
	return t.l.cfg.world
}
