package mpitype

import (
	"fmt"
	"unsafe"
)

// Op is a predefined reduction op as the engine numbers it. Its values are
// windows.Op's, so that windows' per-element accumulate passes its op
// through without a lookup; compat, whose numbering differs, maps its ops
// once per call. Both layers, and shmem's team reductions that compat's
// Allreduce runs on, give an op one meaning, NaN and signed zeros
// included: a code gets the same answers at every stage of its migration.
type Op uint8

// The ops. Each combines a destination element d with a source element s
// into d; "d op s" below.
const (
	OpNull    Op = iota // MPI_OP_NULL: defined for no type
	OpSum               // MPI_SUM: integers, floats, complex
	OpProd              // MPI_PROD: integers, floats, complex
	OpMax               // MPI_MAX: integers, floats as Go's max (a NaN wins, +0 beats -0)
	OpMin               // MPI_MIN: integers, floats as Go's min (a NaN wins, -0 beats +0)
	OpLand              // MPI_LAND: integers, bool; the result is 1 or 0
	OpBand              // MPI_BAND: integers, Byte
	OpLor               // MPI_LOR: integers, bool; the result is 1 or 0
	OpBor               // MPI_BOR: integers, Byte
	OpLxor              // MPI_LXOR: integers, bool; the result is 1 or 0
	OpBxor              // MPI_BXOR: integers, Byte
	OpMaxloc            // MPI_MAXLOC: pairs; s if its value is greater, equal values keep d's value and the lower location (a NaN never replaces)
	OpMinloc            // MPI_MINLOC: pairs; s if its value is less, equal values keep d's value and the lower location (a NaN never replaces)
	OpReplace           // MPI_REPLACE: every type; bool stores 1 or 0
	OpNoOp              // MPI_NO_OP: every type; d stays
	NumOps              // the number of ops, for tables indexed by Op
)

var opNames = [NumOps]string{"MPI_OP_NULL", "MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN",
	"MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR",
	"MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"}

// String returns the MPI name.
func (o Op) String() string {
	if o >= NumOps {
		return fmt.Sprintf("Op(%d)", o)
	}
	return opNames[o]
}

// The op sets of each kind of basic type, as bit masks over Op.
const (
	anyOps     = 1<<OpReplace | 1<<OpNoOp
	maxMinOps  = 1<<OpMax | 1<<OpMin
	logicOps   = 1<<OpLand | 1<<OpLor | 1<<OpLxor
	bitOps     = 1<<OpBand | 1<<OpBor | 1<<OpBxor
	arithOps   = 1<<OpSum | 1<<OpProd
	intOps     = arithOps | maxMinOps | logicOps | bitOps | anyOps
	floatOps   = arithOps | maxMinOps | anyOps
	complexOps = arithOps | anyOps
	boolOps    = logicOps | anyOps
	byteOps    = bitOps | anyOps
	pairOps    = 1<<OpMaxloc | 1<<OpMinloc | anyOps
)

var opsOf = [NumBasic]uint32{
	BasicInt8: intOps, BasicInt16: intOps, BasicInt32: intOps, BasicInt64: intOps,
	BasicUint8: intOps, BasicUint16: intOps, BasicUint32: intOps, BasicUint64: intOps,
	BasicFloat32: floatOps, BasicFloat64: floatOps,
	BasicComplex64: complexOps, BasicComplex128: complexOps,
	BasicBool: boolOps, BasicByte: byteOps,
	BasicFloatInt: pairOps, BasicDoubleInt: pairOps, BasicLongInt: pairOps,
	BasicTwoInt: pairOps, BasicShortInt: pairOps,
	BasicLongDouble: floatOps, BasicComplexLongDouble: complexOps, BasicLongDoubleInt: pairOps,
	BasicTwoReal: pairOps, BasicTwoDouble: pairOps,
}

// Defined reports whether o combines elements of b. Reduce and Combine
// expect it true; the layers check first, each with its own errors.
func (o Op) Defined(b Basic) bool {
	if b == BasicMixed { // a map of several basic types: moved, not reduced
		return o == OpReplace || o == OpNoOp
	}
	return o < NumOps && b < NumBasic && opsOf[b]&(1<<o) != 0
}

