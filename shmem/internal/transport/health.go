package transport

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
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

	mu      sync.Mutex
	lost    []bool
	gone    []bool // finalized on purpose (said bye)
	first   atomic.Pointer[error]
	visible atomic.Bool // first is reported by err (after lossGrace)
}

// lossGrace is how long a loss stays unreported to waits that do not
// involve the lost PE. A launcher reaps a killed PE within milliseconds;
// this leaves it time to name that PE as the job's failure instead of the
// first survivor that gave up.
var lossGrace = 500 * time.Millisecond

func newHealth(me, n int) *health {
	return &health{me: me, lost: make([]bool, n), gone: make([]bool, n), wake: func() {}, spread: func(int) {}}
}

// err returns the first loss, or nil.
func (h *health) err() error {
	if !h.visible.Load() {
		return nil
	}
	if p := h.first.Load(); p != nil {
		return *p
	}
	return nil
}

// bye records that pe finalized: its connections may close without alarm.
func (h *health) bye(pe int) {
	h.mu.Lock()
	h.gone[pe] = true
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

// check returns an error for an operation aimed at pe when pe is gone.
func (h *health) check(pe int) error {
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
