package compat

import (
	"sync/atomic"

	"github.com/gshmem/gshmem/internal/mpitype"
)

// Element types and basic datatypes, shared with the other MPI-style layer.
type (
	// FloatInt, DoubleInt, LongInt, TwoInt and ShortInt are the MAXLOC and
	// MINLOC pair types (MPI_FLOAT_INT, ...): a value and its location.
	FloatInt  = mpitype.FloatInt
	DoubleInt = mpitype.DoubleInt
	LongInt   = mpitype.LongInt
	TwoInt    = mpitype.TwoInt
	ShortInt  = mpitype.ShortInt
	// Elem is the set of element types a buffer may hold.
	Elem = mpitype.Elem
	// Basic is a predefined (basic) MPI datatype.
	Basic = mpitype.Basic
)

// The basic datatypes. Byte is MPI_BYTE: opaque bytes, which take only the
// bitwise ops, REPLACE and NO_OP.
const (
	BasicInvalid    = mpitype.BasicInvalid
	BasicInt8       = mpitype.BasicInt8
	BasicInt16      = mpitype.BasicInt16
	BasicInt32      = mpitype.BasicInt32
	BasicInt64      = mpitype.BasicInt64
	BasicUint8      = mpitype.BasicUint8
	BasicUint16     = mpitype.BasicUint16
	BasicUint32     = mpitype.BasicUint32
	BasicUint64     = mpitype.BasicUint64
	BasicFloat32    = mpitype.BasicFloat32
	BasicFloat64    = mpitype.BasicFloat64
	BasicComplex64  = mpitype.BasicComplex64
	BasicComplex128 = mpitype.BasicComplex128
	BasicBool       = mpitype.BasicBool
	BasicByte       = mpitype.BasicByte
	BasicFloatInt   = mpitype.BasicFloatInt
	BasicDoubleInt  = mpitype.BasicDoubleInt
	BasicLongInt    = mpitype.BasicLongInt
	BasicTwoInt     = mpitype.BasicTwoInt
	BasicShortInt   = mpitype.BasicShortInt
	numBasic        = mpitype.NumBasic
)

// basicOf returns the basic datatype of T.
func basicOf[T Elem]() Basic { return mpitype.Of[T]() }

// Datatype describes the layout of count elements in a buffer, as an MPI
// datatype: a basic type, or a contiguous or vector (strided) arrangement
// of another datatype. The zero Datatype is invalid. Constructors never
// fail; an invalid construction gives a Datatype whose Err reports why and
// that every call rejects with ErrType.
type Datatype struct{ d *dtype }

// dtype is a datatype handle: its type map and what MPI says of the handle.
// Err's fields come first and the map's small ones right after: what every
// Send and Recv reads lies in the object's first 48 bytes.
type dtype struct {
	err   error
	freed atomic.Bool
	mpitype.Map
}

func basicType(b Basic) Datatype { return Datatype{&dtype{Map: mpitype.BasicMap(b)}} }

// The predefined datatypes. MPI's C names map as: MPI_INT -> Int32,
// MPI_LONG -> Int64, MPI_FLOAT -> Float32, MPI_DOUBLE -> Float64,
// MPI_CHAR -> Int8, MPI_UNSIGNED_CHAR -> Uint8, MPI_BYTE -> Byte,
// MPI_C_BOOL -> Bool (see porting-guide/01-mpi.md). Go's int and uint are
// Int64 and Uint64.
var (
	Int8       = basicType(BasicInt8)
	Int16      = basicType(BasicInt16)
	Int32      = basicType(BasicInt32)
	Int64      = basicType(BasicInt64)
	Uint8      = basicType(BasicUint8)
	Uint16     = basicType(BasicUint16)
	Uint32     = basicType(BasicUint32)
	Uint64     = basicType(BasicUint64)
	Float32    = basicType(BasicFloat32)
	Float64    = basicType(BasicFloat64)
	Complex64  = basicType(BasicComplex64)
	Complex128 = basicType(BasicComplex128)
	Bool       = basicType(BasicBool)
	Byte       = basicType(BasicByte)
	FloatIntT  = basicType(BasicFloatInt)
	DoubleIntT = basicType(BasicDoubleInt)
	LongIntT   = basicType(BasicLongInt)
	TwoIntT    = basicType(BasicTwoInt)
	ShortIntT  = basicType(BasicShortInt)
)

// TypeOf returns the basic datatype of T (Int64 for int, Uint8 for byte).
func TypeOf[T Elem]() Datatype { return basicType(basicOf[T]()) }

func badType(format string, args ...any) Datatype {
	return Datatype{&dtype{err: errorf(ClassType, format, args...)}}
}

// Contiguous is count copies of old, one after the other
// (MPI_Type_contiguous).
func Contiguous(count int, old Datatype) Datatype { return Vector(count, 1, 1, old) }

