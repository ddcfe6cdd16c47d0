// Package mpitype holds the element types and datatypes shared by the
// MPI-style layers (compat and windows): the Go types a buffer may hold, the
// MAXLOC/MINLOC pair types, the predefined MPI datatypes they map to, the
// type maps (Map) behind both layers' derived datatypes, and the predefined
// reduction ops (Op) that compat's reductions and windows' accumulates
// apply. The layers keep their own handles, op numbering, rules and error
// classes around a Map and an Op.
package mpitype

import (
	"fmt"
	"reflect"
)

// Pair types for MAXLOC and MINLOC (MPI_FLOAT_INT, MPI_DOUBLE_INT,
// MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT; MPI_2REAL and
// MPI_2DOUBLE_PRECISION, whose location is a real): a value and its
// location, laid out as the C structs MPI defines. A pair's type map is
// {(value, 0), (location, off)}: its size is the members' sizes alone,
// its extent the struct's, padding included (MPI_DOUBLE_INT: size 12,
// extent 16).
type (
	FloatInt struct {
		Val float32
		Loc int32
	}
	DoubleInt struct {
		Val float64
		Loc int32
	}
	LongInt struct {
		Val int64
		Loc int32
	}
	TwoInt struct {
		Val int32
		Loc int32
	}
	ShortInt struct {
		Val int16
		Loc int32
	}
	TwoReal struct {
		Val float32
		Loc float32
	}
	TwoDouble struct {
		Val float64
		Loc float64
	}
)

// Elem is the set of element types a buffer may hold: Go's integer,
// float, complex and bool types (and types defined over them) and the
// MAXLOC/MINLOC pair types.
type Elem interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool |
		FloatInt | DoubleInt | LongInt | TwoInt | ShortInt | TwoReal | TwoDouble
}

// Basic is a predefined (basic) MPI datatype.
type Basic uint8

// The basic datatypes. Byte is MPI_BYTE: opaque bytes, which a buffer of
// any element type may be sent and received as, and which take only the
// bitwise ops.
const (
	BasicInvalid Basic = iota
	BasicInt8
	BasicInt16
	BasicInt32
	BasicInt64
	BasicUint8
	BasicUint16
	BasicUint32
	BasicUint64
	BasicFloat32
	BasicFloat64
	BasicComplex64
	BasicComplex128
	BasicBool
	BasicByte
	BasicFloatInt
	BasicDoubleInt
	BasicLongInt
	BasicTwoInt
	BasicShortInt
	BasicLongDouble        // C long double: x86-64's x87 80-bit format in 16 bytes
	BasicComplexLongDouble // C long double _Complex: two long doubles
	BasicLongDoubleInt     // MPI_LONG_DOUBLE_INT: a long double and an int: size 20, extent 32
	BasicTwoReal           // MPI_2REAL: two floats, the second a location
	BasicTwoDouble         // MPI_2DOUBLE_PRECISION: two doubles, the second a location
	NumBasic               // the number of basic datatypes, for tables indexed by Basic
)

// BasicMixed is what Map.Basic reports for a type map of several basic
// types (a struct of an int and a double): such a map moves data, and
// takes MPI_REPLACE and MPI_NO_OP, but no reduction.
const BasicMixed Basic = 0xff

var basicNames = [NumBasic]string{
	"invalid", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T",
	"MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T",
	"MPI_FLOAT", "MPI_DOUBLE", "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX",
	"MPI_C_BOOL", "MPI_BYTE", "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT",
	"MPI_2INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE", "MPI_C_LONG_DOUBLE_COMPLEX", "MPI_LONG_DOUBLE_INT",
	"MPI_2REAL", "MPI_2DOUBLE_PRECISION",
}

// basicSizes are the data bytes of one element (MPI_Type_size): a pair's
// members without the padding between and after them.
var basicSizes = [NumBasic]int{0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16, 1, 1, 8, 12, 12, 8, 6, 16, 32, 20, 8, 16}

// basicExtents are the bytes of one element in memory (MPI_Type_get_extent;
// the C struct's sizeof for a pair).
var basicExtents = [NumBasic]int{0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16, 1, 1, 8, 16, 16, 8, 8, 16, 32, 32, 8, 16}

// basicAligns are the C alignments of the basic types on x86-64 (a
// struct's extent is padded to the largest of its members').
var basicAligns = [NumBasic]int{1, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 4, 8, 1, 1, 4, 8, 8, 4, 4, 16, 16, 16, 4, 8}

