package compat

import (
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/shmem"
)

// Class is an MPI error class. Every error this package returns is an
// *Error carrying one; test for a class with errors.Is(err, ErrTruncate).
type Class int

// The MPI error classes this package reports (MPI-3.1 section 8.4).
const (
	ClassSuccess  Class = iota // MPI_SUCCESS
	ClassBuffer                // MPI_ERR_BUFFER
	ClassCount                 // MPI_ERR_COUNT
	ClassType                  // MPI_ERR_TYPE
	ClassTag                   // MPI_ERR_TAG
	ClassComm                  // MPI_ERR_COMM
	ClassRank                  // MPI_ERR_RANK
	ClassRequest               // MPI_ERR_REQUEST
	ClassRoot                  // MPI_ERR_ROOT
	ClassGroup                 // MPI_ERR_GROUP
	ClassOp                    // MPI_ERR_OP
	ClassArg                   // MPI_ERR_ARG
	ClassTruncate              // MPI_ERR_TRUNCATE
	ClassInStatus              // MPI_ERR_IN_STATUS
	ClassNoMem                 // MPI_ERR_NO_MEM
	ClassOther                 // MPI_ERR_OTHER
	numClasses
)

var classNames = [numClasses]string{
	"MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
	"MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP",
	"MPI_ERR_OP", "MPI_ERR_ARG", "MPI_ERR_TRUNCATE", "MPI_ERR_IN_STATUS", "MPI_ERR_NO_MEM",
	"MPI_ERR_OTHER",
}

// String returns the MPI name of the class, e.g. "MPI_ERR_TRUNCATE".
func (c Class) String() string {
	if c < 0 || c >= numClasses {
		return fmt.Sprintf("Class(%d)", int(c))
	}
	return classNames[c]
}

// Error is a compat error: an MPI error class, a message saying what was
// wrong, and possibly the error underneath (a shmem error, or for
// ClassInStatus the joined errors of the failed requests); errors.Is
// reaches it, so errors.Is(err, shmem.ErrAborted) works for a job that
// stopped while this PE waited.
type Error struct {
	Class Class
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	s := "compat: " + e.Class.String()
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

// Sentinels, one per class: errors.Is(err, ErrTag) tests the class.
var (
	// ErrBuffer: a buffer too short for count elements of the datatype, or
	// a send buffer that aliases the receive buffer.
	ErrBuffer = &Error{Class: ClassBuffer}
	// ErrCount: a negative count, or counts/displacements of the wrong length.
	ErrCount = &Error{Class: ClassCount}
	// ErrType: an invalid or freed datatype, or one whose basic type does not
	// match the buffer's element type.
	ErrType = &Error{Class: ClassType}
	// ErrTag: a negative tag on a send, or one above TagUB.
	ErrTag = &Error{Class: ClassTag}
	// ErrComm: a nil or freed communicator, or one of a finalized Env.
	ErrComm = &Error{Class: ClassComm}
	// ErrRank: a peer rank outside the communicator.
	ErrRank = &Error{Class: ClassRank}
	// ErrRequest: a nil or already completed-and-freed request.
	ErrRequest = &Error{Class: ClassRequest}
	// ErrRoot: a collective's root outside the communicator.
	ErrRoot = &Error{Class: ClassRoot}
	// ErrGroup: a group rank out of range or repeated, or a nil group.
	ErrGroup = &Error{Class: ClassGroup}
	// ErrOp: an op not defined for the datatype (MAX on complex, BAND on a
	// float, REPLACE in a reduction).
	ErrOp = &Error{Class: ClassOp}
	// ErrArg: any other invalid argument (a bad option, a nil World).
	ErrArg = &Error{Class: ClassArg}
	// ErrTruncate: a message longer than the receive buffer. The buffer
	// holds the part that fit and the Status says how much that was.
	ErrTruncate = &Error{Class: ClassTruncate}
	// ErrInStatus: Waitall/Testall when some request failed; each Status's
	// Err says which and why.
	ErrInStatus = &Error{Class: ClassInStatus}
	// ErrNoMem: the symmetric heap has no room (Init, AllocMem).
	ErrNoMem = &Error{Class: ClassNoMem}
	// ErrOther: a failure of the runtime underneath (job aborted, World
	// finalized); the shmem error is wrapped.
	ErrOther = &Error{Class: ClassOther}
)

func errorf(c Class, format string, args ...any) error {
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...)}
}

// wrap turns a runtime error into a compat error with a fitting class.
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var ce *Error
	if errors.As(err, &ce) {
		return err
	}
	c := ClassOther
	switch {
	case errors.Is(err, shmem.ErrHeapExhausted):
		c = ClassNoMem
	case errors.Is(err, shmem.ErrBadPE):
		c = ClassRank
	case errors.Is(err, shmem.ErrSizeMismatch), errors.Is(err, shmem.ErrInvalid):
		c = ClassArg
	}
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ClassOf returns the class of err: ClassSuccess for nil, ClassOther for an
// error that is not an *Error (MPI_Error_class).
func ClassOf(err error) Class {
	if err == nil {
		return ClassSuccess
	}
	var ce *Error
	if errors.As(err, &ce) {
		return ce.Class
	}
	return ClassOther
}
