package mpitype

import (
	"fmt"
	"sync/atomic"

	"github.com/gshmem/gshmem/internal/mpierr"
)

// Datatype is the one MPI datatype handle of every MPI layer (compat
// declares it as compat.Datatype, and windows takes that): a type map, or
// the reason there is none, and whether MPI_Type_free was called. The zero
// Datatype is invalid. Constructors never fail; an invalid construction
// gives a Datatype whose Err says why and which every call rejects with
// ErrType.
type Datatype struct{ h *handle }

// handle is what a Datatype points to. Err's fields come first and the
// map's small ones right after: what every Send and Recv reads lies in the
// object's first 48 bytes.
type handle struct {
	err   error
	freed atomic.Bool
	Map
}

// MapOf returns t's type map; t.Err() must be nil. It is a function of this
// internal package, not a method, so that the map stays out of the layers'
// public API.
func MapOf(t Datatype) *Map { return &t.h.Map }

// Predefined returns the datatype handle of basic type b: one handle per
// basic type, so that equal predefined datatypes compare equal.
func Predefined(b Basic) Datatype {
	if b <= BasicInvalid || b >= NumBasic {
		return typeErr("basic type %d is not a datatype", b)
	}
	return predefined[b]
}

var predefined = func() (p [NumBasic]Datatype) {
	for b := BasicInvalid + 1; b < NumBasic; b++ {
		p[b] = Datatype{&handle{Map: BasicMap(b)}}
	}
	return p
}()

// TypeOf returns the predefined datatype of T.
func TypeOf[T Elem]() Datatype { return predefined[Of[T]()] }

func typeErr(format string, args ...any) Datatype {
	return Datatype{&handle{err: mpierr.Errorf(mpierr.ClassType, format, args...)}}
}

// Contiguous is count copies of old, one after the other
// (MPI_Type_contiguous).
func Contiguous(count int, old Datatype) Datatype { return VectorOf(count, 1, 1, old) }

// VectorOf is count blocks of blocklen copies of old, the starts of
// consecutive blocks stride copies of old apart (MPI_Type_vector). Strides
// of a vector of more than one block must be positive. A stride shorter
// than blocklen gives overlapping entries: such a datatype may describe
// data that is only read (the origin of a put or an accumulate), and every
// call that would write through it fails with ErrType.
func VectorOf(count, blocklen, stride int, old Datatype) Datatype {
	o := old.h
	switch {
	case o == nil:
		return typeErr("vector of an invalid datatype")
	case o.err != nil:
		return old
	case o.freed.Load():
		return typeErr("vector of a freed datatype")
	case count < 0 || blocklen < 0:
		return typeErr("vector of %d blocks of %d elements", count, blocklen)
	case count > 1 && stride < 1:
		return typeErr("vector stride %d: strides must be positive", stride)
	case count > MaxRuns || blocklen > MaxRuns || stride > MaxRuns:
		return typeErr("vector of %d blocks of %d at stride %d is too large", count, blocklen, stride)
	}
	if reach := float64((count-1)*max(stride, 0)+blocklen) * float64(o.Extent()); reach > MaxBytes {
		return typeErr("vector of %d blocks of %d at stride %d spans %.0f bytes", count, blocklen, stride, reach)
	}
	m, err := Vector(count, blocklen, max(stride, 0), &o.Map)
	if err != nil {
		return typeErr("%v", err)
	}
	return Datatype{&handle{Map: m}}
}

// Err reports why the datatype is invalid (never built, built from bad
// arguments, or freed), or nil.
func (t Datatype) Err() error {
	if h := t.h; h != nil && h.err == nil && !h.freed.Load() {
		return nil
	}
	switch {
	case t.h == nil:
		return mpierr.Errorf(mpierr.ClassType, "zero Datatype")
	case t.h.err != nil:
		return t.h.err
	}
	return mpierr.Errorf(mpierr.ClassType, "datatype was freed")
}

// Commit returns Err: datatypes need no commit, but ported code that calls
// MPI_Type_commit keeps its shape.
func (t Datatype) Commit() error { return t.Err() }

// Free marks a derived datatype freed (MPI_Type_free); later calls that
// take it fail with ErrType. Predefined datatypes cannot be freed.
func (t Datatype) Free() error {
	if err := t.Err(); err != nil {
		return err
	}
	if t.h.Predefined() {
		return mpierr.Errorf(mpierr.ClassType, "%v is predefined and cannot be freed", t.h.Basic())
	}
	t.h.freed.Store(true)
	return nil
}

// Basic returns the datatype's basic type, BasicInvalid for an invalid
// datatype.
func (t Datatype) Basic() Basic {
	if t.Err() != nil {
		return BasicInvalid
	}
	return t.h.Basic()
}

// Size returns the bytes of data in one instance (MPI_Type_size).
func (t Datatype) Size() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.Size()
}

// Count returns the number of basic elements in one instance.
func (t Datatype) Count() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.Elems()
}

// Extent returns the distance in bytes from one instance to the next
// (MPI_Type_get_extent; the lower bound is always 0).
func (t Datatype) Extent() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.Extent()
}

// Overlap reports whether some bytes of an instance appear twice in the
// datatype (a vector whose stride is shorter than its block).
func (t Datatype) Overlap() bool { return t.Err() == nil && t.h.Overlap() }

func (t Datatype) String() string {
	switch {
	case t.Err() != nil:
		return "invalid datatype"
	case t.h.Predefined():
		return t.h.Basic().String()
	case t.h.Pieces() == 1: // maps start at offset 0: one piece is gap-free
		return fmt.Sprintf("%d x %v", t.h.Elems(), t.h.Basic())
	}
	return t.h.Map.String()
}
