package compat

import (
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Op is a predefined MPI reduction operation (MPI_Op). It is the one op
// type of every gshmem MPI layer: windows' accumulates take the same
// values, and an op means the same in both, NaN and signed zeros included,
// as in the shmem team reductions Allreduce runs on. The zero Op is OpNull.
type Op = mpitype.Op

// The predefined ops. OpReplace and OpNoOp exist for one-sided accumulate; a
// reduction rejects them with ErrOp.
const (
	OpNull    = mpitype.OpNull    // MPI_OP_NULL: invalid
	OpSum     = mpitype.OpSum     // MPI_SUM: integers, floats, complex
	OpProd    = mpitype.OpProd    // MPI_PROD: integers, floats, complex
	OpMax     = mpitype.OpMax     // MPI_MAX: integers, floats (Go's max: a NaN wins)
	OpMin     = mpitype.OpMin     // MPI_MIN: integers, floats (Go's min: a NaN wins)
	OpLand    = mpitype.OpLand    // MPI_LAND: integers, bool
	OpLor     = mpitype.OpLor     // MPI_LOR: integers, bool
	OpLxor    = mpitype.OpLxor    // MPI_LXOR: integers, bool
	OpBand    = mpitype.OpBand    // MPI_BAND: integers, Byte
	OpBor     = mpitype.OpBor     // MPI_BOR: integers, Byte
	OpBxor    = mpitype.OpBxor    // MPI_BXOR: integers, Byte
	OpMaxloc  = mpitype.OpMaxloc  // MPI_MAXLOC: the pair types; ties keep the lower location
	OpMinloc  = mpitype.OpMinloc  // MPI_MINLOC: the pair types; ties keep the lower location
	OpReplace = mpitype.OpReplace // MPI_REPLACE: accumulate only
	OpNoOp    = mpitype.OpNoOp    // MPI_NO_OP: accumulate only
)

func isInt(b Basic) bool { return b >= BasicInt8 && b <= BasicUint64 }

// checkReduce reports whether op o reduces elements of basic type b.
func checkReduce(o Op, b Basic) error {
	switch {
	case o == OpReplace || o == OpNoOp:
		return errorf(ClassOp, "%v is for accumulate, not reductions", o)
	case o == OpNull || o >= mpitype.NumOps:
		return errorf(ClassOp, "%v is not a predefined op", o)
	case !o.Defined(b):
		return errorf(ClassOp, "%v is not defined for %v", o, b)
	}
	return nil
}

// applyOp computes inout[i] = in[i] op inout[i] over packed elements of b;
// op has been checked against b.
func applyOp(o Op, b Basic, in, inout []byte) { mpitype.Reduce(b, o, inout, in) }

// ReduceLocal computes inout = in op inout elementwise over count
// instances of dt (MPI_Reduce_local).
func ReduceLocal[T Elem](in, inout []T, count int, dt Datatype, op Op) error {
	ib, size, err := srcView(in, count, dt, "input")
	if err != nil {
		return err
	}
	ob, _, err := view(inout, count, dt, "inout")
	if err != nil {
		return err
	}
	if err := checkReduce(op, mapOf(dt).Basic()); err != nil {
		return err
	}
	if mapOf(dt).Contiguous() {
		applyOp(op, mapOf(dt).Basic(), ib[:size], ob[:size])
		return nil
	}
	a, b := make([]byte, size), make([]byte, size)
	mapOf(dt).Pack(a, ib, count)
	mapOf(dt).Pack(b, ob, count)
	applyOp(op, mapOf(dt).Basic(), a, b)
	mapOf(dt).Unpack(ob, b, count)
	return nil
}
