// Package mpierr holds the MPI error classes and the error type shared by
// the MPI-style layers (compat and windows), so that a class means one thing
// in both and errors.Is(err, compat.ErrRank) holds for a window's error too.
package mpierr

import (
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/shmem"
)

// Class is an MPI error class (MPI-3.1 section 8.4).
type Class int

// The classes the layers report.
const (
	ClassSuccess     Class = iota // MPI_SUCCESS
	ClassBuffer                   // MPI_ERR_BUFFER
	ClassCount                    // MPI_ERR_COUNT
	ClassType                     // MPI_ERR_TYPE
	ClassTag                      // MPI_ERR_TAG
	ClassComm                     // MPI_ERR_COMM
	ClassRank                     // MPI_ERR_RANK
	ClassRequest                  // MPI_ERR_REQUEST
	ClassRoot                     // MPI_ERR_ROOT
	ClassGroup                    // MPI_ERR_GROUP
	ClassOp                       // MPI_ERR_OP
	ClassArg                      // MPI_ERR_ARG
	ClassTruncate                 // MPI_ERR_TRUNCATE
	ClassInStatus                 // MPI_ERR_IN_STATUS
	ClassNoMem                    // MPI_ERR_NO_MEM
	ClassWin                      // MPI_ERR_WIN
	ClassSize                     // MPI_ERR_SIZE
	ClassDisp                     // MPI_ERR_DISP
	ClassInfoKey                  // MPI_ERR_INFO_KEY
	ClassInfoValue                // MPI_ERR_INFO_VALUE
	ClassLockType                 // MPI_ERR_LOCKTYPE
	ClassAssert                   // MPI_ERR_ASSERT
	ClassRMASync                  // MPI_ERR_RMA_SYNC
	ClassRMARange                 // MPI_ERR_RMA_RANGE
	ClassRMAConflict              // MPI_ERR_RMA_CONFLICT
	ClassRMAAttach                // MPI_ERR_RMA_ATTACH
	ClassRMAShared                // MPI_ERR_RMA_SHARED
	ClassRMAFlavor                // MPI_ERR_RMA_FLAVOR
	ClassOther                    // MPI_ERR_OTHER
	// The I/O classes (MPI-4.1 section 14.7).
	ClassFile                 // MPI_ERR_FILE
	ClassNotSame              // MPI_ERR_NOT_SAME
	ClassAmode                // MPI_ERR_AMODE
	ClassUnsupportedDatarep   // MPI_ERR_UNSUPPORTED_DATAREP
	ClassUnsupportedOperation // MPI_ERR_UNSUPPORTED_OPERATION
	ClassNoSuchFile           // MPI_ERR_NO_SUCH_FILE
	ClassFileExists           // MPI_ERR_FILE_EXISTS
	ClassBadFile              // MPI_ERR_BAD_FILE
	ClassAccess               // MPI_ERR_ACCESS
	ClassNoSpace              // MPI_ERR_NO_SPACE
	ClassQuota                // MPI_ERR_QUOTA
	ClassReadOnly             // MPI_ERR_READ_ONLY
	ClassFileInUse            // MPI_ERR_FILE_IN_USE
	ClassDupDatarep           // MPI_ERR_DUP_DATAREP
	ClassConversion           // MPI_ERR_CONVERSION
	ClassIO                   // MPI_ERR_IO
	// The fault-tolerance extensions' classes (mpi-ext.h's MPIX_ERR_*):
	// a member of the communicator was lost (a shmem.ErrPeerLost error
	// underneath), a receive from MPI_ANY_SOURCE that a loss left
	// unmatched, and a revoked communicator.
	ClassProcFailed        // MPIX_ERR_PROC_FAILED
	ClassProcFailedPending // MPIX_ERR_PROC_FAILED_PENDING
	ClassRevoked           // MPIX_ERR_REVOKED
	// The dynamic process chapter's (MPI-4.1 section 11): a bad or
	// closed port name, and processes that could not be spawned.
	ClassPort  // MPI_ERR_PORT
	ClassSpawn // MPI_ERR_SPAWN
	numClasses
)

