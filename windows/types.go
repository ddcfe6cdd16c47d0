package windows

import (
	"fmt"

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
// datatype: a basic type, and contiguous or vector (strided) arrangement
// of it. The zero Datatype is invalid. Constructors never fail; an invalid
// construction gives a Datatype whose Err reports why and that every
// operation rejects with ErrType.
type Datatype struct{ d *dtype }

// dtype is a datatype handle: its type map, or why it has none.
type dtype struct {
	mpitype.Map
	err error
}

func basicType(b Basic) Datatype { return Datatype{&dtype{Map: mpitype.BasicMap(b)}} }

// The predefined datatypes.
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
// consecutive blocks stride copies of old apart (MPI_Type_vector). Strides
// must be positive; a stride shorter than blocklen gives overlapping
// entries, which only origin buffers of Put and Accumulate may have.
func Vector(count, blocklen, stride int, old Datatype) Datatype {
	o := old.d
	switch {
	case o == nil:
		return badType("vector of an invalid datatype")
	case o.err != nil:
		return old
	case count < 0 || blocklen < 0:
		return badType("vector of %d blocks of %d elements", count, blocklen)
	case stride < 1:
		return badType("vector stride %d: strides must be positive", stride)
	case count > 0 && blocklen > 0 && (count > mpitype.MaxRuns || blocklen > mpitype.MaxRuns || stride > mpitype.MaxRuns):
		return badType("vector of %d blocks of %d at stride %d is too large", count, blocklen, stride)
	}
	if span := (count-1)*stride + blocklen; o.Extent() > 0 && span > mpitype.MaxBytes/o.Extent() {
		return badType("vector of %d blocks at stride %d spans more than %d bytes", count, stride, mpitype.MaxBytes)
	}
	m, err := mpitype.Vector(count, blocklen, stride, &o.Map)
	if err != nil {
		return badType("%v", err)
	}
	return Datatype{&dtype{Map: m}}
}

// Err reports why the datatype is invalid, or nil.
func (t Datatype) Err() error {
	if t.d == nil {
		return errorf(ClassType, "zero Datatype")
	}
	return t.d.err
}

// Basic returns the datatype's basic type.
func (t Datatype) Basic() Basic {
	if t.Err() != nil {
		return BasicInvalid
	}
	return t.d.Basic()
}

// Count returns the number of basic elements in one instance.
func (t Datatype) Count() int {
	if t.Err() != nil {
		return 0
	}
	return t.d.Elems()
}

// Extent returns the distance in bytes from one instance to the next.
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
	if t.d.Pieces() == 1 { // maps start at offset 0: one piece is gap-free
		return fmt.Sprintf("%d x %v", t.d.Elems(), t.d.Basic())
	}
	return t.d.Map.String()
}
