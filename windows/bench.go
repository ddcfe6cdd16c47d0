package windows

import (
	"errors"
	"strconv"
	"time"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// SyncMode is the epoch pattern of OSU's one-sided benchmarks
// (osu_put_latency -s ...), for `gshmem perf win_*` and the Go benchmarks.
type SyncMode string

// The synchronization modes.
const (
	SyncFlush      SyncMode = "flush"       // Lock(shared) once; per epoch: ops, Flush
	SyncFlushLocal SyncMode = "flush_local" // Lock(shared) once; per epoch: ops, FlushLocal
	SyncLock       SyncMode = "lock"        // per epoch: Lock(shared), ops, Unlock
	SyncLockAll    SyncMode = "lock_all"    // per epoch: LockAll, ops, UnlockAll
	SyncFence      SyncMode = "fence"       // per epoch: ops, Fence on every PE
	SyncPSCW       SyncMode = "pscw"        // origin: Start, ops, Complete; target: Post, Wait
)

// SyncModes lists the modes in the order perf tables show them.
var SyncModes = []SyncMode{SyncFlush, SyncFlushLocal, SyncLock, SyncLockAll, SyncFence, SyncPSCW}

// ParseSyncMode reads a mode name.
func ParseSyncMode(s string) (SyncMode, error) {
	for _, m := range SyncModes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", errorf(compat.ClassArg, "sync mode %q: want flush, flush_local, lock, lock_all, fence or pscw", s)
}

// BenchWindow is a window of a given flavor with size bytes of memory on
// every PE, set up for a perf test: Buf is this PE's memory and Disp(t)
// names byte 0 of target t's memory (disp unit 1; an attach address for a
// dynamic window).
type BenchWindow struct {
	Win   *Win
	Buf   []byte
	disps []int
	env   *compat.Env
}

// NewBenchWindow creates a BenchWindow over an MPI environment of its own
// on w, spanning every PE. Collective.
func NewBenchWindow(w *shmem.World, flavor Flavor, size int) (*BenchWindow, error) {
	env, err := compat.New(w)
	if err != nil {
		return nil, err
	}
	b, err := newBenchWindow(env.CommWorld(), flavor, size)
	if err != nil {
		_ = env.Finalize()
		return nil, err
	}
	b.env = env
	return b, nil
}

func newBenchWindow(comm *compat.Comm, flavor Flavor, size int) (*BenchWindow, error) {
	b := &BenchWindow{disps: make([]int, comm.Size())}
	var err error
	w := comm
	switch flavor {
	case FlavorAllocate:
		b.Win, err = Allocate(w, size, 1, nil)
	case FlavorShared:
		b.Win, err = AllocateShared(w, size, 1, compat.Info{InfoAllocSharedNoncont: "true"})
	case FlavorCreate:
		b.Buf = make([]byte, size)
		b.Win, err = Create(w, b.Buf, 1, nil)
	case FlavorDynamic:
		b.Win, err = CreateDynamic(w, compat.Info{InfoDynamicPool: strconv.Itoa(size + 64)})
	default:
		return nil, errorf(compat.ClassArg, "flavor %v", flavor)
	}
	if err != nil {
		return nil, err
	}
	if flavor != FlavorDynamic {
		if flavor != FlavorCreate {
			b.Buf = b.Win.Base()
		}
		return b, nil
	}
	b.Buf = make([]byte, max(size, 1))
	if err := Attach(b.Win, b.Buf); err != nil {
		return nil, err
	}
	addrs := make([]int64, comm.Size())
	if err := compat.Allgather(comm, []int64{int64(Address(b.Buf))}, 1, compat.Int64, addrs, 1, compat.Int64); err != nil {
		return nil, wrap(err, "exchanging attach addresses")
	}
	for r, a := range addrs {
		b.disps[r] = int(a)
	}
	return b, nil
}

// Disp returns the displacement of byte 0 of target's memory.
func (b *BenchWindow) Disp(target int) int { return b.disps[target] }

// Free releases the window. Collective.
func (b *BenchWindow) Free() error {
	if b.Win.Flavor() == FlavorDynamic {
		if err := Detach(b.Win, b.Buf); err != nil {
			return err
		}
	}
	err := b.Win.Free()
	if b.env != nil {
		err = errors.Join(err, b.env.Finalize())
	}
	return err
}

// Pattern drives the epochs of one sync mode between an origin and a
// target, one epoch at a time, so that a perf harness can time each epoch
// itself: Open once on every PE, then per epoch Epoch on the origin and
// Serve on every other PE (the target waits in pscw, every PE fences in
// fence mode; Serve does nothing otherwise), then Close once on every PE.
type Pattern struct {
	win              *Win
	mode             SyncMode
	origin, target   int
	originG, targetG *compat.Group // PSCW's groups, made once
}

// NewPattern returns the pattern of mode from origin to target on win.
func NewPattern(win *Win, mode SyncMode, origin, target int) (*Pattern, error) {
	if _, err := ParseSyncMode(string(mode)); err != nil {
		return nil, err
	}
	if origin < 0 || origin >= win.n || target < 0 || target >= win.n {
		return nil, errorf(compat.ClassRank, "origin %d, target %d of %d ranks", origin, target, win.n)
	}
	g, err := win.Group()
	if err != nil {
		return nil, err
	}
	p := &Pattern{win: win, mode: mode, origin: origin, target: target}
	if p.originG, err = g.Incl([]int{origin}); err != nil {
		return nil, err
	}
	if p.targetG, err = g.Incl([]int{target}); err != nil {
		return nil, err
	}
	return p, nil
}

// Open starts the pattern: the origin's lock in the flush modes, the
// first fence on every PE in fence mode.
func (p *Pattern) Open() error {
	switch {
	case p.mode == SyncFence:
		return p.win.Fence(ModeNoPrecede)
	case (p.mode == SyncFlush || p.mode == SyncFlushLocal) && p.win.me == p.origin:
		return p.win.Lock(LockShared, p.target, 0)
	}
	return nil
}

// Epoch runs one epoch on the origin: ops (the operations to time, issued
// to the target) inside the mode's synchronization.
func (p *Pattern) Epoch(ops func() error) error {
	win := p.win
	switch p.mode {
	case SyncFlush, SyncFlushLocal:
		if err := ops(); err != nil {
			return err
		}
		if p.mode == SyncFlush {
			return win.Flush(p.target)
		}
		return win.FlushLocal(p.target)
	case SyncLock:
		if err := win.Lock(LockShared, p.target, 0); err != nil {
			return err
		}
		if err := ops(); err != nil {
			return err
		}
		return win.Unlock(p.target)
	case SyncLockAll:
		if err := win.LockAll(0); err != nil {
			return err
		}
		if err := ops(); err != nil {
			return err
		}
		return win.UnlockAll()
	case SyncFence:
		if err := ops(); err != nil {
			return err
		}
		return win.Fence(0)
	default: // pscw
		if p.target == p.origin {
			if err := win.Post(p.originG, 0); err != nil {
				return err
			}
		}
		if err := win.Start(p.targetG, 0); err != nil {
			return err
		}
		if err := ops(); err != nil {
			return err
		}
		if err := win.Complete(); err != nil {
			return err
		}
		if p.target == p.origin {
			return win.Wait()
		}
		return nil
	}
}

// Serve is the part of one epoch of a PE other than the origin.
func (p *Pattern) Serve() error {
	switch {
	case p.mode == SyncFence:
		return p.win.Fence(0)
	case p.mode == SyncPSCW && p.win.me == p.target:
		if err := p.win.Post(p.originG, 0); err != nil {
			return err
		}
		return p.win.Wait()
	}
	return nil
}

// Close ends the pattern (the origin's unlock, the last fence).
func (p *Pattern) Close() error {
	switch {
	case p.mode == SyncFence:
		return p.win.Fence(ModeNoSucceed)
	case (p.mode == SyncFlush || p.mode == SyncFlushLocal) && p.win.me == p.origin:
		return p.win.Unlock(p.target)
	}
	return nil
}

// Loop runs iters epochs of mode in which origin calls op perEpoch times
// (op gets the epoch and the call's index) towards target. Every PE of the
// window calls it. It returns the time origin spent in the epochs (0 on
// other PEs); every PE leaves after a barrier.
func (b *BenchWindow) Loop(mode SyncMode, origin, target, iters, perEpoch int, op func(epoch, i int) error) (time.Duration, error) {
	p, err := NewPattern(b.Win, mode, origin, target)
	if err != nil {
		return 0, err
	}
	var elapsed time.Duration
	run := func() error {
		if err := p.Open(); err != nil {
			return err
		}
		start := time.Now()
		for e := range iters {
			var err error
			if b.Win.me == origin {
				err = p.Epoch(func() error {
					for i := range perEpoch {
						if err := op(e, i); err != nil {
							return err
						}
					}
					return nil
				})
			} else {
				err = p.Serve()
			}
			if err != nil {
				return err
			}
		}
		if b.Win.me == origin {
			elapsed = time.Since(start)
		}
		return p.Close()
	}
	err = run()
	if berr := b.Win.World().BarrierAll(); err == nil && berr != nil {
		err = wrap(berr, "benchmark barrier")
	}
	return elapsed, err
}
