package compat

import (
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Element types and basic datatypes, shared with the other MPI-style layer.
type (
	// FloatInt, DoubleInt, LongInt, TwoInt, ShortInt, TwoReal and
	// TwoDouble are the MAXLOC and MINLOC pair types (MPI_FLOAT_INT, ...,
	// MPI_2REAL, MPI_2DOUBLE_PRECISION): a value and its location. A
	// pair's datatype has the members' size and the struct's extent
	// (DoubleIntT: Size 12, Extent 16).
	FloatInt  = mpitype.FloatInt
	DoubleInt = mpitype.DoubleInt
	LongInt   = mpitype.LongInt
	TwoInt    = mpitype.TwoInt
	ShortInt  = mpitype.ShortInt
	TwoReal   = mpitype.TwoReal
	TwoDouble = mpitype.TwoDouble
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
	BasicTwoReal    = mpitype.BasicTwoReal
	BasicTwoDouble  = mpitype.BasicTwoDouble
	numBasic        = mpitype.NumBasic
)

// basicOf returns the basic datatype of T.
func basicOf[T Elem]() Basic { return mpitype.Of[T]() }

// Datatype describes the layout of count elements in a buffer, as an MPI
// datatype (MPI_Datatype): any MPI type map (MPI-4.1 chapter 5): basic
// types, contiguous, vector, indexed and struct arrangements of other
// datatypes at any displacement, with explicit bounds (Resized). It is the
// one datatype of every gshmem MPI layer: windows takes the same values,
// and so does the C library. The zero Datatype is invalid. Constructors
// never fail; an invalid construction gives a Datatype whose Err reports
// why and that every call rejects with ErrType. Its methods: Err, Commit,
// Free (MPI_Type_free), Basic (BasicMixed for several basic types), Size
// (MPI_Type_size), Count (basic elements per instance), Extent and LB
// (MPI_Type_get_extent), TrueLB and TrueExtent
// (MPI_Type_get_true_extent), Overlap, String. A buffer holds a datatype's
// data from its true lower bound: buf[0] is the byte at displacement
// TrueLB (0 for every map whose first data byte is at its origin).
type Datatype = mpitype.Datatype

// The predefined datatypes, one handle each. MPI's C names map as: MPI_INT
// -> Int32, MPI_LONG -> Int64, MPI_FLOAT -> Float32, MPI_DOUBLE -> Float64,
// MPI_CHAR -> Int8, MPI_UNSIGNED_CHAR -> Uint8, MPI_BYTE -> Byte,
// MPI_C_BOOL -> Bool (see porting-guide/01-mpi.md). Go's int and uint are
// Int64 and Uint64.
var (
	Int8       = mpitype.Predefined(BasicInt8)
	Int16      = mpitype.Predefined(BasicInt16)
	Int32      = mpitype.Predefined(BasicInt32)
	Int64      = mpitype.Predefined(BasicInt64)
	Uint8      = mpitype.Predefined(BasicUint8)
	Uint16     = mpitype.Predefined(BasicUint16)
	Uint32     = mpitype.Predefined(BasicUint32)
	Uint64     = mpitype.Predefined(BasicUint64)
	Float32    = mpitype.Predefined(BasicFloat32)
	Float64    = mpitype.Predefined(BasicFloat64)
	Complex64  = mpitype.Predefined(BasicComplex64)
	Complex128 = mpitype.Predefined(BasicComplex128)
	Bool       = mpitype.Predefined(BasicBool)
	Byte       = mpitype.Predefined(BasicByte)
	FloatIntT  = mpitype.Predefined(BasicFloatInt)
	DoubleIntT = mpitype.Predefined(BasicDoubleInt)
	LongIntT   = mpitype.Predefined(BasicLongInt)
	TwoIntT    = mpitype.Predefined(BasicTwoInt)
	ShortIntT  = mpitype.Predefined(BasicShortInt)
	TwoRealT   = mpitype.Predefined(BasicTwoReal)
	TwoDoubleT = mpitype.Predefined(BasicTwoDouble)
)

// TypeOf returns the predefined datatype of T (Int64 for int, Uint8 for
// byte).
func TypeOf[T Elem]() Datatype { return mpitype.TypeOf[T]() }

// Contiguous is count copies of old, one after the other
// (MPI_Type_contiguous).
func Contiguous(count int, old Datatype) Datatype { return mpitype.Contiguous(count, old) }

// Vector is count blocks of blocklen copies of old, the starts of
// consecutive blocks stride copies of old apart (MPI_Type_vector). A
// stride shorter than blocklen gives overlapping entries: windows takes
// such a datatype for data it only reads (a put's origin); compat's calls
// reject it with ErrType, since they may write through any buffer.
func Vector(count, blocklen, stride int, old Datatype) Datatype {
	return mpitype.VectorOf(count, blocklen, stride, old)
}

// BasicMixed is the Basic of a datatype of several basic types (a struct
// of an int and a double): it moves data, and takes no reduction.
const BasicMixed = mpitype.BasicMixed

// HVector is Vector with the stride in bytes (MPI_Type_create_hvector).
func HVector(count, blocklen, stride int, old Datatype) Datatype {
	return mpitype.HVectorOf(count, blocklen, stride, old)
}

// Block is Count copies of Old at Disp bytes from a datatype's origin: a
// block of Indexed and Struct.
type Block = mpitype.Block

// Indexed is blocks of one or several datatypes at byte displacements of
// any sign (MPI_Type_create_hindexed; MPI_Type_indexed with displacements
// times the old extent). Blocks of no elements do not count for the
// bounds.
func Indexed(blocks []Block) Datatype { return mpitype.BlocksOf(blocks) }

// Struct is Indexed with a C struct's extent: padded to the largest
// alignment of its basic types unless a member has explicit bounds
// (MPI_Type_create_struct).
func Struct(blocks []Block) Datatype { return mpitype.StructOf(blocks) }

// Resized is old with lower bound lb and extent extent
// (MPI_Type_create_resized): the data stays, instances are extent bytes
// apart, and the bounds stay explicit in the types built on it.
func Resized(old Datatype, lb, extent int) Datatype { return mpitype.ResizedOf(old, lb, extent) }

// mapOf is the type map of a checked datatype.
func mapOf(t Datatype) *mpitype.Map { return mpitype.MapOf(t) }

// view checks buf against count instances of dt and returns its bytes and
// the number of data bytes count instances hold. A buffer starts at the
// datatype's true lower bound (its first data byte): at its origin for
// the maps whose data starts at displacement 0, and where the C library
// puts the user's pointer plus the true lower bound.
//
// view is for buffers MPI writes into (a receive buffer, which MPI
// forbids to overlap itself); srcView for those it only reads (a send
// buffer, whose type may name a byte twice).
func view[T Elem](buf []T, count int, dt Datatype, what string) ([]byte, int, error) {
	return checkedView(buf, count, dt, what, true)
}

// srcView is view for a buffer that is only read.
func srcView[T Elem](buf []T, count int, dt Datatype, what string) ([]byte, int, error) {
	return checkedView(buf, count, dt, what, false)
}

func checkedView[T Elem](buf []T, count int, dt Datatype, what string, dst bool) ([]byte, int, error) {
	if err := dt.Err(); err != nil {
		return nil, 0, err
	}
	if count < 0 {
		return nil, 0, errorf(ClassCount, "%s count %d", what, count)
	}
	d := mapOf(dt)
	if count > 1 && d.Extent() < 0 {
		return nil, 0, errorf(ClassType, "%s: %d instances of datatype %v of negative extent", what, count, dt)
	}
	if dst && d.Overlap() {
		return nil, 0, errorf(ClassType, "%s: datatype %v has overlapping entries", what, dt)
	}
	if d.Basic() != BasicByte { // Byte fits any buffer
		if b := basicOf[T](); d.Basic() != b && b != BasicUint8 {
			return nil, 0, errorf(ClassType, "%s: datatype %v does not fit a buffer of %v", what, dt, b)
		}
	}
	bytes := mpitype.AsBytes(buf)
	sz := d.Size()
	// Products checked for overflow instead of quotients: a division costs
	// more than the rest of a small message's checks.
	// (An overlapping map's data may outnumber the bytes it spans: the
	// span check below is then the one that holds.)
	if sz > 0 && !d.Overlap() && !mpitype.Fits(count, sz, len(bytes)) {
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
