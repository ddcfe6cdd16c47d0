package mpitype

import (
	"unsafe"

	"github.com/gshmem/gshmem/internal/accops"
	"github.com/gshmem/gshmem/internal/atomicop"
)

// The core's transports apply accumulates at their target with this
// package's arithmetic (see accops), so that an accumulate gives the same
// answer over every path.
func init() {
	accops.Set(&accops.Table{
		Size:    func(typ uint8) int { return Basic(typ).Span() }, // an element in memory
		Defined: func(typ, op uint8) bool { return Basic(typ) != BasicInvalid && Op(op).Defined(Basic(typ)) },
		Combine: func(typ, op uint8, dst, src unsafe.Pointer) { Combine(Basic(typ), Op(op), dst, src) },
		Hardware: func(typ, op uint8) (atomicop.Op, bool) {
			return HardwareOp(Basic(typ), Op(op))
		},
		NoOp: uint8(OpNoOp), Replace: uint8(OpReplace),
	})
}

// HardwareOp is the hardware atomic that does op on one aligned element of
// b of 1 to 8 bytes, if there is one: a fetch for NO_OP, a swap for
// REPLACE, and the integer add, and, or and xor. An element with padding
// between its members (MPI_SHORT_INT) is never swapped: the padding is no
// part of its type map, and a swap would write the origin's there.
func HardwareOp(b Basic, op Op) (atomicop.Op, bool) {
	isInt := b >= BasicInt8 && b <= BasicUint64 || b == BasicByte
	switch {
	case op == OpNoOp:
		return atomicop.Load, true
	case op == OpReplace && b.Span() != b.Size():
		return 0, false
	case op == OpReplace:
		return atomicop.Swap, true
	case !isInt:
		return 0, false
	case op == OpSum:
		return atomicop.Add, true
	case op == OpBand:
		return atomicop.And, true
	case op == OpBor:
		return atomicop.Or, true
	case op == OpBxor:
		return atomicop.Xor, true
	}
	return 0, false
}
