package windows

import (
	"fmt"
	"unsafe"
)

// Op is a predefined MPI reduction op for Accumulate, GetAccumulate and
// FetchAndOp. The target element becomes "target op origin".
type Op uint8

// The predefined ops. The zero Op is invalid.
const (
	OpSum     Op = iota + 1 // MPI_SUM: integers, floats, complex
	OpProd                  // MPI_PROD: integers, floats, complex
	OpMax                   // MPI_MAX: integers, floats
	OpMin                   // MPI_MIN: integers, floats
	OpLand                  // MPI_LAND: integers, bool (result 1 or 0)
	OpBand                  // MPI_BAND: integers, Byte
	OpLor                   // MPI_LOR
	OpBor                   // MPI_BOR
	OpLxor                  // MPI_LXOR
	OpBxor                  // MPI_BXOR
	OpMaxloc                // MPI_MAXLOC: pair types; ties keep the lower location
	OpMinloc                // MPI_MINLOC
	OpReplace               // MPI_REPLACE: every type
	OpNoOp                  // MPI_NO_OP: every type, GetAccumulate and FetchAndOp only
	numOps
)

var opNames = [numOps]string{"invalid", "MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN",
	"MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR",
	"MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"}

func (o Op) String() string {
	if o >= numOps {
		return fmt.Sprintf("Op(%d)", o)
	}
	return opNames[o]
}

func opSet(ops ...Op) uint32 {
	var m uint32
	for _, o := range ops {
		m |= 1 << o
	}
	return m
}

var (
	intOps     = opSet(OpSum, OpProd, OpMax, OpMin, OpLand, OpBand, OpLor, OpBor, OpLxor, OpBxor, OpReplace, OpNoOp)
	floatOps   = opSet(OpSum, OpProd, OpMax, OpMin, OpReplace, OpNoOp)
	complexOps = opSet(OpSum, OpProd, OpReplace, OpNoOp)
	boolOps    = opSet(OpLand, OpLor, OpLxor, OpReplace, OpNoOp)
	byteOps    = opSet(OpBand, OpBor, OpBxor, OpReplace, OpNoOp)
	pairOps    = opSet(OpMaxloc, OpMinloc, OpReplace, OpNoOp)
)

// kind is what the accumulate engine knows about a basic type.
type kind struct {
	basic Basic
	size  int
	ops   uint32 // the ops defined for it
	cas   bool   // CompareAndSwap takes it
	isInt bool   // an integer type: hardware add, and, or apply
}

var kinds = [numBasic]kind{
	BasicInt8:       {BasicInt8, 1, intOps, true, true},
	BasicInt16:      {BasicInt16, 2, intOps, true, true},
	BasicInt32:      {BasicInt32, 4, intOps, true, true},
	BasicInt64:      {BasicInt64, 8, intOps, true, true},
	BasicUint8:      {BasicUint8, 1, intOps, true, true},
	BasicUint16:     {BasicUint16, 2, intOps, true, true},
	BasicUint32:     {BasicUint32, 4, intOps, true, true},
	BasicUint64:     {BasicUint64, 8, intOps, true, true},
	BasicFloat32:    {BasicFloat32, 4, floatOps, false, false},
	BasicFloat64:    {BasicFloat64, 8, floatOps, false, false},
	BasicComplex64:  {BasicComplex64, 8, complexOps, false, false},
	BasicComplex128: {BasicComplex128, 16, complexOps, false, false},
	BasicBool:       {BasicBool, 1, boolOps, true, false},
	BasicByte:       {BasicByte, 1, byteOps, true, true},
	BasicFloatInt:   {BasicFloatInt, 8, pairOps, false, false},
	BasicDoubleInt:  {BasicDoubleInt, 16, pairOps, false, false},
	BasicLongInt:    {BasicLongInt, 16, pairOps, false, false},
	BasicTwoInt:     {BasicTwoInt, 8, pairOps, false, false},
	BasicShortInt:   {BasicShortInt, 8, pairOps, false, false},
}

// apply sets *dst = *dst op *src for elements of basic type b. It
// dispatches statically (no function values), so that operands on the
// caller's stack stay there.
func apply(b Basic, op Op, dst, src unsafe.Pointer) {
	switch b {
	case BasicInt8:
		combInt[int8](op, dst, src)
	case BasicInt16:
		combInt[int16](op, dst, src)
	case BasicInt32:
		combInt[int32](op, dst, src)
	case BasicInt64:
		combInt[int64](op, dst, src)
	case BasicUint8, BasicByte:
		combInt[uint8](op, dst, src)
	case BasicUint16:
		combInt[uint16](op, dst, src)
	case BasicUint32:
		combInt[uint32](op, dst, src)
	case BasicUint64:
		combInt[uint64](op, dst, src)
	case BasicFloat32:
		combFloat[float32](op, dst, src)
	case BasicFloat64:
		combFloat[float64](op, dst, src)
	case BasicComplex64:
		combComplex[complex64](op, dst, src)
	case BasicComplex128:
		combComplex[complex128](op, dst, src)
	case BasicBool:
		combBool(op, dst, src)
	case BasicFloatInt:
		combPair[FloatInt](op, dst, src)
	case BasicDoubleInt:
		combPair[DoubleInt](op, dst, src)
	case BasicLongInt:
		combPair[LongInt](op, dst, src)
	case BasicTwoInt:
		combPair[TwoInt](op, dst, src)
	case BasicShortInt:
		combPair[ShortInt](op, dst, src)
	}
}