var classNames = [numClasses]string{
	"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
	"MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP",
	"MPI_ERR_OP", "MPI_ERR_ARG", "MPI_ERR_TRUNCATE", "MPI_ERR_IN_STATUS", "MPI_ERR_NO_MEM",
	"MPI_ERR_WIN", "MPI_ERR_SIZE", "MPI_ERR_DISP", "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_VALUE",
	"MPI_ERR_LOCKTYPE", "MPI_ERR_ASSERT", "MPI_ERR_RMA_SYNC", "MPI_ERR_RMA_RANGE",
	"MPI_ERR_RMA_CONFLICT", "MPI_ERR_RMA_ATTACH", "MPI_ERR_RMA_SHARED", "MPI_ERR_RMA_FLAVOR",
	"MPI_ERR_OTHER",
	"MPI_ERR_FILE", "MPI_ERR_NOT_SAME", "MPI_ERR_AMODE", "MPI_ERR_UNSUPPORTED_DATAREP",
	"MPI_ERR_UNSUPPORTED_OPERATION", "MPI_ERR_NO_SUCH_FILE", "MPI_ERR_FILE_EXISTS",
	"MPI_ERR_BAD_FILE", "MPI_ERR_ACCESS", "MPI_ERR_NO_SPACE", "MPI_ERR_QUOTA",
	"MPI_ERR_READ_ONLY", "MPI_ERR_FILE_IN_USE", "MPI_ERR_DUP_DATAREP", "MPI_ERR_CONVERSION",
	"MPI_ERR_IO",
	"MPIX_ERR_PROC_FAILED", "MPIX_ERR_PROC_FAILED_PENDING", "MPIX_ERR_REVOKED",
	"MPI_ERR_PORT", "MPI_ERR_SPAWN",
}