// basicExt32 are the sizes of one element in the external32 data
// representation (MPI-4.1 15.5.2): no padding; a long double is IEEE
// binary128, a C long 4 bytes.
var basicExt32 = [NumBasic]int{0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16, 1, 1, 8, 12, 8, 8, 6, 16, 32, 20, 8, 16}

// pairLayout is a pair type's two members: the value's basic type and its
// external32 size, and the location's basic type and offset in memory.
type pairLayout struct {
	val, loc Basic
	valExt   int
	locOff   int
}

var pairLayouts = [NumBasic]pairLayout{
	BasicFloatInt:      {BasicFloat32, BasicInt32, 4, 4},
	BasicDoubleInt:     {BasicFloat64, BasicInt32, 8, 8},
	BasicLongInt:       {BasicInt64, BasicInt32, 4, 8},
	BasicTwoInt:        {BasicInt32, BasicInt32, 4, 4},
	BasicShortInt:      {BasicInt16, BasicInt32, 2, 4},
	BasicLongDoubleInt: {BasicLongDouble, BasicInt32, 16, 16},
	BasicTwoReal:       {BasicFloat32, BasicFloat32, 4, 4},
	BasicTwoDouble:     {BasicFloat64, BasicFloat64, 8, 8},
}

// Pair reports whether b is a MAXLOC/MINLOC pair type, and its members'
// basic types.
func (b Basic) Pair() (val, loc Basic, ok bool) {
	if b >= NumBasic || pairLayouts[b].val == BasicInvalid {
		return BasicInvalid, BasicInvalid, false
	}
	return pairLayouts[b].val, pairLayouts[b].loc, true
}

// Elements returns the basic elements of one element of b in MPI's
// count (MPI_Get_elements): 2 for a pair, else 1.
func (b Basic) Elements() int {
	if _, _, ok := b.Pair(); ok {
		return 2
	}
	return 1
}

// Span returns the bytes one element of b covers in memory from its first
// data byte to the end of its last: its extent less the padding after the
// location (MPI_DOUBLE_INT: 12; MPI_SHORT_INT: 8, the padding between
// its members included). An accumulate updates an element's span.
func (b Basic) Span() int {
	if _, _, ok := b.Pair(); ok {
		p := pairLayouts[b]
		return p.locOff + p.loc.Size()
	}
	return b.Size()
}

func (b Basic) String() string {
	if b == BasicMixed {
		return "mixed"
	}
	if b >= NumBasic {
		return fmt.Sprintf("Basic(%d)", b)
	}
	return basicNames[b]
}

// Extent returns the bytes of one element in memory, padding included.
func (b Basic) Extent() int {
	if b >= NumBasic {
		return 0
	}
	return basicExtents[b]
}

// Size returns the data bytes of one element (MPI_Type_size: a pair's
// members without padding, which is also its size packed).
func (b Basic) Size() int {
	if b >= NumBasic {
		return 0
	}
	return basicSizes[b]
}

// Align returns the C alignment of one element (1 for an invalid type).
func (b Basic) Align() int {
	if b >= NumBasic {
		return 1
	}
	return basicAligns[b]
}

// Ext32 returns the size of one element in external32.
func (b Basic) Ext32() int {
	if b >= NumBasic {
		return 0
	}
	return basicExt32[b]
}

// Of returns the basic datatype of T. It switches on the kind, which the
// compiler reads from T's type descriptor, rather than on the type: a type
// switch in generic code costs a conversion and a comparison per case, on
// every message.
func Of[T Elem]() Basic {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float64:
		return BasicFloat64
	case reflect.Uint8:
		return BasicUint8
	case reflect.Float32:
		return BasicFloat32
	case reflect.Int32:
		return BasicInt32
	case reflect.Int64, reflect.Int:
		return BasicInt64
	case reflect.Uint64, reflect.Uint:
		return BasicUint64
	case reflect.Int8:
		return BasicInt8
	case reflect.Int16:
		return BasicInt16
	case reflect.Uint16:
		return BasicUint16
	case reflect.Uint32:
		return BasicUint32
	case reflect.Complex64:
		return BasicComplex64
	case reflect.Complex128:
		return BasicComplex128
	case reflect.Bool:
		return BasicBool
	case reflect.Struct:
		var z T
		switch any(z).(type) {
		case FloatInt:
			return BasicFloatInt
		case DoubleInt:
			return BasicDoubleInt
		case LongInt:
			return BasicLongInt
		case TwoInt:
			return BasicTwoInt
		case ShortInt:
			return BasicShortInt
		case TwoReal:
			return BasicTwoReal
		case TwoDouble:
			return BasicTwoDouble
		}
	}
	return BasicInvalid
}
