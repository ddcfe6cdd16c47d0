package windows

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// kind is what the accumulate engine knows about a basic type. size is
// what an element covers in memory (Basic.Span: a pair's members and any
// padding between them, not the padding after).
type kind struct {
	basic mpitype.Basic
	size  int
	cas   bool // CompareAndSwap takes it
	isInt bool // an integer type: hardware add, and, or apply
}

var kinds = [mpitype.NumBasic]kind{
	mpitype.BasicInt8:              {mpitype.BasicInt8, 1, true, true},
	mpitype.BasicInt16:             {mpitype.BasicInt16, 2, true, true},
	mpitype.BasicInt32:             {mpitype.BasicInt32, 4, true, true},
	mpitype.BasicInt64:             {mpitype.BasicInt64, 8, true, true},
	mpitype.BasicUint8:             {mpitype.BasicUint8, 1, true, true},
	mpitype.BasicUint16:            {mpitype.BasicUint16, 2, true, true},
	mpitype.BasicUint32:            {mpitype.BasicUint32, 4, true, true},
	mpitype.BasicUint64:            {mpitype.BasicUint64, 8, true, true},
	mpitype.BasicFloat32:           {mpitype.BasicFloat32, 4, false, false},
	mpitype.BasicFloat64:           {mpitype.BasicFloat64, 8, false, false},
	mpitype.BasicComplex64:         {mpitype.BasicComplex64, 8, false, false},
	mpitype.BasicComplex128:        {mpitype.BasicComplex128, 16, false, false},
	mpitype.BasicBool:              {mpitype.BasicBool, 1, true, false},
	mpitype.BasicByte:              {mpitype.BasicByte, 1, true, true},
	mpitype.BasicFloatInt:          {mpitype.BasicFloatInt, 8, false, false},
	mpitype.BasicDoubleInt:         {mpitype.BasicDoubleInt, 12, false, false},
	mpitype.BasicLongInt:           {mpitype.BasicLongInt, 12, false, false},
	mpitype.BasicTwoInt:            {mpitype.BasicTwoInt, 8, false, false},
	mpitype.BasicShortInt:          {mpitype.BasicShortInt, 8, false, false},
	mpitype.BasicLongDouble:        {mpitype.BasicLongDouble, 16, false, false},
	mpitype.BasicComplexLongDouble: {mpitype.BasicComplexLongDouble, 32, false, false},
	mpitype.BasicLongDoubleInt:     {mpitype.BasicLongDoubleInt, 20, false, false},
	mpitype.BasicTwoReal:           {mpitype.BasicTwoReal, 8, false, false},
	mpitype.BasicTwoDouble:         {mpitype.BasicTwoDouble, 16, false, false},
}

// apply sets *dst = *dst op *src for elements of basic type b.
func apply(b mpitype.Basic, op compat.Op, dst, src unsafe.Pointer) {
	mpitype.Combine(b, mpitype.Op(op), dst, src)
}

// checkOpOn is checkOp for an accumulate of tcount instances of ttype at
// the target: one that combines no element takes any predefined op, as
// MPICH and Open MPI take it (mpi4py probes Get_accumulate with zero
// bytes and the default MPI_SUM).
func checkOpOn(op compat.Op, b mpitype.Basic, noOpOK bool, tcount int, ttype compat.Datatype) error {
	if tcount == 0 || mpitype.MapOf(ttype).Size() == 0 {
		b = mpitype.BasicInvalid
	}
	return checkOp(op, b, noOpOK)
}

// checkOp reports whether op is defined for b (any predefined op when b
// is BasicInvalid: no element is combined). noOpOK says whether the
// call takes MPI_NO_OP (GetAccumulate and FetchAndOp do, Accumulate not).
func checkOp(op compat.Op, b mpitype.Basic, noOpOK bool) error {
	if op == 0 || op >= mpitype.NumOps {
		return errorf(compat.ClassOp, "%v is not a predefined op", op)
	}
	if op == compat.OpNoOp && !noOpOK {
		return errorf(compat.ClassOp, "MPI_NO_OP is only for GetAccumulate and FetchAndOp")
	}
	if b != mpitype.BasicInvalid && !mpitype.Op(op).Defined(b) {
		return errorf(compat.ClassOp, "%v is not defined for %v", op, b)
	}
	return nil
}
