package compat

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/internal/mpitype"
)

// Element types and basic datatypes, shared with the other MPI-style layer.
type (
	// FloatInt, DoubleInt, LongInt, TwoInt and ShortInt are the MAXLOC and
	// MINLOC pair types (MPI_FLOAT_INT, ...): a value and its location.
	FloatInt  = mpitype.FloatInt
	DoubleInt = mpitype.DoubleInt
	LongInt   = mpitype.LongInt
	TwoInt    = mpitype.TwoInt
	ShortInt  = mpitype.ShortInt
	// Elem is the set of element types a buffer may hold.
	Elem = mpitype.Elem
	// Basic is a predefined (basic) MPI datatype.
	Basic = mpitype.Basic
)

// The basic datatypes. Byte is MPI_BYTE: opaque bytes, which take only the
// bitwise ops, REPLACE and NO_OP.
const (
	BasicInvalid    = mpitype.BasicInvalid
	BasicInt8       = mpitype.BasicInt8
	BasicInt16      = mpitype.BasicInt16
	BasicInt32      = mpitype.BasicInt32
	BasicInt64      = mpitype.BasicInt64
	BasicUint8      = mpitype.BasicUint8
	BasicUint16     = mpitype.BasicUint16
	BasicUint32     = mpitype.BasicUint32
	BasicUint64     = mpitype.BasicUint64
	BasicFloat32    = mpitype.BasicFloat32
	BasicFloat64    = mpitype.BasicFloat64
	BasicComplex64  = mpitype.BasicComplex64
	BasicComplex128 = mpitype.BasicComplex128
	BasicBool       = mpitype.BasicBool
	BasicByte       = mpitype.BasicByte
	BasicFloatInt   = mpitype.BasicFloatInt
	BasicDoubleInt  = mpitype.BasicDoubleInt
	BasicLongInt    = mpitype.BasicLongInt
	BasicTwoInt     = mpitype.BasicTwoInt
	BasicShortInt   = mpitype.BasicShortInt
	numBasic        = mpitype.NumBasic
)

// basicOf returns the basic datatype of T.
func basicOf[T Elem]() Basic { return mpitype.Of[T]() }

// run is a contiguous stretch of a datatype's type map: off bytes from the
// start of an instance, n bytes long.
type run struct{ off, n int }

const maxRuns = 1 << 22

// Datatype describes the layout of count elements in a buffer, as an MPI
// datatype: a basic type, or a contiguous or vector (strided) arrangement
// of another datatype. The zero Datatype is invalid. Constructors never
// fail; an invalid construction gives a Datatype whose Err reports why and
// that every call rejects with ErrType.
type Datatype struct{ d *dtype }

type dtype struct {
	basic      Basic
	elems      int   // basic elements in one instance
	extent     int   // bytes from one instance to the next
	ub         int   // end of the last byte of one instance
	runs       []run // in type-map order, adjacent runs merged
	predefined bool
	freed      atomic.Bool
	err        error
}

func basicType(b Basic) Datatype {
	sz := b.Size()
	return Datatype{&dtype{basic: b, elems: 1, extent: sz, ub: sz, runs: []run{{0, sz}}, predefined: true}}
}

// The predefined datatypes. MPI's C names map as: MPI_INT -> Int32,
// MPI_LONG -> Int64, MPI_FLOAT -> Float32, MPI_DOUBLE -> Float64,
// MPI_CHAR -> Int8, MPI_UNSIGNED_CHAR -> Uint8, MPI_BYTE -> Byte,
// MPI_C_BOOL -> Bool (see porting-guide/01-mpi.md). Go's int and uint are
// Int64 and Uint64.
var (
	Int8       = basicType(BasicInt8)
	Int16      = basicType(BasicInt16)
	Int32      = basicType(BasicInt32)
	Int64      = basicType(BasicInt64)
	Uint8      = basicType(BasicUint8)
	Uint16     = basicType(BasicUint16)
	Uint32     = basicType(BasicUint32)
	Uint64     = basicType(BasicUint64)
	Float32    = basicType(BasicFloat32)
	Float64    = basicType(BasicFloat64)
	Complex64  = basicType(BasicComplex64)
	Complex128 = basicType(BasicComplex128)
	Bool       = basicType(BasicBool)
	Byte       = basicType(BasicByte)
	FloatIntT  = basicType(BasicFloatInt)
	DoubleIntT = basicType(BasicDoubleInt)
	LongIntT   = basicType(BasicLongInt)
	TwoIntT    = basicType(BasicTwoInt)
	ShortIntT  = basicType(BasicShortInt)
)

