package transport

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// ErrPeerLost is wrapped by every error that reports a dead peer: an I/O
// error on its connection, a missed heartbeat, or another PE's report. The
// shmem package exports the same value as shmem.ErrPeerLost.
var ErrPeerLost = errors.New("shmem: peer lost")

// health tracks which peers are alive. The first loss is sticky: it wakes
// this PE's waiters (through wake) and is told to every linked peer (through
// spread), so that every PE of the job learns of it within a round trip,
// including PEs that never talked to the dead one.
type health struct {
	me      int
	wake    func()
	spread  func(pe int)
	closing atomic.Bool

	// down is nonzero once any peer is lost or has finalized: the one load
	// that the shared-memory fast paths (Put, Get, the atomics) pay before
	// they take the lock and look at their target. It lives outside Go's
	// heap (downWord) so that fast paths in C may load it too (DownWord).
	down *atomic.Uint32
	// goneGrace is how long a finalized peer may stay finalized before the
	// waits that do not name it end too (see err).
	goneGrace time.Duration

	mu      sync.Mutex
	lost    []bool
	gone    []bool // finalized on purpose (said bye)
	excused []bool // lost PEs this PE goes on without (excuse)
	// unexcused counts the lost PEs not excused: the loss ends every wait
	// (err) only while it is nonzero.
	unexcused atomic.Int32
	first     atomic.Pointer[error]
	visible   atomic.Bool // first is reported by err (after lossGrace)
	firstGone int         // the first PE that finalized, -1 before
	goneAt    time.Time
}

// lossGrace is how long a loss stays unreported to waits that do not
// involve the lost PE. A launcher reaps a killed PE within milliseconds;
// this leaves it time to name that PE as the job's failure instead of the
// first survivor that gave up.
var lossGrace = 500 * time.Millisecond

func newHealth(me, n int, goneGrace time.Duration) *health {
	return &health{me: me, lost: make([]bool, n), gone: make([]bool, n), excused: make([]bool, n), wake: func() {}, spread: func(int) {},
		goneGrace: goneGrace, firstGone: -1, down: downWord()}
}

// err returns why no wait of this PE can go on: the first loss, or a peer
// that finalized goneGrace ago. Finalize is collective, so once a peer has
// finalized every PE has entered its last barrier; a wait that the peer's
// departure leaves unfinished for that long is one the others will never
// answer (a PE that called one collective more than its peers), and would
// otherwise hang. Within the grace, the PEs still finishing that last
// barrier (whose partners may still be on their way) are left alone.
func (h *health) err() error {
	if h.down.Load() == 0 {
		return nil
	}
	if h.visible.Load() && h.unexcused.Load() > 0 {
		if p := h.first.Load(); p != nil {
			return *p
		}
	}
	h.mu.Lock()
	pe, at := h.firstGone, h.goneAt
	h.mu.Unlock()
	if pe >= 0 && time.Since(at) >= h.goneGrace {
		return fmt.Errorf("%w: PE %d has finalized and this PE still waits (noticed by PE %d after %v: did this PE call a collective or a wait that the others did not?)",
			ErrPeerLost, pe, h.me, h.goneGrace)
	}
	return nil
}

// bye records that pe finalized: its connections may close without alarm.
func (h *health) bye(pe int) {
	h.mu.Lock()
	h.gone[pe] = true
	if h.firstGone < 0 {
		h.firstGone, h.goneAt = pe, time.Now()
	}
	h.down.Store(1)
	h.mu.Unlock()
}

func (h *health) isGone(pe int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gone[pe]
}

// peerLost records pe as dead. how says who noticed and how.
func (h *health) peerLost(pe int, how string) {
	if h.closing.Load() || pe < 0 || pe >= len(h.lost) || pe == h.me {
		return
	}
	h.mu.Lock()
	if h.lost[pe] || h.gone[pe] {
		h.mu.Unlock()
		return
	}
	h.lost[pe] = true
	if !h.excused[pe] {
		h.unexcused.Add(1)
	}
	h.down.Store(1)
	if h.first.Load() == nil {
		e := fmt.Errorf("%w: PE %d %s (noticed by PE %d)", ErrPeerLost, pe, how, h.me)
		h.first.Store(&e)
		time.AfterFunc(lossGrace, func() {
			h.visible.Store(true)
			h.wake()
		})
	}
	h.mu.Unlock()
	h.wake()
	go h.spread(pe)
}

// lostPEs returns the PEs known lost (died or stopped past the timeout; not
// those that finalized), in increasing order.
func (h *health) lostPEs() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int
	for pe, l := range h.lost {
		if l {
			out = append(out, pe)
		}
	}
	return out
}

// excuse records that this PE goes on without the lost PEs pes (a
// fault-tolerant layer shrank its communicators to the survivors): their
// loss no longer ends the waits that do not name them (err). A wait or an
// operation aimed at one of them still fails (check). A PE in pes that is
// not lost (yet) is excused if it is lost later.
func (h *health) excuse(pes []int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, pe := range pes {
		if pe < 0 || pe >= len(h.excused) || h.excused[pe] {
			continue
		}
		h.excused[pe] = true
		if h.lost[pe] {
			h.unexcused.Add(-1)
		}
	}
}

// isExcused reports whether pe was excused (excuse).
func (h *health) isExcused(pe int) bool {
	if pe < 0 || pe >= len(h.excused) {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.excused[pe]
}

// check returns an error for an operation aimed at pe when pe is gone.
func (h *health) check(pe int) error {
	if h.down.Load() == 0 {
		return nil
	}
	h.mu.Lock()
	lost, gone := h.lost[pe], h.gone[pe]
	h.mu.Unlock()
	switch {
	case lost:
		first := ""
		if p := h.first.Load(); p != nil {
			first = (*p).Error()
		}
		return fmt.Errorf("%w: PE %d is lost (first loss: %s)", ErrPeerLost, pe, first)
	case gone:
		return fmt.Errorf("%w: PE %d has finalized", ErrPeerLost, pe)
	}
	return nil
}

// downWord is the address of h.down's value, for code outside Go (the C
// ABI's RMA fast paths) that must see a loss with one load as the Go fast
// paths do: h.down lies outside Go's heap (down.go), and atomic.Uint32
// holds its value alone (TestDownWordLayout).
func (h *health) downWord() *uint32 { return (*uint32)(unsafe.Pointer(h.down)) }
