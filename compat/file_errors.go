package compat

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/gshmem/gshmem/internal/mpierr"
)

// The I/O error classes (MPI-4.1 section 14.7), which File's calls return.
const (
	ClassFile                 = mpierr.ClassFile
	ClassNotSame              = mpierr.ClassNotSame
	ClassAmode                = mpierr.ClassAmode
	ClassUnsupportedDatarep   = mpierr.ClassUnsupportedDatarep
	ClassUnsupportedOperation = mpierr.ClassUnsupportedOperation
	ClassNoSuchFile           = mpierr.ClassNoSuchFile
	ClassFileExists           = mpierr.ClassFileExists
	ClassBadFile              = mpierr.ClassBadFile
	ClassAccess               = mpierr.ClassAccess
	ClassNoSpace              = mpierr.ClassNoSpace
	ClassQuota                = mpierr.ClassQuota
	ClassReadOnly             = mpierr.ClassReadOnly
	ClassFileInUse            = mpierr.ClassFileInUse
	ClassDupDatarep           = mpierr.ClassDupDatarep
	ClassConversion           = mpierr.ClassConversion
	ClassIO                   = mpierr.ClassIO
)

// The I/O sentinels: errors.Is(err, ErrNoSuchFile) tests the class.
var (
	// ErrFile: a nil or closed File.
	ErrFile = mpierr.ErrFile
	// ErrNotSame: a collective argument that differs between members (the
	// access mode of OpenFile, the datarep of SetView, the size of SetSize).
	ErrNotSame = mpierr.ErrNotSame
	// ErrAmode: an access mode OpenFile does not take (RDONLY with CREATE,
	// none or two of RDONLY/WRONLY/RDWR, SEQUENTIAL with RDWR), or a read of
	// a file opened WRONLY, or a write of one opened RDONLY.
	ErrAmode = mpierr.ErrAmode
	// ErrUnsupportedDatarep: a data representation that is not native,
	// internal, external32 or registered.
	ErrUnsupportedDatarep = mpierr.ErrUnsupportedDatarep
	// ErrUnsupportedOperation: an individual-pointer or explicit-offset
	// access on a file opened SEQUENTIAL.
	ErrUnsupportedOperation = mpierr.ErrUnsupportedOperation
	// ErrNoSuchFile: the file does not exist (and CREATE was not asked).
	ErrNoSuchFile = mpierr.ErrNoSuchFile
	// ErrFileExists: CREATE|EXCL of a file that exists.
	ErrFileExists = mpierr.ErrFileExists
	// ErrBadFile: a file name the file system refuses.
	ErrBadFile = mpierr.ErrBadFile
	// ErrAccess: permission denied.
	ErrAccess = mpierr.ErrAccess
	// ErrNoSpace, ErrQuota: the file system is full, or the user's quota is.
	ErrNoSpace = mpierr.ErrNoSpace
	ErrQuota   = mpierr.ErrQuota
	// ErrReadOnly: a write to a read-only file system.
	ErrReadOnly = mpierr.ErrReadOnly
	// ErrFileInUse: DeleteFile of a file another open holds (not detected on
	// POSIX file systems, where unlinking an open file is allowed).
	ErrFileInUse = mpierr.ErrFileInUse
	// ErrDupDatarep: RegisterDatarep of a name already registered.
	ErrDupDatarep = mpierr.ErrDupDatarep
	// ErrConversion: a value that does not fit its external32 size, or a
	// user conversion function that failed.
	ErrConversion = mpierr.ErrConversion
	// ErrIO: any other I/O error.
	ErrIO = mpierr.ErrIO
)

// ioError turns an error of the os package into an I/O class.
func ioError(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var me *Error
	if errors.As(err, &me) {
		return err
	}
	c := ClassIO
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c = ClassNoSuchFile
	case errors.Is(err, fs.ErrExist):
		c = ClassFileExists
	case errors.Is(err, fs.ErrPermission):
		c = ClassAccess
	case errors.As(err, &errno):
		switch errno {
		case syscall.EROFS:
			c = ClassReadOnly
		case syscall.ENOSPC:
			c = ClassNoSpace
		case syscall.EDQUOT:
			c = ClassQuota
		case syscall.ENAMETOOLONG, syscall.EISDIR, syscall.ENOTDIR, syscall.ELOOP:
			c = ClassBadFile
		case syscall.EBUSY, syscall.ETXTBSY:
			c = ClassFileInUse
		}
	}
	return &Error{Class: c, Msg: fmt.Sprintf(format, args...), Err: err}
}
