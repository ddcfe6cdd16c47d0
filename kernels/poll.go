package kernels

import (
	"context"
	"runtime"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

// Device-side waits poll: first busily (yielding now and then), then with
// sleeps growing to maxSleep, and give up when the launch's context ends
// (stream canceled, World stopped, another thread failed). See the package
// documentation for why they do not sleep on the core's futex.
const (
	spinPolls     = 2048
	spinPollsOver = 64 // when PEs outnumber CPUs
	minSleep      = 20 * time.Microsecond
	maxSleep      = time.Millisecond
)

func spinFor(w *shmem.World) int {
	if n := w.Options().Spin; n > 0 {
		return n
	}
	if w.NPEs() > runtime.NumCPU() {
		return spinPollsOver
	}
	return spinPolls
}

func poll(ctx context.Context, spin int, cond func() (bool, error)) error {
	for i := 0; i < spin; i++ {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if i&15 == 15 {
			if ctx.Err() != nil {
				return causeError(ctx)
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
			return causeError(ctx)
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
		d = min(2*d, maxSleep)
	}
}
