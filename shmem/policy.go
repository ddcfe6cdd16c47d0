package shmem

import (
	"context"
	"time"

	"github.com/gshmem/gshmem/shmem/internal/doorbell"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// WaitPolicy is how a World's waits wait: Spin polls of the condition
// (every YieldEvery-th after letting the process's other goroutines run;
// when MaxSpin is set, up to MaxSpin after waits whose sleep a peer ended
// within a few scheduler slices),
// then Yields polls each after letting them run, then OSYields polls each
// after giving the CPU to another process, then
// sleeps on a futex in the watched heap until a writer rings it (each sleep
// at most MaxSleep, after which the wait checks the World and the
// condition again). Every wait of the runtime and of the layers above it
// (compat, windows, streams, kernels) follows its World's one policy.
type WaitPolicy struct {
	Spin       int
	YieldEvery int
	Yields     int
	OSYields   int
	MaxSleep   time.Duration
	// MaxSpin, when above Spin, lets the spin grow to MaxSpin polls while
	// this PE's sleeps keep ending soon, and shrink back after long ones:
	// for a PE whose CPU is shared with busy processes, where a sleep hands
	// the CPU away and its wake-up may wait out the other process's slice.
	// No policy ChooseWaitPolicy picks sets it: on the 2-vCPU VM under a
	// background load of 8-15, 1<<22 made the 2-PE barrier and
	// Allreduce slower (1.1-3.4x, with and without busy loops) and
	// Send/Recv and fence mixed (porting-guide/06-waiting.md).
	MaxSpin int
}

// The policies ChooseWaitPolicy picks from, measured on the point-to-point
// and barrier rows of `gshmem perf`. A yield costs a trip through the
// scheduler, longer than a message takes, so a PE with a CPU of its own
// yields only every 4096 polls (18 us here), to let its process's other
// goroutines run; when the PEs of the node outnumber its CPUs it polls
// little and yields often, to let the PE it waits for run. A process PE
// with a CPU of its own polls for about 300 us before it sleeps: 4096 polls
// did not outlast a peer preempted by the host or by its runtime's monitor
// (20-60 us), and each sleep then cost a futex wake-up and restarted the
// monitor's every-20-us phase, whose preemptions made more sleeps (1-5 per
// 50000 round trips with 4000 polls, none with 65536). Goroutine PEs keep a
// short spin: they share their process's threads, and tests run many at
// once. Every kind but the crowded one (whose spin yields every 16 polls
// already) then polls 256 times more, handing its thread over after each
// poll: that serves a peer goroutine waiting for this thread, or a peer
// process just descheduled, before the waiter pays for a futex sleep and
// wake-up.
const (
	spinProcess   = 1 << 16
	spinGoroutine = 4096
	spinCrowded   = 64
	// spinCrowdedProcess is a crowded process PE's spin before it hands
	// its CPU over with sched_yield: the PE it waits for is as likely to
	// be queued behind it on this CPU as to be running on another, and
	// 64 polls (with their Goscheds) made the 4-PE barrier on 2 CPUs
	// 2.5-2.8 us against 2.1-2.2 with 4.
	spinCrowdedProcess = 4
	yieldOwnCPU        = 4096
	yieldCrowded       = 16
	yields             = 256
	yieldsCrowded      = 0
	// osYieldsCrowded bounds the sched_yield phase of a process PE's wait
	// on a crowded node by a few context switches' worth before it sleeps.
	osYieldsCrowded = 100
	maxSleep        = 50 * time.Millisecond
)

// ChooseWaitPolicy returns the policy for a PE of a node running nodePEs
// PEs on cpus CPUs; process tells a process PE from a goroutine PE (of
// shmem.Run), and spin, when positive, is GSHMEM_SPIN, which sets the
// polls before the first sleep whatever the rest.
func ChooseWaitPolicy(nodePEs, cpus int, process bool, spin int) WaitPolicy {
	p := WaitPolicy{Spin: spinGoroutine, YieldEvery: yieldOwnCPU, Yields: yields, MaxSleep: maxSleep}
	switch {
	case nodePEs > cpus:
		p.Spin, p.YieldEvery, p.Yields = spinCrowded, yieldCrowded, yieldsCrowded
		if process {
			p.Spin, p.OSYields = spinCrowdedProcess, osYieldsCrowded
		}
	case process:
		p.Spin = spinProcess
	}
	if spin > 0 {
		p.Spin = spin
	}
	return p
}

// WaitPolicy returns the policy this World's waits follow, chosen at Init
// from the PEs and CPUs of this PE's node and GSHMEM_SPIN.
func (w *World) WaitPolicy() WaitPolicy {
	d := w.waiter
	p := WaitPolicy{Spin: d.Spin, YieldEvery: d.YieldEvery, Yields: d.Yields, OSYields: d.OSYields, MaxSleep: d.MaxSleep}
	if d.Adapt != nil {
		p.MaxSpin = d.Adapt.Max
	}
	return p
}

// SetWaitPolicy replaces this PE's wait policy, for tuning and for tests
// (a MaxSleep of an hour and no spin show whether a write path wakes a
// sleeper). It must be called before other goroutines of this PE wait.
// Spin, Yields, OSYields and MaxSpin must be at least 0, YieldEvery a power of two (0 means
// 1) and MaxSleep positive.
func (w *World) SetWaitPolicy(p WaitPolicy) error {
	if p.YieldEvery == 0 {
		p.YieldEvery = 1
	}
	if p.Spin < 0 || p.MaxSpin < 0 || p.Yields < 0 || p.OSYields < 0 || p.YieldEvery < 0 || p.YieldEvery&(p.YieldEvery-1) != 0 || p.MaxSleep <= 0 {
		return errf(ErrInvalid, "wait policy %+v", p)
	}
	w.waiter = p.waiter()
	w.shareSpin()
	return nil
}

// SpinTime is about how long the policy's Spin polls of a condition take
// (4096 in 18 us here, as the comment above the policies' constants says):
// how long a poller that is not a loop over a condition, the ucx
// transport's poll of its worker in C, polls before it sleeps, so that it
// waits as the World's other waits do.
func (p WaitPolicy) SpinTime() time.Duration {
	return time.Duration(int64(p.Spin) * int64(18*time.Microsecond) / 4096)
}

// shareSpin hands the policy's spin to the transport's pollers that are
// not waits of the World's (SpinTime).
func (w *World) shareSpin() {
	if s, ok := w.tr.(transport.RemoteSpinner); ok {
		s.SetRemoteSpin(w.WaitPolicy().SpinTime())
	}
}

func (p WaitPolicy) waiter() doorbell.Waiter {
	d := doorbell.Waiter{Spin: p.Spin, YieldEvery: p.YieldEvery, Yields: p.Yields, OSYields: p.OSYields, MaxSleep: p.MaxSleep}
	if p.MaxSpin > p.Spin {
		d.Adapt = &doorbell.Adapt{Max: p.MaxSpin}
	}
	return d
}

// AnyPE in a wait stands for "whichever PE writes": the words are in this
// PE's own heap.
const AnyPE = -1

// Await blocks until cond reports true (nil) or an error (that error), by
// the World's wait policy. It is the wait for layers that watch words of
// their own: several words at once, words a peer stores through a Mapped
// helper, or progress only the caller can judge.
//
// pe names the PE whose heap holds the words cond reads (AnyPE for this
// PE's own heap). The waiter sleeps on that heap's bell, so any write into
// it through the core (Put, the atomics, Mapped's stores, Wake) ends the
// sleep, and cond is called again. When that heap is not mapped here the
// waiter polls with short sleeps instead. cond must read shared words with
// atomic loads (or through shmem calls); it is called many times.
//
// The wait ends with ErrAborted when the World's context ends or the job
// aborts, ErrFinalized after Finalize, and ErrPeerLost when a peer is
// known to have died; these are checked every few thousand polls and
// around every sleep.
func (w *World) Await(pe int, cond func() (bool, error)) error {
	return w.AwaitContext(nil, pe, cond)
}

// AwaitLock is Await for lock words: words that writers release with an
// atomic followed by Mapped.RingLock (or through the core's atomics from
// other nodes, which ring every waiter). Its sleep is not ended by the
// data traffic into that heap, and the lock's releases do not wake the
// heap's other waiters (a peer asleep in a receive or a barrier).
func (w *World) AwaitLock(pe int, cond func() (bool, error)) error {
	return w.await(nil, pe, doorbell.Lock, cond)
}

// AwaitContext is Await that also ends when ctx ends (a stream's or a
// launch's context), then returning context.Cause(ctx). ctx may be nil.
// Ending ctx wakes a sleeping waiter at once.
func (w *World) AwaitContext(ctx context.Context, pe int, cond func() (bool, error)) error {
	return w.await(ctx, pe, doorbell.User, cond)
}

func (w *World) await(ctx context.Context, pe int, class doorbell.Class, cond func() (bool, error)) error {
	if ok, err := cond(); ok || err != nil {
		return err
	}
	if w == nil {
		return errf(ErrInvalid, "wait without a World")
	}
	if pe == AnyPE {
		pe = w.pe
	}
	if pe < 0 || pe >= w.npes {
		return errf(ErrBadPE, "wait on PE %d of %d", pe, w.npes)
	}
	b := w.bell(pe)
	check := func() error { return w.waitCheck(pe) }
	if ctx != nil && ctx != w.ctx {
		check = func() error {
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			return w.waitCheck(pe)
		}
		if b != nil {
			// The ring runs on a goroutine of its own: once it has started,
			// wait for it, so that it never touches a heap this wait's
			// caller goes on to unmap (Finalize after a cancelled stream).
			rung := make(chan struct{})
			stop := context.AfterFunc(ctx, func() {
				defer close(rung)
				b.Ring(true)
			})
			defer func() {
				if !stop() {
					<-rung
				}
			}()
		}
	}
	return w.waiter.Wait(b, class, cond, check)
}

// bell returns the doorbell of pe's heap, or nil when it is not mapped here.
func (w *World) bell(pe int) *doorbell.Bell {
	if pe == w.pe {
		return doorbell.At(w.heap)
	}
	m := w.tr.Mapped(pe)
	if m == nil && w.hostTr != nil {
		m = w.hostTr.Mapped(pe) // a device heap's control page is host memory
	}
	return doorbell.At(m)
}

// waitCheck returns why a wait for words that PE pe's heap holds (or that
// pe writes) cannot go on, or nil. It is the one place a wait learns that
// the PE it waits for is gone.
//
// Any loss ends every wait (check: the job cannot complete); a wait on a
// peer's own words (a window lock, a remote flag) also ends at once when
// that peer is lost or has finalized, without the grace that lets a
// launcher name a killed PE first.
func (w *World) waitCheck(pe int) error {
	if err := w.check(); err != nil {
		return err
	}
	if pe != w.pe && w.live != nil {
		return w.live.PeerErr(pe)
	}
	return nil
}

// pairSpinCrowded is how long (polls, about 18 us) a collective's wait on a
// crowded node polls for a partner pinned to another CPU, when each CPU
// holds at most two PEs: that partner runs half the time, and when it
// does not, the PE beside it on its CPU is about to hand the CPU over to
// it, so polling beats handing this CPU over and back. A partner pinned
// to this PE's CPU cannot run while this PE polls, so the wait hands the
// CPU over at once. Measured on the 2-vCPU VM, barrier --timing op: 4 PEs
// 1.6 us polling 4096 times for another CPU's partner, 2.4 with the 16
// polls of every partner before; 6 and 8 PEs (3 and 4 a CPU) were slower
// polling 1024-4096 times (7.8 against 5.7 us, 12-25 against 8-10), so
// they keep the short spin for that partner.
const pairSpinCrowded = 4096

// placePeers records where this crowded node's PEs were pinned, for the
// collectives' waits (Team.spinFor): only when the node's PEs outnumber
// the CPUs they were pinned among.
func (w *World) placePeers(allowed, node []int, localPEs int) {
	if localPEs <= len(allowed) {
		return
	}
	w.cpuOf = nodeCPUs(allowed, node, w.pe, localPEs)
	if localPEs <= 2*len(allowed) {
		w.pairSpin = pairSpinCrowded
	}
}
