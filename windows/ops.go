package windows

import (
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/internal/mpitype"
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

// Op values are the engine's, so accumulate passes them on unconverted;
// this fails to compile if the two numberings drift apart.
var _ = [1]struct{}{}[(OpSum-Op(mpitype.OpSum))|(OpProd-Op(mpitype.OpProd))|
	(OpMax-Op(mpitype.OpMax))|(OpMin-Op(mpitype.OpMin))|(OpLand-Op(mpitype.OpLand))|
	(OpBand-Op(mpitype.OpBand))|(OpLor-Op(mpitype.OpLor))|(OpBor-Op(mpitype.OpBor))|
	(OpLxor-Op(mpitype.OpLxor))|(OpBxor-Op(mpitype.OpBxor))|(OpMaxloc-Op(mpitype.OpMaxloc))|
	(OpMinloc-Op(mpitype.OpMinloc))|(OpReplace-Op(mpitype.OpReplace))|(OpNoOp-Op(mpitype.OpNoOp))]

func (o Op) String() string {
	switch {
	case o == 0:
		return "invalid"
	case o >= numOps:
		return fmt.Sprintf("Op(%d)", o)
	}
	return mpitype.Op(o).String()
}

// kind is what the accumulate engine knows about a basic type.
type kind struct {
	basic Basic
	size  int
	cas   bool // CompareAndSwap takes it
	isInt bool // an integer type: hardware add, and, or apply
}

var kinds = [numBasic]kind{
	BasicInt8:       {BasicInt8, 1, true, true},
	BasicInt16:      {BasicInt16, 2, true, true},
	BasicInt32:      {BasicInt32, 4, true, true},
	BasicInt64:      {BasicInt64, 8, true, true},
	BasicUint8:      {BasicUint8, 1, true, true},
	BasicUint16:     {BasicUint16, 2, true, true},
	BasicUint32:     {BasicUint32, 4, true, true},
	BasicUint64:     {BasicUint64, 8, true, true},
	BasicFloat32:    {BasicFloat32, 4, false, false},
	BasicFloat64:    {BasicFloat64, 8, false, false},
	BasicComplex64:  {BasicComplex64, 8, false, false},
	BasicComplex128: {BasicComplex128, 16, false, false},
	BasicBool:       {BasicBool, 1, true, false},
	BasicByte:       {BasicByte, 1, true, true},
	BasicFloatInt:   {BasicFloatInt, 8, false, false},
	BasicDoubleInt:  {BasicDoubleInt, 16, false, false},
	BasicLongInt:    {BasicLongInt, 16, false, false},
	BasicTwoInt:     {BasicTwoInt, 8, false, false},
	BasicShortInt:   {BasicShortInt, 8, false, false},
}

// apply sets *dst = *dst op *src for elements of basic type b.
func apply(b Basic, op Op, dst, src unsafe.Pointer) {
	mpitype.Combine(b, mpitype.Op(op), dst, src)
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
	if !mpitype.Op(op).Defined(b) {
		return errorf(ClassOp, "%v is not defined for %v", op, b)
	}
	return nil
}
