package compat

import (
	"fmt"

	"github.com/gshmem/gshmem/internal/mpitype"
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

// engineOps maps each op to the engine's, whose rules (NaN and signed
// zeros included) are those of windows' accumulate and of the shmem team
// reductions Allreduce runs on: a reduction gives the same answer whichever
// way it runs.
var engineOps = [numOps]mpitype.Op{mpitype.OpNull, mpitype.OpSum, mpitype.OpProd,
	mpitype.OpMax, mpitype.OpMin, mpitype.OpLand, mpitype.OpLor, mpitype.OpLxor,
	mpitype.OpBand, mpitype.OpBor, mpitype.OpBxor, mpitype.OpMaxloc,
	mpitype.OpMinloc, mpitype.OpReplace, mpitype.OpNoOp}

func (o Op) String() string {
	if o >= numOps {
		return fmt.Sprintf("Op(%d)", o)
	}
	return engineOps[o].String()
}

func isInt(b Basic) bool { return b >= BasicInt8 && b <= BasicUint64 }

// check reports whether op reduces elements of basic type b.
func (o Op) check(b Basic) error {
	switch {
	case o == OpReplace || o == OpNoOp:
		return errorf(ClassOp, "%v is for accumulate, not reductions", o)
	case o == OpNull || o >= numOps:
		return errorf(ClassOp, "%v is not a predefined op", o)
	case !engineOps[o].Defined(b):
		return errorf(ClassOp, "%v is not defined for %v", o, b)
	}
	return nil
}

// apply computes inout[i] = in[i] op inout[i] over packed elements of b;
// op has been checked against b.
func (o Op) apply(b Basic, in, inout []byte) {
	mpitype.Reduce(b, engineOps[o], inout, in)
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
