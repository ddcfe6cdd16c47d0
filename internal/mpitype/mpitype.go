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
// MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT): a value and its location, laid
// out as the C structs MPI defines.
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
)

// Elem is the set of element types a buffer may hold: Go's integer,
// float, complex and bool types (and types defined over them) and the
// MAXLOC/MINLOC pair types.
type Elem interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool |
		FloatInt | DoubleInt | LongInt | TwoInt | ShortInt
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
	NumBasic // the number of basic datatypes, for tables indexed by Basic
)

var basicNames = [NumBasic]string{
	"invalid", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T",
	"MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T", "MPI_UINT64_T",
	"MPI_FLOAT", "MPI_DOUBLE", "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX",
	"MPI_C_BOOL", "MPI_BYTE", "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT",
	"MPI_2INT", "MPI_SHORT_INT",
}

var basicSizes = [NumBasic]int{0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 8, 16, 1, 1, 8, 16, 16, 8, 8}

func (b Basic) String() string {
	if b >= NumBasic {
		return fmt.Sprintf("Basic(%d)", b)
	}
	return basicNames[b]
}

// Size returns the size in bytes of one element.
func (b Basic) Size() int {
	if b >= NumBasic {
		return 0
	}
	return basicSizes[b]
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
		}
	}
	return BasicInvalid
}
