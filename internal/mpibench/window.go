package mpibench

import (
	"errors"
	"strconv"
	"time"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/windows"
)

// SyncMode is the epoch pattern of OSU's one-sided benchmarks
// (osu_put_latency -s ...), for `gshmem perf win_*` and windows' Go benchmarks.
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
	return "", mpierr.Errorf(mpierr.ClassArg, "sync mode %q: want flush, flush_local, lock, lock_all, fence or pscw", s)
}

// Window is a window of a given flavor with size bytes of memory on
// every PE, set up for a perf test: Buf is this PE's memory and Disp(t)
// names byte 0 of target t's memory (disp unit 1; an attach address for a
// dynamic window).
type Window struct {
	Win   *windows.Win
	Buf   []byte
	disps []int
	env   *compat.Env
}

// NewWindow creates a Window over an MPI environment of its own
// on w, spanning every PE. Collective.
func NewWindow(w *shmem.World, flavor windows.Flavor, size int) (*Window, error) {
	env, err := compat.New(w)
	if err != nil {
		return nil, err
	}
	b, err := newWindow(env.CommWorld(), flavor, size)
	if err != nil {
		_ = env.Finalize()
		return nil, err
	}
	b.env = env
	return b, nil
}

func newWindow(comm *compat.Comm, flavor windows.Flavor, size int) (*Window, error) {
	b := &Window{disps: make([]int, comm.Size())}
	var err error
	w := comm
	switch flavor {
	case windows.FlavorAllocate:
		b.Win, err = windows.Allocate(w, size, 1, nil)
	case windows.FlavorShared:
		b.Win, err = windows.AllocateShared(w, size, 1, compat.Info{windows.InfoAllocSharedNoncont: "true"})
	case windows.FlavorCreate:
		b.Buf = make([]byte, size)
		b.Win, err = windows.Create(w, b.Buf, 1, nil)
	case windows.FlavorDynamic:
		b.Win, err = windows.CreateDynamic(w, compat.Info{windows.InfoDynamicPool: strconv.Itoa(size + 64)})
	default:
		return nil, mpierr.Errorf(mpierr.ClassArg, "flavor %v", flavor)
	}
	if err != nil {
		return nil, err
	}
	if flavor != windows.FlavorDynamic {
		if flavor != windows.FlavorCreate {
			b.Buf = b.Win.Base()
		}
		return b, nil
	}
	b.Buf = make([]byte, max(size, 1))
	if err := windows.Attach(b.Win, b.Buf); err != nil {
		return nil, err
	}
	addrs := make([]int64, comm.Size())
	if err := compat.Allgather(comm, []int64{int64(windows.Address(b.Buf))}, 1, compat.Int64, addrs, 1, compat.Int64); err != nil {
		return nil, other(err, "exchanging attach addresses")
	}
	for r, a := range addrs {
		b.disps[r] = int(a)
	}
	return b, nil
}

// Disp returns the displacement of byte 0 of target's memory.
func (b *Window) Disp(target int) int { return b.disps[target] }

// Free releases the window. Collective.
func (b *Window) Free() error {
	if b.Win.Flavor() == windows.FlavorDynamic {
		if err := windows.Detach(b.Win, b.Buf); err != nil {
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
	win              *windows.Win
	mode             SyncMode
	origin, target   int
	originG, targetG *compat.Group // PSCW's groups, made once
}

// NewPattern returns the pattern of mode from origin to target on win.
func NewPattern(win *windows.Win, mode SyncMode, origin, target int) (*Pattern, error) {
	if _, err := ParseSyncMode(string(mode)); err != nil {
		return nil, err
	}
	if origin < 0 || origin >= win.NRanks() || target < 0 || target >= win.NRanks() {
		return nil, mpierr.Errorf(mpierr.ClassRank, "origin %d, target %d of %d ranks", origin, target, win.NRanks())
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
		return p.win.Fence(windows.ModeNoPrecede)
	case (p.mode == SyncFlush || p.mode == SyncFlushLocal) && p.win.Rank() == p.origin:
		return p.win.Lock(windows.LockShared, p.target, 0)
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
		if err := win.Lock(windows.LockShared, p.target, 0); err != nil {
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
	case p.mode == SyncPSCW && p.win.Rank() == p.target:
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
		return p.win.Fence(windows.ModeNoSucceed)
	case (p.mode == SyncFlush || p.mode == SyncFlushLocal) && p.win.Rank() == p.origin:
		return p.win.Unlock(p.target)
	}
	return nil
}

// Loop runs iters epochs of mode in which origin calls op perEpoch times
// (op gets the epoch and the call's index) towards target. Every PE of the
// window calls it. It returns the time origin spent in the epochs (0 on
// other PEs); every PE leaves after a barrier.
func (b *Window) Loop(mode SyncMode, origin, target, iters, perEpoch int, op func(epoch, i int) error) (time.Duration, error) {
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
			if b.Win.Rank() == origin {
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
		if b.Win.Rank() == origin {
			elapsed = time.Since(start)
		}
		return p.Close()
	}
	err = run()
	if berr := b.Win.World().BarrierAll(); err == nil && berr != nil {
		err = other(berr, "benchmark barrier")
	}
	return elapsed, err
}

// other reports a failed shmem call of the setup as windows reports one:
// an MPI error whose class follows the shmem error (MPI_ERR_NO_MEM for an
// exhausted heap, MPI_ERR_OTHER for most) and that wraps it.
func other(err error, what string) error { return mpierr.Wrap(err, nil, "%s", what) }
