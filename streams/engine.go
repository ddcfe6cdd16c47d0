package streams

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// This file is the seam between the public Stream and what executes it.
//
// An engine runs a stream's operations in order. The host engine (host.go,
// always built) runs each operation's host form on one goroutine. Another
// engine (a CUDA stream under the cuda build tag) registers itself with
// registerBackend from an init function and may translate operations by
// kind (a put into an async copy, a signal into a stream memory write, a
// wait into a stream memory wait, a record into an event record) and fall
// back to running op.run as a host function for the kinds it does not
// accelerate (opFunc: Stream.Enqueue, host-emulated kernels, windows).

// opKind says what an operation is, for engines that translate operations
// instead of running their host form.
type opKind uint8

const (
	opFunc       opKind = iota // a host function: Enqueue, kernels on the host
	opPut                      // put, put-nbi, p
	opGet                      // get, get-nbi
	opPutSignal                // put-with-signal (+nbi)
	opSignal                   // signal op
	opWait                     // signal wait-until, wait-until (+all)
	opQuiet                    // quiet
	opFence                    // fence
	opBarrier                  // barrier_all, sync_all
	opCollective               // team collectives
	opRecord                   // Event.Record
	opWaitEvent                // Stream.WaitEvent
)

// op is one unit of stream work.
type op struct {
	kind opKind
	name string // for errors: "PutOnStream", or the name given to Enqueue
	// run is the host form: it performs the operation and returns when it is
	// complete in the stream's sense. ctx ends when the stream is canceled or
	// its World stops; every wait inside run must give up then.
	run func(ctx context.Context) error
	// rec is the event record an opRecord completes or an opWaitEvent waits for.
	rec *record
	// desc is a byte-level description of RMA, signal and wait operations
	// (rmaDesc, waitDesc) for engines that translate them; it is filled only
	// when the engine's describe method returns true.
	desc any
}

// drop discards an operation that will not run because the stream failed:
// an event record still completes, with the stream's error, so that nothing
// waits for it forever.
func (o *op) drop(err error) {
	if o.kind == opRecord && o.rec != nil {
		o.rec.complete(fmt.Errorf("event not reached: %w", err))
	}
}

// engine executes one stream.
type engine interface {
	// submit appends o to the stream's order and returns without waiting
	// for it; the engine numbers operations in that order, from 1, for
	// errors. On a failed or closed stream, the engine drops o.
	submit(o op)
	// idle reports whether everything submitted so far has finished (or
	// been dropped).
	idle() bool
	// synchronize waits until everything submitted before the call has
	// finished or the stream has failed, or until ctx ends, and returns the
	// stream's sticky error (or ctx's).
	synchronize(ctx context.Context) error
	// failure returns the sticky error, or nil.
	failure() error
	// cancel fails the stream with cause: the operation running now is
	// interrupted at its next wait and the queued ones are dropped.
	cancel(cause error)
	// close stops the engine once the queued work has finished (or has been
	// dropped, after a failure) and releases it.
	close()
	// describe reports whether ops must carry desc.
	describe() bool
}

type backendFactory func(s *Stream) (engine, error)

var (
	backendMu sync.Mutex
	backends  = map[string]backendFactory{}
)

// registerBackend makes a backend available to New under name.
func registerBackend(name string, f backendFactory) {
	backendMu.Lock()
	defer backendMu.Unlock()
	backends[name] = f
}

func lookupBackend(name string) (backendFactory, bool) {
	backendMu.Lock()
	defer backendMu.Unlock()
	f, ok := backends[name]
	return f, ok
}

// Backends lists the stream backends this build has ("host" always).
func Backends() []string {
	backendMu.Lock()
	defer backendMu.Unlock()
	var names []string
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
