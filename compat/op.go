package compat

import (
	"fmt"
	"unsafe"
)

// Op is a predefined MPI reduction operation.
type Op uint8

// The predefined ops. OpReplace and OpNoOp exist for one-sided accumulate; a
// reduction rejects them with ErrOp.
const (
	OpNull    Op = iota // MPI_OP_NULL: invalid
	OpSum               // MPI_SUM: integers, floats, complex
	OpProd              // MPI_PROD: integers, floats, complex
	OpMax               // MPI_MAX: integers, floats
	OpMin               // MPI_MIN: integers, floats
	OpLand              // MPI_LAND: integers, bool
	OpLor               // MPI_LOR: integers, bool
	OpLxor              // MPI_LXOR: integers, bool
	OpBand              // MPI_BAND: integers, Byte
	OpBor               // MPI_BOR: integers, Byte
	OpBxor              // MPI_BXOR: integers, Byte
	OpMaxloc            // MPI_MAXLOC: the pair types; ties keep the lower location
	OpMinloc            // MPI_MINLOC: the pair types; ties keep the lower location
	OpReplace           // MPI_REPLACE: accumulate only
	OpNoOp              // MPI_NO_OP: accumulate only
	numOps
)

var opNames = [numOps]string{"MPI_OP_NULL", "MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN",
	"MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC",
	"MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"}

func (o Op) String() string {
	if o >= numOps {
		return fmt.Sprintf("Op(%d)", o)
	}
	return opNames[o]
}

func isInt(b Basic) bool  { return b >= BasicInt8 && b <= BasicUint64 }
func isPair(b Basic) bool { return b >= BasicFloatInt && b <= BasicShortInt }

// check reports whether op reduces elements of basic type b.
func (o Op) check(b Basic) error {
	ok := false
	switch o {
	case OpSum, OpProd:
		ok = isInt(b) || (b >= BasicFloat32 && b <= BasicComplex128)
	case OpMax, OpMin:
		ok = isInt(b) || b == BasicFloat32 || b == BasicFloat64
	case OpLand, OpLor, OpLxor:
		ok = isInt(b) || b == BasicBool
	case OpBand, OpBor, OpBxor:
		ok = isInt(b) || b == BasicByte
	case OpMaxloc, OpMinloc:
		ok = isPair(b)
	case OpReplace, OpNoOp:
		return errorf(ClassOp, "%v is for accumulate, not reductions", o)
	default:
		return errorf(ClassOp, "%v is not a predefined op", o)
	}
	if !ok {
		return errorf(ClassOp, "%v is not defined for %v", o, b)
	}
	return nil
}

