package windows

import (
	"errors"

	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/gshmem/gshmem/shmem"
)

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
	ClassSuccess     = mpierr.ClassSuccess
	ClassArg         = mpierr.ClassArg
	ClassRank        = mpierr.ClassRank
	ClassType        = mpierr.ClassType
	ClassOp          = mpierr.ClassOp
	ClassCount       = mpierr.ClassCount
	ClassGroup       = mpierr.ClassGroup
	ClassWin         = mpierr.ClassWin
	ClassSize        = mpierr.ClassSize
	ClassDisp        = mpierr.ClassDisp
	ClassInfoKey     = mpierr.ClassInfoKey
	ClassInfoValue   = mpierr.ClassInfoValue
	ClassLockType    = mpierr.ClassLockType
	ClassAssert      = mpierr.ClassAssert
	ClassNoMem       = mpierr.ClassNoMem
	ClassRMASync     = mpierr.ClassRMASync
	ClassRMARange    = mpierr.ClassRMARange
	ClassRMAConflict = mpierr.ClassRMAConflict
	ClassRMAAttach   = mpierr.ClassRMAAttach
	ClassRMAShared   = mpierr.ClassRMAShared
	ClassRMAFlavor   = mpierr.ClassRMAFlavor
	ClassOther       = mpierr.ClassOther
)

// Sentinels, one per class: errors.Is(err, ErrRMASync) tests the class.
var (
	// ErrArg: an invalid argument (negative count, short origin buffer, ...).
	ErrArg = mpierr.ErrArg
	// ErrRank: a target rank outside the window's group.
	ErrRank = mpierr.ErrRank
	// ErrType: an invalid datatype, or origin and target types that do not
	// match, or a type the operation does not take (CompareAndSwap on a float).
	ErrType = mpierr.ErrType
	// ErrOp: an op that is not defined for the datatype (MAX on complex,
	// BAND on float), or NO_OP where only GetAccumulate takes it.
	ErrOp = mpierr.ErrOp
	// ErrCount: a negative count.
	ErrCount = mpierr.ErrCount
	// ErrGroup: a group with a bad or repeated rank.
	ErrGroup = mpierr.ErrGroup
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
	// ErrNoMem: the symmetric heap has no room for the window.
	ErrNoMem = mpierr.ErrNoMem
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
	// ErrRMAShared: AllocateShared over PEs that cannot share memory.
	ErrRMAShared = mpierr.ErrRMAShared
	// ErrRMAFlavor: a call the window's flavor does not support (Attach on
	// an allocated window, SharedQuery on a non-shared one).
	ErrRMAFlavor = mpierr.ErrRMAFlavor
	// ErrOther: a failure of the runtime underneath (job aborted, World
	// finalized); the shmem error is wrapped.
	ErrOther = mpierr.ErrOther
)

func errorf(c Class, format string, args ...any) error { return mpierr.Errorf(c, format, args...) }

// wrap turns a shmem error into a window error with a fitting class: an
// access past a target's window is RMA_RANGE.
// Callers on hot paths test err first: wrap's arguments cost even when
// err is nil.
func wrap(err error, format string, args ...any) error {
	return mpierr.Wrap(err, classifyShmem, format, args...)
}

func classifyShmem(err error) Class {
	if errors.Is(err, shmem.ErrOutOfBounds) {
		return ClassRMARange
	}
	return ClassSuccess
}

// ClassOf returns the class of err: ClassSuccess for nil, ClassOther for an
// error that is not an *Error (MPI_Error_class).
func ClassOf(err error) Class { return mpierr.ClassOf(err) }
