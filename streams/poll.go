package streams

import (
	"context"
	"runtime"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

var errAborted = shmem.ErrAborted

// Polling parameters of on-stream waits. A wait polls its condition, first
// busily (yielding the processor now and then), then with sleeps that grow
// to maxSleep, and gives up as soon as the stream's context ends.
//
// The core's own waits sleep on a futex that writers ring, but they can be
// interrupted only by the World's context; a stream must also stop when it
// is canceled, so on-stream waits poll. (A context-taking wait in shmem
// would let them sleep on the futex too.)
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

// poll returns when cond reports true or an error, or with ctxError when ctx
// ends first.
func poll(ctx context.Context, spin int, cond func() (bool, error)) error {
	for i := 0; i < spin; i++ {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		if i&15 == 15 {
			if ctx.Err() != nil {
				return ctxError(ctx)
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
			return ctxError(ctx)
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
