package streams

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gshmem/gshmem/shmem"
)

// Stream is an ordered queue of work issued by one PE. Operations issued on
// a stream run one after the other, in the order they were issued, and the
// issuing goroutine returns at once; Synchronize waits for them. Different
// streams run concurrently; order work across streams with events.
//
// On the host backend a stream is a goroutine draining a queue; with the
// CUDA backend it is a CUDA stream. The API is the same.
//
// Buffers given to on-stream operations (the src of a put, the dst of a
// get) are read or written when the operation runs, not when it is issued:
// leave them alone until Synchronize, or until an event recorded after the
// operation has completed.
//
// A failing operation stops the stream: the operations queued behind it are
// dropped, and Synchronize reports the failure (an *OpError naming the
// operation) from then on. The error is sticky; make a new stream to go on.
//
// Every method may be called from several goroutines.
type Stream struct {
	w      *shmem.World
	name   string
	ctx    context.Context
	cancel context.CancelCauseFunc
	eng    engine
	// unwatch removes finalizeCheck from the World's Finalize.
	unwatch func()
}

type config struct {
	name    string
	backend string
}

// Option configures a stream.
type Option func(*config)

// WithName names the stream in errors and logs.
func WithName(name string) Option { return func(c *config) { c.name = name } }

// WithBackend picks the backend by name (see Backends); "host" is always
// available and is the default.
func WithBackend(name string) Option { return func(c *config) { c.backend = name } }

var streamCount atomic.Uint64

// New creates a stream on w. Its operations stop, failing with
// shmem.ErrAborted, when w's context ends (Finalize, job abort).
func New(w *shmem.World, opts ...Option) (*Stream, error) {
	if w == nil {
		return nil, fmt.Errorf("%w: nil World", shmem.ErrInvalid)
	}
	if err := w.Context().Err(); err != nil {
		return nil, fmt.Errorf("%w: the World is finalized or stopped", shmem.ErrFinalized)
	}
	c := config{backend: "host"}
	for _, o := range opts {
		o(&c)
	}
	if c.name == "" {
		c.name = fmt.Sprintf("pe%d/stream%d", w.MyPE(), streamCount.Add(1))
	}
	f, ok := lookupBackend(c.backend)
	if !ok {
		return nil, fmt.Errorf("%w %q (this build has %v)", ErrUnknownBackend, c.backend, Backends())
	}
	s := &Stream{w: w, name: c.name}
	s.ctx, s.cancel = context.WithCancelCause(w.Context())
	eng, err := f(s)
	if err != nil {
		s.cancel(ErrClosed)
		return nil, err
	}
	s.eng = eng
	s.unwatch = w.AtFinalize(s.finalizeCheck)
	return s, nil
}

// finalizeCheck tells Finalize about work it would cut short: the World's
// context ends with Finalize, and a stream still waiting (for a signal
// nobody sends, say) would fail with ErrAborted without a word.
//
// The stream's waits read the heap Finalize is about to unmap, so the
// queued work is cancelled (with ErrAborted, as the World's end would) and
// the stream's goroutine given a bounded time to leave it first.
func (s *Stream) finalizeCheck() error {
	if s.eng.idle() {
		return nil
	}
	s.eng.cancel(fmt.Errorf("%w: the World was finalized with the stream's work queued", shmem.ErrAborted))
	ctx, cancel := context.WithTimeout(context.Background(), finalizeGrace)
	_ = s.eng.synchronize(ctx)
	cancel()
	return fmt.Errorf("%w: %s still had work queued (a wait nothing satisfied?); Synchronize or Cancel, then Close, every stream before Finalize", ErrBusyAtFinalize, s)
}

// finalizeGrace bounds how long Finalize waits for a busy stream to drop its
// work: a collective already under way cannot be interrupted.
const finalizeGrace = 5 * time.Second

// World returns the World the stream belongs to.
func (s *Stream) World() *shmem.World { return s.w }

// Name returns the stream's name.
func (s *Stream) Name() string { return s.name }

// Enqueue issues fn on the stream: fn runs after everything issued before
// it and before everything issued after it, on the stream's goroutine. A
// non-nil error from fn (or a panic) fails the stream with name as the
// operation's name. ctx ends when the stream is canceled or its World stops;
// a fn that waits must give up then.
//
// Enqueue is how layers above the core put their own work on a stream:
// kernels.LaunchOnStream runs a host-emulated grid this way, and RMA windows
// can issue their put, get, accumulate and flush the same way.
func (s *Stream) Enqueue(name string, fn func(ctx context.Context) error) {
	s.submit(op{kind: opFunc, name: name, run: fn})
}

func (s *Stream) submit(o op) { s.eng.submit(o) }

// Synchronize waits until every operation issued on the stream before the
// call has completed, and returns the stream's error: nil, or an *OpError
// for the first operation that failed. It returns as soon as the stream
// fails, without waiting for operations that will be dropped.
func (s *Stream) Synchronize() error { return s.eng.synchronize(context.Background()) }

// SynchronizeContext is Synchronize bounded by ctx: when ctx ends first, it
// returns ctx's error and the stream carries on.
func (s *Stream) SynchronizeContext(ctx context.Context) error { return s.eng.synchronize(ctx) }

// Query reports whether every operation issued so far has completed (or
// been dropped after a failure), without waiting.
func (s *Stream) Query() bool { return s.eng.idle() }

// Err returns the stream's sticky error without waiting: nil while no
// operation has failed.
func (s *Stream) Err() error { return s.eng.failure() }

// Cancel stops the stream: an operation waiting on the stream (a
// signal wait, a wait-until, an event wait) gives up with ErrCanceled, the
// queued operations are dropped and Synchronize reports ErrCanceled. Use it
// to get out of a wait that nothing will satisfy. A collective operation
// (barrier, team collective) already under way cannot be interrupted
// without leaving the PEs out of step; it ends only when it completes or
// the World stops.
func (s *Stream) Cancel() { s.eng.cancel(ErrCanceled) }

// Close waits for the stream's queued work to finish (or to be dropped
// after a failure or Cancel), stops the stream's goroutine and returns the
// stream's error. Operations issued afterwards fail with ErrClosed. Close
// every stream before its World is finalized. Close waits for a pending
// wait like Synchronize does: to abandon the queued work, Cancel first.
func (s *Stream) Close() error {
	s.unwatch()
	s.eng.close()
	err := s.eng.failure()
	s.cancel(ErrClosed)
	if err != nil && isClosed(err) {
		return nil
	}
	return err
}

func isClosed(err error) bool {
	oe, ok := err.(*OpError)
	return ok && oe.Err == ErrClosed
}

func (s *Stream) String() string { return fmt.Sprintf("stream %q", s.name) }
