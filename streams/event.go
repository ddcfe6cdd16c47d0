package streams

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Event marks a point in a stream's order, as a CUDA event does. Record
// places it on a stream; it completes when everything issued on that
// stream before the Record has completed. Another stream can wait for it
// (Stream.WaitEvent) and the host can query it or wait for it.
//
// An event can be recorded again: Query, Synchronize and WaitEvent refer to
// the most recent Record at the time they are called. An event never
// recorded counts as complete. If the recording stream fails before
// reaching the Record, the event completes with the stream's error, and a
// stream waiting for it fails too, so that no stream waits forever for a
// failed one.
type Event struct {
	mu  sync.Mutex
	cur *record
}

// record is one Record of an event.
type record struct {
	stream string
	done   chan struct{}
	once   sync.Once
	err    error
	at     time.Time
}

func (r *record) complete(err error) {
	r.once.Do(func() {
		r.err, r.at = err, time.Now()
		close(r.done)
	})
}

// NewEvent returns an event that has not been recorded.
func NewEvent() *Event { return &Event{} }

// Record places the event on stream s, replacing any earlier Record.
func (e *Event) Record(s *Stream) {
	r := &record{stream: s.name, done: make(chan struct{})}
	e.mu.Lock()
	e.cur = r
	e.mu.Unlock()
	s.submit(op{kind: opRecord, name: "Event.Record", rec: r, run: func(context.Context) error {
		r.complete(nil)
		return nil
	}})
}

func (e *Event) last() *record {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur
}

// Query reports whether the event has completed (or its stream failed
// before reaching it), without waiting.
func (e *Event) Query() bool {
	r := e.last()
	if r == nil {
		return true
	}
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// Synchronize waits for the event and returns nil, or the error of the
// stream that failed before reaching it.
func (e *Event) Synchronize() error { return e.SynchronizeContext(context.Background()) }

// SynchronizeContext is Synchronize bounded by ctx.
func (e *Event) SynchronizeContext(ctx context.Context) error {
	r := e.last()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrNotRecorded: Elapsed on an event that has not been recorded or has not
// completed.
var ErrNotRecorded = errors.New("streams: event not recorded or not complete")

// Elapsed returns the time between the completions of two events, as
// cudaEventElapsedTime: both must have completed successfully.
func Elapsed(start, end *Event) (time.Duration, error) {
	a, b := start.last(), end.last()
	for _, r := range []*record{a, b} {
		if r == nil {
			return 0, ErrNotRecorded
		}
		select {
		case <-r.done:
			if r.err != nil {
				return 0, r.err
			}
		default:
			return 0, ErrNotRecorded
		}
	}
	return b.at.Sub(a.at), nil
}

// WaitEvent makes the operations issued on s after this call wait until ev
// has completed: the cross-stream order. It waits for the Record that is
// the most recent at the time of the call; an event never recorded does not
// hold the stream. If the stream that recorded ev fails before reaching the
// Record, s fails too.
func (s *Stream) WaitEvent(ev *Event) {
	r := ev.last()
	if r == nil {
		return
	}
	s.submit(op{kind: opWaitEvent, name: "WaitEvent", rec: r, run: func(ctx context.Context) error {
		select {
		case <-r.done:
			if r.err != nil {
				return fmt.Errorf("waiting for an event of stream %q: %w", r.stream, r.err)
			}
			return nil
		case <-ctx.Done():
			return ctxError(ctx)
		}
	}})
}