// String returns the MPI name of the class, e.g. "MPI_ERR_TRUNCATE".
func (c Class) String() string {
	if c < 0 || c >= numClasses {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// Error is an MPI-layer error: a class, a message saying what was wrong,
// and possibly the error underneath (a shmem error, or joined request
// errors); errors.Is reaches it, so errors.Is(err, shmem.ErrAborted) works
// for a job that stopped while this PE waited.
type Error struct {
	Class Class
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	s := e.Class.String()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error, if any.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the class sentinel (an *Error with no
// message) of e's class.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Msg == "" && t.Err == nil && t.Class == e.Class
}

// sentinel returns the sentinel of class c.
func sentinel(c Class) *Error { return &Error{Class: c} }

// The class sentinels: errors.Is(err, ErrTag) tests the class.
var (
	ErrBuffer      = sentinel(ClassBuffer)
	ErrCount       = sentinel(ClassCount)
	ErrType        = sentinel(ClassType)
	ErrTag         = sentinel(ClassTag)
	ErrComm        = sentinel(ClassComm)
	ErrRank        = sentinel(ClassRank)
	ErrRequest     = sentinel(ClassRequest)
	ErrRoot        = sentinel(ClassRoot)
	ErrGroup       = sentinel(ClassGroup)
	ErrOp          = sentinel(ClassOp)
	ErrArg         = sentinel(ClassArg)
	ErrTruncate    = sentinel(ClassTruncate)
	ErrInStatus    = sentinel(ClassInStatus)
	ErrNoMem       = sentinel(ClassNoMem)
	ErrWin         = sentinel(ClassWin)
	ErrSize        = sentinel(ClassSize)
	ErrDisp        = sentinel(ClassDisp)
	ErrInfoKey     = sentinel(ClassInfoKey)
	ErrInfoValue   = sentinel(ClassInfoValue)
	ErrLockType    = sentinel(ClassLockType)
	ErrAssert      = sentinel(ClassAssert)
	ErrRMASync     = sentinel(ClassRMASync)
	ErrRMARange    = sentinel(ClassRMARange)
	ErrRMAConflict = sentinel(ClassRMAConflict)
	ErrRMAAttach   = sentinel(ClassRMAAttach)
	ErrRMAShared   = sentinel(ClassRMAShared)
	ErrRMAFlavor   = sentinel(ClassRMAFlavor)
	ErrOther       = sentinel(ClassOther)

	ErrFile                 = sentinel(ClassFile)
	ErrNotSame              = sentinel(ClassNotSame)
	ErrAmode                = sentinel(ClassAmode)
	ErrUnsupportedDatarep   = sentinel(ClassUnsupportedDatarep)
	ErrUnsupportedOperation = sentinel(ClassUnsupportedOperation)
	ErrNoSuchFile           = sentinel(ClassNoSuchFile)
	ErrFileExists           = sentinel(ClassFileExists)
	ErrBadFile              = sentinel(ClassBadFile)
	ErrAccess               = sentinel(ClassAccess)
	ErrNoSpace              = sentinel(ClassNoSpace)
	ErrQuota                = sentinel(ClassQuota)
	ErrReadOnly             = sentinel(ClassReadOnly)
	ErrFileInUse            = sentinel(ClassFileInUse)
	ErrDupDatarep           = sentinel(ClassDupDatarep)
	ErrConversion           = sentinel(ClassConversion)
	ErrIO                   = sentinel(ClassIO)

	ErrProcFailed        = sentinel(ClassProcFailed)
	ErrProcFailedPending = sentinel(ClassProcFailedPending)
	ErrRevoked           = sentinel(ClassRevoked)

	ErrPort  = sentinel(ClassPort)
	ErrSpawn = sentinel(ClassSpawn)
)

// Errorf returns an error of class c.
func Errorf(c Class, format string, args ...any) error {
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...)}
}

// Wrap turns a runtime error into an MPI-layer error: an *Error passes
// through; a shmem error gets the class that fits it (classify may choose
// first, returning ClassSuccess to defer).
func Wrap(err error, classify func(error) Class, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var me *Error
	if errors.As(err, &me) {
		return err
	}
	c := ClassSuccess
	if classify != nil {
		c = classify(err)
	}
	if c == ClassSuccess {
		switch {
		case errors.Is(err, shmem.ErrHeapExhausted):
			c = ClassNoMem
		case errors.Is(err, shmem.ErrBadPE):
			c = ClassRank
		case errors.Is(err, shmem.ErrSizeMismatch), errors.Is(err, shmem.ErrInvalid):
			c = ClassArg
		case errors.Is(err, shmem.ErrPeerLost):
			c = ClassProcFailed
		default:
			c = ClassOther
		}
	}
	var cm *shmem.CollectiveMismatchError
	if errors.As(err, &cm) {
		err = collMismatch{cm, err}
	}
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...), Err: err}
}

// collMismatch says a collective mismatch in MPI's terms: ranks of
// MPI_COMM_WORLD and MPI's matching rule, not the symmetric heap's teams,
// calls and offsets, which stay reachable through Unwrap (errors.Is holds
// for shmem.ErrSizeMismatch).
type collMismatch struct {
	cm  *shmem.CollectiveMismatchError
	err error
}

func (m collMismatch) Error() string {
	s := "the ranks did not all call the same collective with matching arguments (count, datatype, op, root), as MPI requires"
	if m.cm.WorldPE >= 0 {
		return s + fmt.Sprintf(": the process of MPI_COMM_WORLD rank %d made another call", m.cm.WorldPE)
	}
	return s + "; set GSHMEM_DEBUG=warn to learn which rank differs"
}

func (m collMismatch) Unwrap() error { return m.err }

// ClassOf returns the class of err: ClassSuccess for nil, ClassOther for an
// error that is not an *Error (MPI_Error_class).
func ClassOf(err error) Class {
	if err == nil {
		return ClassSuccess
	}
	var me *Error
	if errors.As(err, &me) {
		return me.Class
	}
	return ClassOther
}