// Reduce sets d = d op s for each packed element of b in dst and src,
// which have the same length (a pair packed is its members back to back,
// Size bytes). Each type's op switch is outside its element
// loop, so that a loop is a plain, vectorizable pass over typed slices.
func Reduce(b Basic, op Op, dst, src []byte) {
	switch b {
	case BasicInt8:
		intSlice(op, typed[int8](dst), typed[int8](src))
	case BasicInt16:
		intSlice(op, typed[int16](dst), typed[int16](src))
	case BasicInt32:
		intSlice(op, typed[int32](dst), typed[int32](src))
	case BasicInt64:
		intSlice(op, typed[int64](dst), typed[int64](src))
	case BasicUint8, BasicByte:
		intSlice(op, typed[uint8](dst), typed[uint8](src))
	case BasicUint16:
		intSlice(op, typed[uint16](dst), typed[uint16](src))
	case BasicUint32:
		intSlice(op, typed[uint32](dst), typed[uint32](src))
	case BasicUint64:
		intSlice(op, typed[uint64](dst), typed[uint64](src))
	case BasicFloat32:
		floatSlice(op, typed[float32](dst), typed[float32](src))
	case BasicFloat64:
		floatSlice(op, typed[float64](dst), typed[float64](src))
	case BasicComplex64:
		complexSlice(op, typed[complex64](dst), typed[complex64](src))
	case BasicComplex128:
		complexSlice(op, typed[complex128](dst), typed[complex128](src))
	case BasicBool:
		boolSlice(op, dst, src)
	case BasicFloatInt:
		pairSlice[float32, int32](b, op, dst, src)
	case BasicDoubleInt:
		pairSlice[float64, int32](b, op, dst, src)
	case BasicLongInt:
		pairSlice[int64, int32](b, op, dst, src)
	case BasicTwoInt:
		pairSlice[int32, int32](b, op, dst, src)
	case BasicShortInt:
		pairSlice[int16, int32](b, op, dst, src)
	case BasicTwoReal:
		pairSlice[float32, float32](b, op, dst, src)
	case BasicTwoDouble:
		pairSlice[float64, float64](b, op, dst, src)
	case BasicLongDouble:
		ldSlice(ldElem, 16, op, dst, src)
	case BasicComplexLongDouble:
		ldSlice(cldElem, 32, op, dst, src)
	case BasicLongDoubleInt:
		ldSlice(ldLocElem, 20, op, dst, src)
	}
}

// Combine sets *dst = *dst op *src for one element of b as it lies in
// memory (a pair in its C struct's layout; only its Span is touched). It dispatches
// statically (no function values), so that operands on the caller's stack
// stay there.
func Combine(b Basic, op Op, dst, src unsafe.Pointer) {
	switch b {
	case BasicInt8:
		intElem[int8](op, dst, src)
	case BasicInt16:
		intElem[int16](op, dst, src)
	case BasicInt32:
		intElem[int32](op, dst, src)
	case BasicInt64:
		intElem[int64](op, dst, src)
	case BasicUint8, BasicByte:
		intElem[uint8](op, dst, src)
	case BasicUint16:
		intElem[uint16](op, dst, src)
	case BasicUint32:
		intElem[uint32](op, dst, src)
	case BasicUint64:
		intElem[uint64](op, dst, src)
	case BasicFloat32:
		floatElem[float32](op, dst, src)
	case BasicFloat64:
		floatElem[float64](op, dst, src)
	case BasicComplex64:
		complexElem[complex64](op, dst, src)
	case BasicComplex128:
		complexElem[complex128](op, dst, src)
	case BasicBool:
		boolElem(op, dst, src)
	case BasicFloatInt:
		pairMem[float32, int32](b, op, dst, src)
	case BasicDoubleInt:
		pairMem[float64, int32](b, op, dst, src)
	case BasicLongInt:
		pairMem[int64, int32](b, op, dst, src)
	case BasicTwoInt:
		pairMem[int32, int32](b, op, dst, src)
	case BasicShortInt:
		pairMem[int16, int32](b, op, dst, src)
	case BasicTwoReal:
		pairMem[float32, float32](b, op, dst, src)
	case BasicTwoDouble:
		pairMem[float64, float64](b, op, dst, src)
	case BasicLongDouble:
		ldElem(op, dst, src)
	case BasicComplexLongDouble:
		cldElem(op, dst, src)
	case BasicLongDoubleInt:
		ldLocElem(op, dst, src)
	}
}

