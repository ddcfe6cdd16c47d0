package windows

import (
	"errors"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/gshmem/gshmem/shmem"
)

// Errors are compat's: every error this package returns is a *compat.Error
// with one of compat's classes (compat.ErrRMASync, compat.ErrRMARange, ...),
// which errors.Is tests.

func errorf(c compat.Class, format string, args ...any) error {
	return mpierr.Errorf(c, format, args...)
}

// wrap turns a shmem error into a window error with a fitting class: an
// access past a target's window is RMA_RANGE.
// Callers on hot paths test err first: wrap's arguments cost even when
// err is nil.
func wrap(err error, format string, args ...any) error {
	return mpierr.Wrap(err, classifyShmem, format, args...)
}

func classifyShmem(err error) compat.Class {
	if errors.Is(err, shmem.ErrOutOfBounds) {
		return compat.ClassRMARange
	}
	return compat.ClassSuccess
}
