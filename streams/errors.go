package streams

import (
	"errors"
	"fmt"
)

var (
	// ErrCanceled: the stream was canceled (Stream.Cancel) before or while
	// the operation ran.
	ErrCanceled = errors.New("streams: stream canceled")
	// ErrClosed: an operation was issued on a closed stream.
	ErrClosed = errors.New("streams: stream closed")
	// ErrBusyAtFinalize: the World was finalized while a stream still had
	// work queued; Finalize returns it (and still finalizes), and the
	// stream's work fails with shmem.ErrAborted.
	ErrBusyAtFinalize = errors.New("streams: stream busy at Finalize")
	// ErrUnknownBackend: New was asked for a backend this build does not have.
	ErrUnknownBackend = errors.New("streams: unknown backend")
)

// OpError is the error a stream reports at Synchronize when one of its
// operations failed: which stream, which operation (its name and its
// position in the stream's order, counting from 1) and why. Unwrap gives the
// cause, so errors.Is(err, shmem.ErrBadPE) and the like work through it.
type OpError struct {
	Stream string // the stream's name
	Seq    uint64 // the operation's position in the stream (1 = first)
	Op     string // the operation, e.g. "PutSignalOnStream"
	Err    error  // the cause
}

func (e *OpError) Error() string {
	return fmt.Sprintf("streams: stream %q, operation %d (%s): %v", e.Stream, e.Seq, e.Op, e.Err)
}

func (e *OpError) Unwrap() error { return e.Err }