func cast[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// apply computes inout[i] = in[i] op inout[i] over packed elements of b;
// op has been checked against b.
func (o Op) apply(b Basic, in, inout []byte) {
	switch b {
	case BasicInt8:
		intOp(o, cast[int8](in), cast[int8](inout))
	case BasicInt16:
		intOp(o, cast[int16](in), cast[int16](inout))
	case BasicInt32:
		intOp(o, cast[int32](in), cast[int32](inout))
	case BasicInt64:
		intOp(o, cast[int64](in), cast[int64](inout))
	case BasicUint8, BasicByte:
		intOp(o, cast[uint8](in), cast[uint8](inout))
	case BasicUint16:
		intOp(o, cast[uint16](in), cast[uint16](inout))
	case BasicUint32:
		intOp(o, cast[uint32](in), cast[uint32](inout))
	case BasicUint64:
		intOp(o, cast[uint64](in), cast[uint64](inout))
	case BasicFloat32:
		floatOp(o, cast[float32](in), cast[float32](inout))
	case BasicFloat64:
		floatOp(o, cast[float64](in), cast[float64](inout))
	case BasicComplex64:
		complexOp(o, cast[complex64](in), cast[complex64](inout))
	case BasicComplex128:
		complexOp(o, cast[complex128](in), cast[complex128](inout))
	case BasicBool:
		boolOp(o, cast[bool](in), cast[bool](inout))
	case BasicFloatInt:
		locOp[float32](o, in, inout, 8, 4)
	case BasicDoubleInt:
		locOp[float64](o, in, inout, 16, 8)
	case BasicLongInt:
		locOp[int64](o, in, inout, 16, 8)
	case BasicTwoInt:
		locOp[int32](o, in, inout, 8, 4)
	case BasicShortInt:
		locOp[int16](o, in, inout, 8, 4)
	}
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func truth[T integer](v bool) T {
	if v {
		return 1
	}
	return 0
}

func intOp[T integer](o Op, in, io []T) {
	switch o {
	case OpSum:
		for i := range io {
			io[i] += in[i]
		}
	case OpProd:
		for i := range io {
			io[i] *= in[i]
		}
	case OpMax:
		for i := range io {
			io[i] = max(io[i], in[i])
		}
	case OpMin:
		for i := range io {
			io[i] = min(io[i], in[i])
		}
	case OpLand:
		for i := range io {
			io[i] = truth[T](in[i] != 0 && io[i] != 0)
		}
	case OpLor:
		for i := range io {
			io[i] = truth[T](in[i] != 0 || io[i] != 0)
		}
	case OpLxor:
		for i := range io {
			io[i] = truth[T]((in[i] != 0) != (io[i] != 0))
		}
	case OpBand:
		for i := range io {
			io[i] &= in[i]
		}
	case OpBor:
		for i := range io {
			io[i] |= in[i]
		}
	case OpBxor:
		for i := range io {
			io[i] ^= in[i]
		}
	}
}

func floatOp[T ~float32 | ~float64](o Op, in, io []T) {
	switch o {
	case OpSum:
		for i := range io {
			io[i] = in[i] + io[i]
		}
	case OpProd:
		for i := range io {
			io[i] = in[i] * io[i]
		}
	case OpMax:
		for i := range io {
			if in[i] > io[i] {
				io[i] = in[i]
			}
		}
	case OpMin:
		for i := range io {
			if in[i] < io[i] {
				io[i] = in[i]
			}
		}
	}
}

func complexOp[T ~complex64 | ~complex128](o Op, in, io []T) {
	switch o {
	case OpSum:
		for i := range io {
			io[i] = in[i] + io[i]
		}
	case OpProd:
		for i := range io {
			io[i] = in[i] * io[i]
		}
	}
}

func boolOp(o Op, in, io []bool) {
	for i := range io {
		switch o {
		case OpLand:
			io[i] = in[i] && io[i]
		case OpLor:
			io[i] = in[i] || io[i]
		case OpLxor:
			io[i] = in[i] != io[i]
		}
	}
}

// locOp is OpMaxloc/OpMinloc over pairs of size bytes whose value of type V is
// at offset 0 and whose int32 location is at locOff.
func locOp[V ~int16 | ~int32 | ~int64 | ~float32 | ~float64](o Op, in, io []byte, size, locOff int) {
	for i := 0; i+size <= len(io); i += size {
		a, b := (*V)(unsafe.Pointer(&in[i])), (*V)(unsafe.Pointer(&io[i]))
		la, lb := (*int32)(unsafe.Pointer(&in[i+locOff])), (*int32)(unsafe.Pointer(&io[i+locOff]))
		better := (o == OpMaxloc && *a > *b) || (o == OpMinloc && *a < *b)
		if better || (*a == *b && *la < *lb) {
			*b, *lb = *a, *la
		}
	}
}

// ReduceLocal computes inout = in op inout elementwise over count
// instances of dt (MPI_Reduce_local).
func ReduceLocal[T Elem](in, inout []T, count int, dt Datatype, op Op) error {
	ib, size, err := view(in, count, dt, "input")
	if err != nil {
		return err
	}
	ob, _, err := view(inout, count, dt, "inout")
	if err != nil {
		return err
	}
	if err := op.check(dt.d.Basic()); err != nil {
		return err
	}
	if dt.d.Contiguous() {
		op.apply(dt.d.Basic(), ib[:size], ob[:size])
		return nil
	}
	a, b := make([]byte, size), make([]byte, size)
	dt.d.Pack(a, ib, count)
	dt.d.Pack(b, ob, count)
	op.apply(dt.d.Basic(), a, b)
	dt.d.Unpack(ob, b, count)
	return nil
}