// TypeOf returns the basic datatype of T (Int64 for int, Uint8 for byte).
func TypeOf[T Elem]() Datatype { return basicType(basicOf[T]()) }

func badType(format string, args ...any) Datatype {
	return Datatype{&dtype{err: errorf(ClassType, format, args...)}}
}

// Contiguous is count copies of old, one after the other
// (MPI_Type_contiguous).
func Contiguous(count int, old Datatype) Datatype { return Vector(count, 1, 1, old) }

// Vector is count blocks of blocklen copies of old, the starts of
// consecutive blocks stride copies of old apart (MPI_Type_vector). The
// stride must be at least blocklen: compat types never overlap.
func Vector(count, blocklen, stride int, old Datatype) Datatype {
	o := old.d
	switch {
	case o == nil:
		return badType("vector of an invalid datatype")
	case o.err != nil:
		return old
	case o.freed.Load():
		return badType("vector of a freed datatype")
	case count < 0 || blocklen < 0:
		return badType("vector of %d blocks of %d elements", count, blocklen)
	case count > 1 && stride < blocklen:
		return badType("vector stride %d is shorter than its block of %d: entries would overlap", stride, blocklen)
	case count > maxRuns || blocklen > maxRuns || stride > maxRuns:
		return badType("vector of %d blocks of %d at stride %d is too large", count, blocklen, stride)
	}
	if reach := float64((count-1)*stride+blocklen) * float64(o.extent); reach > 1<<48 {
		return badType("vector of %d blocks of %d at stride %d spans %.0f bytes", count, blocklen, stride, reach)
	}
	d := &dtype{basic: o.basic, elems: count * blocklen * o.elems}
	if count == 0 || blocklen == 0 || o.elems == 0 {
		d.elems = 0
		return Datatype{d}
	}
	d.extent = ((count-1)*stride + blocklen) * o.extent
	d.ub = ((count-1)*stride+blocklen-1)*o.extent + o.ub
	if int64(count)*int64(blocklen)*int64(len(o.runs)) > maxRuns {
		return badType("datatype with more than %d contiguous pieces", maxRuns)
	}
	for i := range count {
		for j := range blocklen {
			base := (i*stride + j) * o.extent
			for _, r := range o.runs {
				d.add(run{base + r.off, r.n})
			}
		}
	}
	return Datatype{d}
}

func (d *dtype) add(r run) {
	if k := len(d.runs); k > 0 && d.runs[k-1].off+d.runs[k-1].n == r.off {
		d.runs[k-1].n += r.n
		return
	}
	d.runs = append(d.runs, r)
}

// Err reports why the datatype is invalid, or nil.
func (t Datatype) Err() error {
	if d := t.d; d != nil && d.err == nil && !d.freed.Load() {
		return nil
	}
	return t.invalid()
}

func (t Datatype) invalid() error {
	switch {
	case t.d == nil:
		return errorf(ClassType, "zero Datatype")
	case t.d.err != nil:
		return t.d.err
	case t.d.freed.Load():
		return errorf(ClassType, "datatype was freed")
	}
	return nil
}

// Commit returns Err: compat datatypes need no commit, but ported code that
// calls MPI_Type_commit keeps its shape.
func (t Datatype) Commit() error { return t.Err() }

// Free marks a derived datatype freed (MPI_Type_free); later calls that
// take it fail with ErrType. Predefined datatypes cannot be freed.
func (t Datatype) Free() error {
	if err := t.Err(); err != nil {
		return err
	}
	if t.d.predefined {
		return errorf(ClassType, "%v is predefined and cannot be freed", t.d.basic)
	}
	t.d.freed.Store(true)
	return nil
}

// Basic returns the datatype's basic type.
func (t Datatype) Basic() Basic {
	if t.Err() != nil {
		return BasicInvalid
	}
	return t.d.basic
}

