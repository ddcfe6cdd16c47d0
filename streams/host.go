package streams

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem"
)

func init() { registerBackend("host", newHostEngine) }

// hostEngine runs a stream on one goroutine (the worker), which takes the
// queued operations in batches and runs their host forms in order. Issuing
// costs a lock and an append; the worker sleeps only when the queue is
// empty, so a burst of operations costs one wake-up.
type hostEngine struct {
	s *Stream

	mu        sync.Mutex
	queue     []queued // issued, not yet taken by the worker
	spare     []queued // the worker's last batch, reused
	workerIdl bool     // the worker waits on wake
	wake      chan struct{}
	issued    uint64        // ops issued: the last one's number
	submitted uint64        // ops accepted (and not dropped at submit)
	finished  atomic.Uint64 // ops the worker has run or dropped
	nwaiters  atomic.Int32  // len(waiters)
	waiters   []syncWaiter
	err       error // sticky: the first failure (an *OpError)
	closing   bool
	exited    chan struct{} // closed when the worker returns

	stopped atomic.Bool            // err is set: the worker drops what is left
	cur     atomic.Pointer[queued] // the operation running now, for Cancel's error
}

type queued struct {
	op
	seq uint64
}

type syncWaiter struct {
	target uint64
	ch     chan struct{}
}

func newHostEngine(s *Stream) (engine, error) {
	e := &hostEngine{s: s, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	go e.worker()
	return e, nil
}

func (e *hostEngine) describe() bool { return false }

func (e *hostEngine) submit(o op) {
	e.mu.Lock()
	e.issued++
	seq := e.issued
	if e.err != nil || e.closing {
		err := e.err
		if err == nil {
			err = &OpError{Stream: e.s.name, Seq: seq, Op: o.name, Err: ErrClosed}
			e.setErrLocked(err)
		}
		e.mu.Unlock()
		o.drop(err)
		return
	}
	e.queue = append(e.queue, queued{op: o, seq: seq})
	e.submitted++
	if e.workerIdl {
		e.workerIdl = false
		e.mu.Unlock()
		e.wake <- struct{}{}
		return
	}
	e.mu.Unlock()
}

func (e *hostEngine) worker() {
	defer close(e.exited)
	for {
		e.mu.Lock()
		for len(e.queue) == 0 {
			if e.closing {
				e.mu.Unlock()
				return
			}
			e.workerIdl = true
			e.mu.Unlock()
			<-e.wake
			e.mu.Lock()
		}
		batch := e.queue
		e.queue = e.spare[:0]
		e.mu.Unlock()

		for i := range batch {
			q := &batch[i]
			if e.stopped.Load() {
				q.drop(e.failure())
			} else {
				e.cur.Store(q)
				err := e.run(q)
				e.cur.Store(nil)
				if err != nil {
					e.fail(&OpError{Stream: e.s.name, Seq: q.seq, Op: q.name, Err: err})
				}
			}
			e.finished.Add(1)
			if e.nwaiters.Load() > 0 {
				e.mu.Lock()
				e.releaseLocked()
				e.mu.Unlock()
			}
		}

		e.mu.Lock()
		clear(batch)
		e.spare = batch[:0]
		e.mu.Unlock()
	}
}

// run runs one operation's host form, turning a panic into an error.
func (e *hostEngine) run(q *queued) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	if cerr := e.s.ctx.Err(); cerr != nil {
		return ctxError(e.s.ctx)
	}
	return q.run(e.s.ctx)
}

// fail records err as the stream's error unless it already has one and
// returns the sticky error.
func (e *hostEngine) fail(err error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.setErrLocked(err)
	}
	return e.err
}

func (e *hostEngine) setErrLocked(err error) {
	e.err = err
	e.stopped.Store(true)
	e.releaseAllLocked()
}

// releaseLocked wakes the Synchronize calls whose work has finished.
func (e *hostEngine) releaseLocked() {
	keep := e.waiters[:0]
	done := e.finished.Load()
	for _, w := range e.waiters {
		if done >= w.target {
			close(w.ch)
		} else {
			keep = append(keep, w)
		}
	}
	clear(e.waiters[len(keep):])
	e.waiters = keep
	e.nwaiters.Store(int32(len(keep)))
}

func (e *hostEngine) releaseAllLocked() {
	for _, w := range e.waiters {
		close(w.ch)
	}
	clear(e.waiters)
	e.waiters = e.waiters[:0]
	e.nwaiters.Store(0)
}

func (e *hostEngine) idle() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.finished.Load() == e.submitted
}

func (e *hostEngine) failure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

func (e *hostEngine) synchronize(ctx context.Context) error {
	e.mu.Lock()
	if e.err != nil || e.finished.Load() == e.submitted {
		err := e.err
		e.mu.Unlock()
		return err
	}
	w := syncWaiter{target: e.submitted, ch: make(chan struct{})}
	e.waiters = append(e.waiters, w)
	e.nwaiters.Store(int32(len(e.waiters)))
	// The worker may have finished between the check and the registration
	// without seeing us.
	e.releaseLocked()
	e.mu.Unlock()
	select {
	case <-w.ch:
		return e.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *hostEngine) cancel(cause error) {
	e.mu.Lock()
	if e.err == nil {
		oe := &OpError{Stream: e.s.name, Op: "Cancel", Err: cause}
		if cur := e.cur.Load(); cur != nil {
			oe.Seq, oe.Op = cur.seq, cur.name
		}
		e.setErrLocked(oe)
	}
	e.mu.Unlock()
	// The running operation sees the cause through its context; the worker
	// drops the queued ones.
	e.s.cancel(cause)
}

func (e *hostEngine) close() {
	e.mu.Lock()
	if !e.closing {
		e.closing = true
		if e.workerIdl {
			e.workerIdl = false
			e.mu.Unlock()
			e.wake <- struct{}{}
			<-e.exited
			return
		}
	}
	e.mu.Unlock()
	<-e.exited
}

// ctxError turns the end of a stream's context into the error an operation
// reports: ErrCanceled (or another cause given to Cancel) when the stream
// was canceled, shmem.ErrAborted when the World stopped.
func ctxError(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, ErrCanceled) || errors.Is(cause, ErrClosed) {
		return cause
	}
	return fmt.Errorf("%w: %v", shmem.ErrAborted, cause)
}