// Vector is count blocks of blocklen copies of old, the starts of
// consecutive blocks stride copies of old apart (MPI_Type_vector). The
// stride must be at least blocklen: compat types never overlap.
func Vector(count, blocklen, stride int, old Datatype) Datatype {
	o := old.d
	switch {
	case o == nil:
		return badType("vector of an invalid datatype")
	case o.err != nil:
		return old
	case o.freed.Load():
		return badType("vector of a freed datatype")
	case count < 0 || blocklen < 0:
		return badType("vector of %d blocks of %d elements", count, blocklen)
	case count > 1 && stride < blocklen:
		return badType("vector stride %d is shorter than its block of %d: entries would overlap", stride, blocklen)
	case count > mpitype.MaxRuns || blocklen > mpitype.MaxRuns || stride > mpitype.MaxRuns:
		return badType("vector of %d blocks of %d at stride %d is too large", count, blocklen, stride)
	}
	if reach := float64((count-1)*stride+blocklen) * float64(o.Extent()); reach > mpitype.MaxBytes {
		return badType("vector of %d blocks of %d at stride %d spans %.0f bytes", count, blocklen, stride, reach)
	}
	m, err := mpitype.Vector(count, blocklen, stride, &o.Map)
	if err != nil {
		return badType("%v", err)
	}
	return Datatype{&dtype{Map: m}}
}

// Err reports why the datatype is invalid, or nil.
func (t Datatype) Err() error {
	if d := t.d; d != nil && d.err == nil && !d.freed.Load() {
		return nil
	}
	return t.invalid()
}

func (t Datatype) invalid() error {
	switch {
	case t.d == nil:
		return errorf(ClassType, "zero Datatype")
	case t.d.err != nil:
		return t.d.err
	case t.d.freed.Load():
		return errorf(ClassType, "datatype was freed")
	}
	return nil
}

// Commit returns Err: compat datatypes need no commit, but ported code that
// calls MPI_Type_commit keeps its shape.
func (t Datatype) Commit() error { return t.Err() }

// Free marks a derived datatype freed (MPI_Type_free); later calls that
// take it fail with ErrType. Predefined datatypes cannot be freed.
func (t Datatype) Free() error {
	if err := t.Err(); err != nil {
		return err
	}
	if t.d.Predefined() {
		return errorf(ClassType, "%v is predefined and cannot be freed", t.d.Basic())
	}
	t.d.freed.Store(true)
	return nil
}

// Basic returns the datatype's basic type.
func (t Datatype) Basic() Basic {
	if t.Err() != nil {
		return BasicInvalid
	}
	return t.d.Basic()
}

// Size returns the bytes of data in one instance (MPI_Type_size).
func (t Datatype) Size() int {
	if t.Err() != nil {
		return 0
	}
	return t.d.Size()
}

// Extent returns the distance in bytes from one instance to the next
// (MPI_Type_get_extent; the lower bound is always 0).
func (t Datatype) Extent() int {
	if t.Err() != nil {
		return 0
	}
	return t.d.Extent()
}

func (t Datatype) String() string {
	if err := t.Err(); err != nil {
		return "invalid datatype"
	}
	if t.d.Predefined() {
		return t.d.Basic().String()
	}
	return t.d.Map.String()
}

// view checks buf against count instances of dt and returns its bytes and
// the number of data bytes count instances hold.
func view[T Elem](buf []T, count int, dt Datatype, what string) ([]byte, int, error) {
	if err := dt.Err(); err != nil {
		return nil, 0, err
	}
	if count < 0 {
		return nil, 0, errorf(ClassCount, "%s count %d", what, count)
	}
	d := dt.d
	if d.Basic() != BasicByte { // Byte fits any buffer
		if b := basicOf[T](); d.Basic() != b && b != BasicUint8 {
			return nil, 0, errorf(ClassType, "%s: datatype %v does not fit a buffer of %v", what, dt, b)
		}
	}
	bytes := mpitype.AsBytes(buf)
	sz := d.Size()
	// Products checked for overflow instead of quotients: a division costs
	// more than the rest of a small message's checks.
	if sz > 0 && !mpitype.Fits(count, sz, len(bytes)) {
		return nil, 0, errorf(ClassBuffer, "%s buffer of %d bytes is too short for %d x %v", what, len(bytes), count, dt)
	}
	if d.Predefined() { // its extent and span are its size's: checked
		return bytes, count * sz, nil
	}
	if d.Extent() > 0 && count > 0 && !mpitype.Fits(count-1, d.Extent(), len(bytes)) {
		return nil, 0, errorf(ClassBuffer, "%s buffer of %d bytes is too short for %d x %v", what, len(bytes), count, dt)
	}
	if need := d.Span(count); need > len(bytes) {
		return nil, 0, errorf(ClassBuffer, "%s buffer of %d bytes is too short for %d x %v (%d bytes)", what, len(bytes), count, dt, need)
	}
	return bytes, count * sz, nil
}
