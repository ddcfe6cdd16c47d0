package compat

import "github.com/gshmem/gshmem/internal/mpierr"

// Class is an MPI error class, shared with the other MPI-style layer:
// every error this package returns is an *Error carrying one; test for a
// class with errors.Is (errors.Is(err, ErrRank)).
type Class = mpierr.Class

// Error is an MPI error: a class, a message saying what was wrong, and
// possibly the error underneath (errors.Is reaches it, so
// errors.Is(err, shmem.ErrAborted) works for a job that stopped while this
// PE waited).
type Error = mpierr.Error

// The MPI error classes this package reports (MPI-3.1 section 8.4).
const (
	ClassSuccess  = mpierr.ClassSuccess
	ClassBuffer   = mpierr.ClassBuffer
	ClassCount    = mpierr.ClassCount
	ClassType     = mpierr.ClassType
	ClassTag      = mpierr.ClassTag
	ClassComm     = mpierr.ClassComm
	ClassRank     = mpierr.ClassRank
	ClassRequest  = mpierr.ClassRequest
	ClassRoot     = mpierr.ClassRoot
	ClassGroup    = mpierr.ClassGroup
	ClassOp       = mpierr.ClassOp
	ClassArg      = mpierr.ClassArg
	ClassTruncate = mpierr.ClassTruncate
	ClassInStatus = mpierr.ClassInStatus
	ClassNoMem    = mpierr.ClassNoMem
	ClassOther    = mpierr.ClassOther
)

// Sentinels, one per class: errors.Is(err, ErrTag) tests the class.
var (
	// ErrBuffer: a buffer too short for count elements of the datatype, or
	// a send buffer that aliases the receive buffer.
	ErrBuffer = mpierr.ErrBuffer
	// ErrCount: a negative count, or counts/displacements of the wrong length.
	ErrCount = mpierr.ErrCount
	// ErrType: an invalid or freed datatype, or one whose basic type does not
	// match the buffer's element type.
	ErrType = mpierr.ErrType
	// ErrTag: a negative tag on a send, or one above TagUB.
	ErrTag = mpierr.ErrTag
	// ErrComm: a nil or freed communicator, or one of a finalized Env.
	ErrComm = mpierr.ErrComm
	// ErrRank: a peer rank outside the communicator.
	ErrRank = mpierr.ErrRank
	// ErrRequest: a nil or already completed-and-freed request.
	ErrRequest = mpierr.ErrRequest
	// ErrRoot: a collective's root outside the communicator.
	ErrRoot = mpierr.ErrRoot
	// ErrGroup: a group rank out of range or repeated, or a nil group.
	ErrGroup = mpierr.ErrGroup
	// ErrOp: an op not defined for the datatype (MAX on complex, BAND on a
	// float, REPLACE in a reduction).
	ErrOp = mpierr.ErrOp
	// ErrArg: any other invalid argument (a bad option, a nil World).
	ErrArg = mpierr.ErrArg
	// ErrTruncate: a message longer than the receive buffer. The buffer
	// holds the part that fit and the Status says how much that was.
	ErrTruncate = mpierr.ErrTruncate
	// ErrInStatus: Waitall/Testall when some request failed; each Status's
	// Err says which and why.
	ErrInStatus = mpierr.ErrInStatus
	// ErrNoMem: the symmetric heap has no room (Init, AllocMem).
	ErrNoMem = mpierr.ErrNoMem
	// ErrOther: a failure of the runtime underneath (job aborted, World
	// finalized); the shmem error is wrapped.
	ErrOther = mpierr.ErrOther
)

func errorf(c Class, format string, args ...any) error { return mpierr.Errorf(c, format, args...) }

// wrap turns a runtime error into a compat error with a fitting class.
func wrap(err error, format string, args ...any) error { return mpierr.Wrap(err, nil, format, args...) }

// ClassOf returns the class of err: ClassSuccess for nil, ClassOther for an
// error that is not an *Error (MPI_Error_class).
func ClassOf(err error) Class { return mpierr.ClassOf(err) }
