// Package poll is the wait loop of on-stream and device-side waits
// (streams, kernels). Unlike the core's futex waits, which only the World's
// context ends, these must also stop when their stream or launch is
// canceled, so they poll: busily first (yielding now and then), then with
// sleeps that grow to MaxSleep, and give up as soon as the context ends.
package poll

import (
	"context"
	"runtime"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

const (
	spinPolls     = 2048
	spinPollsOver = 64 // when PEs outnumber CPUs
	minSleep      = 20 * time.Microsecond
	// MaxSleep bounds one sleep, and so the latency of a slow wake-up.
	MaxSleep = time.Millisecond
)

// Spin returns how many busy polls a wait of w makes before it sleeps:
// GSHMEM_SPIN when set, fewer when PEs outnumber CPUs (w may be nil).
func Spin(w *shmem.World) int {
	if w == nil {
		return spinPolls
	}
	if n := w.Options().Spin; n > 0 {
		return n
	}
	if w.TeamShared().NPEs() > runtime.NumCPU() { // the PEs of this node
		return spinPollsOver
	}
	return spinPolls
}

// Until returns when cond reports true or an error, or with done(ctx) when
// ctx ends first.
func Until(ctx context.Context, spin int, cond func() (bool, error), done func(context.Context) error) error {
	for i := 0; i < spin; i++ {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if i&15 == 15 {
			if ctx.Err() != nil {
				return done(ctx)
			}
			runtime.Gosched()
		}
	}
	var t *time.Timer
	d := minSleep
	for {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if ctx.Err() != nil {
			return done(ctx)
		}
		if t == nil {
			t = time.NewTimer(d)
			defer t.Stop()
		} else {
			t.Reset(d)
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		d = min(2*d, MaxSleep)
	}
}