// Size returns the bytes of data in one instance (MPI_Type_size).
func (t Datatype) Size() int {
	if t.Err() != nil {
		return 0
	}
	return t.d.size()
}

// Extent returns the distance in bytes from one instance to the next
// (MPI_Type_get_extent; the lower bound is always 0).
func (t Datatype) Extent() int {
	if t.Err() != nil {
		return 0
	}
	return t.d.extent
}

func (t Datatype) String() string {
	if err := t.Err(); err != nil {
		return "invalid datatype"
	}
	if t.d.predefined {
		return t.d.basic.String()
	}
	return fmt.Sprintf("%d x %v in %d pieces over %d bytes", t.d.elems, t.d.basic, len(t.d.runs), t.d.extent)
}

func (d *dtype) size() int { return d.elems * d.basic.Size() }

// contiguous reports whether instances are packed back to back.
func (d *dtype) contiguous() bool {
	return d.predefined || d.elems == 0 || (len(d.runs) == 1 && d.runs[0].off == 0 && d.runs[0].n == d.extent)
}

// span returns the bytes count instances reach from their start.
func (d *dtype) span(count int) int {
	if count == 0 || d.elems == 0 {
		return 0
	}
	return (count-1)*d.extent + d.ub
}

// pack copies count instances laid out in src into the contiguous dst and
// returns the bytes copied; it stops when dst is full.
func (d *dtype) pack(dst, src []byte, count int) int {
	n := 0
	for i := 0; i < count && n < len(dst); i++ {
		base := i * d.extent
		for _, r := range d.runs {
			n += copy(dst[n:], src[base+r.off:base+r.off+r.n])
			if n == len(dst) {
				return n
			}
		}
	}
	return n
}

// unpack scatters the contiguous src into count instances laid out in dst,
// as far as src reaches.
func (d *dtype) unpack(dst, src []byte, count int) {
	n := 0
	for i := 0; i < count && n < len(src); i++ {
		base := i * d.extent
		for _, r := range d.runs {
			n += copy(dst[base+r.off:base+r.off+r.n], src[n:])
			if n == len(src) {
				return
			}
		}
	}
}

// asBytes views a slice of plain elements as bytes.
func asBytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// view checks buf against count instances of dt and returns its bytes and
// the number of data bytes count instances hold.
func view[T Elem](buf []T, count int, dt Datatype, what string) ([]byte, int, error) {
	if err := dt.Err(); err != nil {
		return nil, 0, err
	}
	if count < 0 {
		return nil, 0, errorf(ClassCount, "%s count %d", what, count)
	}
	d := dt.d
	if d.basic != BasicByte { // Byte fits any buffer
		if b := basicOf[T](); d.basic != b && b != BasicUint8 {
			return nil, 0, errorf(ClassType, "%s: datatype %v does not fit a buffer of %v", what, dt, b)
		}
	}
	bytes := asBytes(buf)
	sz := d.size()
	// Products checked for overflow instead of quotients: a division costs
	// more than the rest of a small message's checks.
	if sz > 0 && !fits(count, sz, len(bytes)) {
		return nil, 0, errorf(ClassBuffer, "%s buffer of %d bytes is too short for %d x %v", what, len(bytes), count, dt)
	}
	if d.predefined { // its extent and span are its size's: checked
		return bytes, count * sz, nil
	}
	if d.extent > 0 && count > 0 && !fits(count-1, d.extent, len(bytes)) {
		return nil, 0, errorf(ClassBuffer, "%s buffer of %d bytes is too short for %d x %v", what, len(bytes), count, dt)
	}
	if need := d.span(count); need > len(bytes) {
		return nil, 0, errorf(ClassBuffer, "%s buffer of %d bytes is too short for %d x %v (%d bytes)", what, len(bytes), count, dt, need)
	}
	return bytes, count * sz, nil
}

// fits reports whether n items of size bytes (n, size >= 0) fit in avail
// bytes, without overflowing.
func fits(n, size, avail int) bool {
	hi, lo := bits.Mul64(uint64(n), uint64(size))
	return hi == 0 && lo <= uint64(avail)
}
