package windows

import (
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/shmem"
)

// Class is an MPI error class. Every error this package returns is an
// *Error carrying one; test for a class with errors.Is(err, ErrRMASync).
type Class int

// The MPI error classes this package reports (MPI-3.1 section 8.4).
const (
	ClassSuccess Class = iota
	ClassArg
	ClassRank
	ClassType
	ClassOp
	ClassCount
	ClassGroup
	ClassWin
	ClassSize
	ClassDisp
	ClassInfoKey
	ClassInfoValue
	ClassLockType
	ClassAssert
	ClassNoMem
	ClassRMASync
	ClassRMARange
	ClassRMAConflict
	ClassRMAAttach
	ClassRMAShared
	ClassRMAFlavor
	ClassOther
)

var classNames = [...]string{
	"MPI_SUCCESS", "MPI_ERR_ARG", "MPI_ERR_RANK", "MPI_ERR_TYPE", "MPI_ERR_OP",
	"MPI_ERR_COUNT", "MPI_ERR_GROUP", "MPI_ERR_WIN", "MPI_ERR_SIZE", "MPI_ERR_DISP",
	"MPI_ERR_INFO_KEY", "MPI_ERR_INFO_VALUE", "MPI_ERR_LOCKTYPE", "MPI_ERR_ASSERT",
	"MPI_ERR_NO_MEM", "MPI_ERR_RMA_SYNC", "MPI_ERR_RMA_RANGE", "MPI_ERR_RMA_CONFLICT",
	"MPI_ERR_RMA_ATTACH", "MPI_ERR_RMA_SHARED", "MPI_ERR_RMA_FLAVOR", "MPI_ERR_OTHER",
}

// String returns the MPI name of the class, e.g. "MPI_ERR_RMA_SYNC".
func (c Class) String() string {
	if c < 0 || int(c) >= len(classNames) {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// Error is a window error: an MPI error class, a message saying what was
// wrong, and possibly the shmem error underneath (errors.Is reaches it, so
// errors.Is(err, shmem.ErrAborted) works for a cancelled wait).
type Error struct {
	Class Class
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	s := "windows: " + e.Class.String()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying shmem error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a class sentinel (an *Error with no message)
// of the same class.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Err == nil && t.Class == e.Class
}

// Sentinels, one per class: errors.Is(err, ErrRMASync) tests the class.
var (
	// ErrArg: an invalid argument (negative count, short origin buffer, ...).
	ErrArg = &Error{Class: ClassArg}
	// ErrRank: a target rank outside the window's group.
	ErrRank = &Error{Class: ClassRank}
	// ErrType: an invalid datatype, or origin and target types that do not
	// match, or a type the operation does not take (CompareAndSwap on a float).
	ErrType = &Error{Class: ClassType}
	// ErrOp: an op that is not defined for the datatype (MAX on complex,
	// BAND on float), or NO_OP where only GetAccumulate takes it.
	ErrOp = &Error{Class: ClassOp}
	// ErrCount: a negative count.
	ErrCount = &Error{Class: ClassCount}
	// ErrGroup: a group with a bad or repeated rank.
	ErrGroup = &Error{Class: ClassGroup}
	// ErrWin: a freed window, or one of a finalized or aborted World.
	ErrWin = &Error{Class: ClassWin}
	// ErrSize: a negative window size.
	ErrSize = &Error{Class: ClassSize}
	// ErrDisp: a displacement unit that is not positive.
	ErrDisp = &Error{Class: ClassDisp}
	// ErrInfoKey: an info key that cannot be set after creation.
	ErrInfoKey = &Error{Class: ClassInfoKey}
	// ErrInfoValue: a known info key with a value it does not take.
	ErrInfoValue = &Error{Class: ClassInfoValue}
	// ErrLockType: a lock type other than LockShared and LockExclusive.
	ErrLockType = &Error{Class: ClassLockType}
	// ErrAssert: an assertion the synchronization call does not take.
	ErrAssert = &Error{Class: ClassAssert}
	// ErrNoMem: the symmetric heap has no room for the window.
	ErrNoMem = &Error{Class: ClassNoMem}
	// ErrRMASync: an operation outside an access epoch to its target, a
	// synchronization call in the wrong state (unlock without lock, fence
	// inside a lock epoch, complete without start, ...).
	ErrRMASync = &Error{Class: ClassRMASync}
	// ErrRMARange: a target displacement past the end of the target's
	// window, or (dynamic windows) into memory the target has not attached.
	ErrRMARange = &Error{Class: ClassRMARange}
	// ErrRMAConflict: a lock of one type on a target this PE already holds
	// a lock of the other type on.
	ErrRMAConflict = &Error{Class: ClassRMAConflict}
	// ErrRMAAttach: memory that cannot be attached (overlap, full table, no
	// room in the pool) or detached (not attached).
	ErrRMAAttach = &Error{Class: ClassRMAAttach}
	// ErrRMAShared: AllocateShared over PEs that cannot share memory.
	ErrRMAShared = &Error{Class: ClassRMAShared}
	// ErrRMAFlavor: a call the window's flavor does not support (Attach on
	// an allocated window, SharedQuery on a non-shared one).
	ErrRMAFlavor = &Error{Class: ClassRMAFlavor}
	// ErrOther: a failure of the runtime underneath (job aborted, World
	// finalized); the shmem error is wrapped.
	ErrOther = &Error{Class: ClassOther}
)

func errorf(c Class, format string, args ...any) error {
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...)}
}

// wrap turns a shmem error into a window error with a fitting class.
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return err
	}
	c := ClassOther
	switch {
	case errors.Is(err, shmem.ErrHeapExhausted):
		c = ClassNoMem
	case errors.Is(err, shmem.ErrBadPE):
		c = ClassRank
	case errors.Is(err, shmem.ErrOutOfBounds):
		c = ClassRMARange
	case errors.Is(err, shmem.ErrSizeMismatch), errors.Is(err, shmem.ErrInvalid):
		c = ClassArg
	}
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ClassOf returns the class of err: ClassSuccess for nil, ClassOther for an
// error that is not an *Error.
func ClassOf(err error) Class {
	if err == nil {
		return ClassSuccess
	}
	var we *Error
	if errors.As(err, &we) {
		return we.Class
	}
	return ClassOther
}
