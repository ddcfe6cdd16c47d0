package shmem

import (
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Sentinel errors. Every error returned by this package wraps one of them,
// so callers test with errors.Is; the message says what was wrong.
var (
	// ErrBadPE: a PE number outside 0..NPEs()-1.
	ErrBadPE = errors.New("shmem: invalid PE")
	// ErrOutOfBounds: an access past the end of a symmetric object.
	ErrOutOfBounds = errors.New("shmem: access outside the symmetric object")
	// ErrNotSymmetric: a zero, freed or foreign (other world's) symmetric object.
	ErrNotSymmetric = errors.New("shmem: not a live symmetric object of this world")
	// ErrMisaligned: an atomic on a word that is not naturally aligned.
	ErrMisaligned = errors.New("shmem: misaligned atomic target")
	// ErrSizeMismatch: PEs passed different arguments to a collective.
	ErrSizeMismatch = errors.New("shmem: PEs disagree on a collective's arguments")
	// ErrHeapExhausted: the symmetric heap has no free block large enough.
	ErrHeapExhausted = errors.New("shmem: symmetric heap exhausted")
	// ErrDoubleFree: Free of an object that is not live (freed twice, or a
	// sub-slice rather than the allocation itself).
	ErrDoubleFree = errors.New("shmem: free of an object that is not allocated")
	// ErrInvalid: an argument that can never be right (negative count, zero
	// stride, unsupported element type, unknown comparison or op).
	ErrInvalid = errors.New("shmem: invalid argument")
	// ErrPeerLost: a peer died, stopped answering for GSHMEM_PEER_TIMEOUT
	// (killed, stopped, its connection broke) or finalized while this PE
	// still waited for it. Every PE of the job
	// sees it within seconds: in waits, barriers and operations.
	ErrPeerLost = transport.ErrPeerLost
	// ErrTimeout: a bounded wait ran out of time.
	ErrTimeout = errors.New("shmem: timed out")
	// ErrAborted: the job is stopping (a global exit, a failed PE, or the
	// World's context was cancelled).
	ErrAborted = errors.New("shmem: job aborted")
	// ErrFinalized: the World was finalized.
	ErrFinalized = errors.New("shmem: world is finalized")
	// ErrUnsupported: the operation is not available on this transport or
	// configuration.
	ErrUnsupported = errors.New("shmem: unsupported")
)

func errf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// ExitError is returned by Run when a PE called GlobalExit with a non-zero
// code.
type ExitError struct {
	PE   int
	Code int
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("shmem: PE %d called GlobalExit(%d)", e.PE, e.Code)
}

// Is makes errors.Is(err, ErrAborted) true for a global exit.
func (e *ExitError) Is(target error) bool { return target == ErrAborted }