func typed[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
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

// The logical ops read any nonzero value, bool bytes included, as true.
func land[T integer](d, s T) T { return truth[T](d != 0 && s != 0) }
func lor[T integer](d, s T) T  { return truth[T](d != 0 || s != 0) }
func lxor[T integer](d, s T) T { return truth[T]((d != 0) != (s != 0)) }

// loc is MAXLOC (MINLOC) of d = (u, i) and s = (v, j): MPI's definition,
// with d's value kept on a tie (-0 against +0) and a NaN on either side
// compared false, so that it never replaces and one in d stays.
func loc[V pairVal, L pairLoc](op Op, u V, i L, v V, j L) (V, L) {
	switch {
	case u == v:
		return u, min(i, j)
	case op == OpMaxloc && v > u, op == OpMinloc && v < u:
		return v, j
	}
	return u, i
}

func intSlice[T integer](op Op, d, s []T) {
	s = s[:len(d)]
	switch op {
	case OpSum:
		for i := range d {
			d[i] += s[i]
		}
	case OpProd:
		for i := range d {
			d[i] *= s[i]
		}
	case OpMax:
		for i := range d {
			d[i] = max(d[i], s[i])
		}
	case OpMin:
		for i := range d {
			d[i] = min(d[i], s[i])
		}
	case OpLand:
		for i := range d {
			d[i] = land(d[i], s[i])
		}
	case OpLor:
		for i := range d {
			d[i] = lor(d[i], s[i])
		}
	case OpLxor:
		for i := range d {
			d[i] = lxor(d[i], s[i])
		}
	case OpBand:
		for i := range d {
			d[i] &= s[i]
		}
	case OpBor:
		for i := range d {
			d[i] |= s[i]
		}
	case OpBxor:
		for i := range d {
			d[i] ^= s[i]
		}
	case OpReplace:
		copy(d, s)
	}
}

func intElem[T integer](op Op, dst, src unsafe.Pointer) {
	d, s := (*T)(dst), *(*T)(src)
	switch op {
	case OpSum:
		*d += s
	case OpProd:
		*d *= s
	case OpMax:
		*d = max(*d, s)
	case OpMin:
		*d = min(*d, s)
	case OpLand:
		*d = land(*d, s)
	case OpLor:
		*d = lor(*d, s)
	case OpLxor:
		*d = lxor(*d, s)
	case OpBand:
		*d &= s
	case OpBor:
		*d |= s
	case OpBxor:
		*d ^= s
	case OpReplace:
		*d = s
	}
}

// The slice forms compute s + d and s * d, the element forms d + s and
// d * s: the orders compat and windows have always used. Only a NaN result
// can tell them apart (x86 keeps the first NaN operand's sign and
// payload), and for complex products even the source order does not fix
// that: the compiler orders the partial products as it likes.

func floatSlice[T ~float32 | ~float64](op Op, d, s []T) {
	s = s[:len(d)]
	switch op {
	case OpSum:
		for i := range d {
			d[i] = s[i] + d[i]
		}
	case OpProd:
		for i := range d {
			d[i] = s[i] * d[i]
		}
	case OpMax:
		for i := range d {
			d[i] = max(d[i], s[i])
		}
	case OpMin:
		for i := range d {
			d[i] = min(d[i], s[i])
		}
	case OpReplace:
		copy(d, s)
	}
}

func floatElem[T ~float32 | ~float64](op Op, dst, src unsafe.Pointer) {
	d, s := (*T)(dst), *(*T)(src)
	switch op {
	case OpSum:
		*d += s
	case OpProd:
		*d *= s
	case OpMax:
		*d = max(*d, s)
	case OpMin:
		*d = min(*d, s)
	case OpReplace:
		*d = s
	}
}

func complexSlice[T ~complex64 | ~complex128](op Op, d, s []T) {
	s = s[:len(d)]
	switch op {
	case OpSum:
		for i := range d {
			d[i] = s[i] + d[i]
		}
	case OpProd:
		for i := range d {
			d[i] = s[i] * d[i]
		}
	case OpReplace:
		copy(d, s)
	}
}

func complexElem[T ~complex64 | ~complex128](op Op, dst, src unsafe.Pointer) {
	d, s := (*T)(dst), *(*T)(src)
	switch op {
	case OpSum:
		*d += s
	case OpProd:
		*d *= s
	case OpReplace:
		*d = s
	}
}

// Bools are handled as bytes, since a peer may have stored any byte
// value: the logical ops are the integer ones on uint8, and REPLACE stores
// 1 or 0.

func boolSlice(op Op, d, s []byte) {
	if op != OpReplace {
		intSlice(op, d, s)
		return
	}
	s = s[:len(d)]
	for i := range d {
		d[i] = truth[uint8](s[i] != 0)
	}
}

func boolElem(op Op, dst, src unsafe.Pointer) {
	// land, lor and lxor on bool values rather than bytes: the same results
	// (TestReduceMatchesCombine), within the inlining budget.
	d, s := (*uint8)(dst), *(*uint8)(src) != 0
	x := *d != 0
	switch op {
	case OpLand:
		x = x && s
	case OpLor:
		x = x || s
	case OpLxor:
		x = x != s
	case OpReplace:
		x = s
	default:
		return
	}
	*d = truth[uint8](x)
}

// pairVal is the type of a pair's value, pairLoc of its location (an
// int, or a real for the Fortran pairs).
type (
	pairVal interface {
		int16 | int32 | int64 | float32 | float64
	}
	pairLoc interface{ int32 | float32 | float64 }
)

// pairElem applies op to one pair: its value V at dst (src) and its
// location L locOff bytes after it, the C struct's offset in memory and
// the value's size packed. Only the members are read and written, never
// the padding after them: an element in memory may end where its data
// ends. REPLACE copies the members' bytes.
func pairElem[V pairVal, L pairLoc](op Op, dst, src unsafe.Pointer, locOff uintptr) {
	vs, ls := unsafe.Sizeof(*(*V)(dst)), unsafe.Sizeof(*(*L)(dst))
	switch op {
	case OpNoOp:
		return
	case OpReplace:
		copy(unsafe.Slice((*byte)(dst), vs), unsafe.Slice((*byte)(src), vs))
		copy(unsafe.Slice((*byte)(unsafe.Add(dst, locOff)), ls), unsafe.Slice((*byte)(unsafe.Add(src, locOff)), ls))
		return
	}
	d, dl := (*V)(dst), (*L)(unsafe.Add(dst, locOff))
	*d, *dl = loc(op, *d, *dl, *(*V)(src), *(*L)(unsafe.Add(src, locOff)))
}

// pairMem applies op to one pair of b in memory (the C struct's layout).
func pairMem[V pairVal, L pairLoc](b Basic, op Op, dst, src unsafe.Pointer) {
	pairElem[V, L](op, dst, src, uintptr(pairLayouts[b].locOff))
}

// pairSlice applies op to each packed pair of b: the location right
// after the value, one pair Size bytes after the other (loads that need
// not be aligned, which the targets gshmem builds for allow).
func pairSlice[V pairVal, L pairLoc](b Basic, op Op, dst, src []byte) {
	sz, vs := b.Size(), unsafe.Sizeof(*new(V))
	for i := 0; i+sz <= len(dst) && i+sz <= len(src); i += sz {
		pairElem[V, L](op, unsafe.Pointer(&dst[i]), unsafe.Pointer(&src[i]), vs)
	}
}