// checkOp reports whether op is defined for b. noOpOK says whether the
// call takes MPI_NO_OP (GetAccumulate and FetchAndOp do, Accumulate not).
func checkOp(op Op, b Basic, noOpOK bool) error {
	if op == 0 || op >= numOps {
		return errorf(ClassOp, "%v is not a predefined op", op)
	}
	if op == OpNoOp && !noOpOK {
		return errorf(ClassOp, "MPI_NO_OP is only for GetAccumulate and FetchAndOp")
	}
	if kinds[b].ops&(1<<op) == 0 {
		return errorf(ClassOp, "%v is not defined for %v", op, b)
	}
	return nil
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func truth[T integer](b bool) T {
	if b {
		return 1
	}
	return 0
}

func combInt[T integer](op Op, dst, src unsafe.Pointer) {
	a, b := (*T)(dst), *(*T)(src)
	switch op {
	case OpSum:
		*a += b
	case OpProd:
		*a *= b
	case OpMax:
		*a = max(*a, b)
	case OpMin:
		*a = min(*a, b)
	case OpLand:
		*a = truth[T](*a != 0 && b != 0)
	case OpLor:
		*a = truth[T](*a != 0 || b != 0)
	case OpLxor:
		*a = truth[T]((*a != 0) != (b != 0))
	case OpBand:
		*a &= b
	case OpBor:
		*a |= b
	case OpBxor:
		*a ^= b
	case OpReplace:
		*a = b
	}
}

func combFloat[T ~float32 | ~float64](op Op, dst, src unsafe.Pointer) {
	a, b := (*T)(dst), *(*T)(src)
	switch op {
	case OpSum:
		*a += b
	case OpProd:
		*a *= b
	case OpMax:
		*a = max(*a, b)
	case OpMin:
		*a = min(*a, b)
	case OpReplace:
		*a = b
	}
}

func combComplex[T ~complex64 | ~complex128](op Op, dst, src unsafe.Pointer) {
	a, b := (*T)(dst), *(*T)(src)
	switch op {
	case OpSum:
		*a += b
	case OpProd:
		*a *= b
	case OpReplace:
		*a = b
	}
}

func combBool(op Op, dst, src unsafe.Pointer) {
	// Read as bytes: a peer may have stored any byte value.
	a, b := (*uint8)(dst), *(*uint8)(src) != 0
	x := *a != 0
	switch op {
	case OpLand:
		x = x && b
	case OpLor:
		x = x || b
	case OpLxor:
		x = x != b
	case OpReplace:
		x = b
	default:
		return
	}
	*a = truth[uint8](x)
}

type pair interface {
	FloatInt | DoubleInt | LongInt | TwoInt | ShortInt
}

func combPair[P pair](op Op, dst, src unsafe.Pointer) {
	if op == OpReplace {
		*(*P)(dst) = *(*P)(src)
		return
	}
	if op != OpMaxloc && op != OpMinloc {
		return
	}
	switch a := any((*P)(dst)).(type) {
	case *FloatInt:
		b := (*FloatInt)(src)
		a.Val, a.Loc = loc(op, a.Val, a.Loc, b.Val, b.Loc)
	case *DoubleInt:
		b := (*DoubleInt)(src)
		a.Val, a.Loc = loc(op, a.Val, a.Loc, b.Val, b.Loc)
	case *LongInt:
		b := (*LongInt)(src)
		a.Val, a.Loc = loc(op, a.Val, a.Loc, b.Val, b.Loc)
	case *TwoInt:
		b := (*TwoInt)(src)
		a.Val, a.Loc = loc(op, a.Val, a.Loc, b.Val, b.Loc)
	case *ShortInt:
		b := (*ShortInt)(src)
		a.Val, a.Loc = loc(op, a.Val, a.Loc, b.Val, b.Loc)
	}
}

// loc is MAXLOC/MINLOC of (u, i) and (v, j) as MPI defines them: the
// larger (smaller) value with its location, the lower location on a tie.
func loc[V int16 | int32 | int64 | float32 | float64](op Op, u V, i int32, v V, j int32) (V, int32) {
	switch {
	case u == v:
		return u, min(i, j)
	case (op == OpMaxloc) == (v > u):
		return v, j
	default:
		return u, i
	}
}
