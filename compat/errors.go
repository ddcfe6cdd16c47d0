package compat

import "github.com/gshmem/gshmem/internal/mpierr"

// Class is an MPI error class, the one of every gshmem MPI layer: every
// error compat and windows return is an *Error carrying one; test for a
// class with errors.Is (errors.Is(err, ErrRank)).
type Class = mpierr.Class

// Error is an MPI error: a class, a message saying what was wrong, and
// possibly the error underneath (errors.Is reaches it, so
// errors.Is(err, shmem.ErrAborted) works for a job that stopped while this
// PE waited).
type Error = mpierr.Error

// The MPI error classes the MPI layers report (MPI-3.1 section 8.4).
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
	// The classes of one-sided communication (windows).
	ClassWin         = mpierr.ClassWin
	ClassSize        = mpierr.ClassSize
	ClassDisp        = mpierr.ClassDisp
	ClassInfoKey     = mpierr.ClassInfoKey
	ClassInfoValue   = mpierr.ClassInfoValue
	ClassLockType    = mpierr.ClassLockType
	ClassAssert      = mpierr.ClassAssert
	ClassRMASync     = mpierr.ClassRMASync
	ClassRMARange    = mpierr.ClassRMARange
	ClassRMAConflict = mpierr.ClassRMAConflict
	ClassRMAAttach   = mpierr.ClassRMAAttach
	ClassRMAShared   = mpierr.ClassRMAShared
	ClassRMAFlavor   = mpierr.ClassRMAFlavor

	// The fault-tolerance classes (ulfm.go; mpi-ext.h's MPIX_ERR_*).
	ClassProcFailed        = mpierr.ClassProcFailed
	ClassProcFailedPending = mpierr.ClassProcFailedPending
	ClassRevoked           = mpierr.ClassRevoked

	ClassPort  = mpierr.ClassPort
	ClassSpawn = mpierr.ClassSpawn
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

	// ErrWin: a freed window, or one of a finalized or aborted World.
	ErrWin = mpierr.ErrWin
	// ErrSize: a negative window size.
	ErrSize = mpierr.ErrSize
	// ErrDisp: a displacement unit that is not positive.
	ErrDisp = mpierr.ErrDisp
	// ErrInfoKey: an info key that cannot be set after creation.
	ErrInfoKey = mpierr.ErrInfoKey
	// ErrInfoValue: a known info key with a value it does not take.
	ErrInfoValue = mpierr.ErrInfoValue
	// ErrLockType: a lock type other than LockShared and LockExclusive.
	ErrLockType = mpierr.ErrLockType
	// ErrAssert: an assertion the synchronization call does not take.
	ErrAssert = mpierr.ErrAssert
	// ErrRMASync: an operation outside an access epoch to its target, a
	// synchronization call in the wrong state (unlock without lock, fence
	// inside a lock epoch, complete without start, ...).
	ErrRMASync = mpierr.ErrRMASync
	// ErrRMARange: a target displacement past the end of the target's
	// window, or (dynamic windows) into memory the target has not attached.
	ErrRMARange = mpierr.ErrRMARange
	// ErrRMAConflict: a lock of one type on a target this PE already holds
	// a lock of the other type on.
	ErrRMAConflict = mpierr.ErrRMAConflict
	// ErrRMAAttach: memory that cannot be attached (overlap, full table, no
	// room in the pool) or detached (not attached).
	ErrRMAAttach = mpierr.ErrRMAAttach
	// ErrRMAShared: a shared window over PEs that cannot share memory.
	ErrRMAShared = mpierr.ErrRMAShared
	// ErrRMAFlavor: a call the window's flavor does not support (Attach on
	// an allocated window, SharedQuery on a non-shared one).
	ErrRMAFlavor = mpierr.ErrRMAFlavor
	// ErrProcFailed: a member of the communicator was lost (it died, or
	// stayed stopped past GSHMEM_PEER_TIMEOUT); shmem.ErrPeerLost is
	// underneath and the message names it.
	ErrProcFailed = mpierr.ErrProcFailed
	// ErrProcFailedPending: a receive from AnySource that a loss may have
	// left unmatched.
	ErrProcFailedPending = mpierr.ErrProcFailedPending
	// ErrRevoked: a call on a revoked communicator (Comm.Revoke).
	ErrRevoked = mpierr.ErrRevoked
	// ErrPort: a port name that is malformed, or names no open port
	// (Connect), or a port that is not this process's (Accept).
	ErrPort = mpierr.ErrPort
	// ErrSpawn: processes that could not be spawned, or a job whose
	// launcher cannot spawn (only gshmem run can).
	ErrSpawn = mpierr.ErrSpawn
)

func errorf(c Class, format string, args ...any) error { return mpierr.Errorf(c, format, args...) }

// wrap turns a runtime error into a compat error with a fitting class.
func wrap(err error, format string, args ...any) error { return mpierr.Wrap(err, nil, format, args...) }

// ClassOf returns the class of err: ClassSuccess for nil, ClassOther for an
// error that is not an *Error (MPI_Error_class).
func ClassOf(err error) Class { return mpierr.ClassOf(err) }
