package windows

import (
	"fmt"
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
// start, n bytes long.
type run struct{ off, n int }

const (
	maxRuns  = 1 << 22
	maxBytes = 1 << 48 // no type map or transfer spans more
)

// Datatype describes the layout of count elements in a buffer, as an MPI
// datatype: a basic type, and contiguous or vector (strided) arrangement
// of it. The zero Datatype is invalid. Constructors never fail; an invalid
// construction gives a Datatype whose Err reports why and that every
// operation rejects with ErrType.
type Datatype struct{ d *dtype }

type dtype struct {
	basic   Basic
	elems   int   // basic elements in one instance
	extent  int   // bytes from one instance to the next
	ub      int   // end of the last byte of one instance
	runs    []run // sorted by offset, adjacent runs merged
	overlap bool  // some bytes appear twice (a stride shorter than its block)
	err     error
}

func basicType(b Basic) Datatype {
	sz := kinds[b].size
	return Datatype{&dtype{basic: b, elems: 1, extent: sz, ub: sz, runs: []run{{0, sz}}}}
}

// The predefined datatypes.
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
// consecutive blocks stride copies of old apart (MPI_Type_vector). Strides
// must be positive; a stride shorter than blocklen gives overlapping
// entries, which only origin buffers of Put and Accumulate may have.
func Vector(count, blocklen, stride int, old Datatype) Datatype {
	o := old.d
	switch {
	case o == nil:
		return badType("vector of an invalid datatype")
	case o.err != nil:
		return old
	case count < 0 || blocklen < 0:
		return badType("vector of %d blocks of %d elements", count, blocklen)
	case stride < 1:
		return badType("vector stride %d: strides must be positive", stride)
	case count > 0 && blocklen > 0 && (count > maxRuns || blocklen > maxRuns || stride > maxRuns):
		return badType("vector of %d blocks of %d at stride %d is too large", count, blocklen, stride)
	}
	if span := (count-1)*stride + blocklen; o.extent > 0 && span > maxBytes/o.extent {
		return badType("vector of %d blocks at stride %d spans more than %d bytes", count, stride, maxBytes)
	}
	d := &dtype{basic: o.basic, elems: count * blocklen * o.elems, overlap: o.overlap || (count > 1 && stride < blocklen)}
	if count == 0 || blocklen == 0 {
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
	if !d.overlap {
		for k := 1; k < len(d.runs); k++ {
			if d.runs[k].off < d.runs[k-1].off+d.runs[k-1].n {
				d.overlap = true
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
	if t.d == nil {
		return errorf(ClassType, "zero Datatype")
	}
	return t.d.err
}

// Basic returns the datatype's basic type.
func (t Datatype) Basic() Basic {
	if t.Err() != nil {
		return BasicInvalid
	}
	return t.d.basic
}

// Count returns the number of basic elements in one instance.
func (t Datatype) Count() int {
	if t.Err() != nil {
		return 0
	}
	return t.d.elems
}

// Extent returns the distance in bytes from one instance to the next.
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
	if len(t.d.runs) == 1 && t.d.runs[0].off == 0 {
		return fmt.Sprintf("%d x %v", t.d.elems, t.d.basic)
	}
	return fmt.Sprintf("%d x %v in %d pieces over %d bytes", t.d.elems, t.d.basic, len(t.d.runs), t.d.extent)
}

// contiguous reports whether count instances form one run from offset 0.
func (d *dtype) contiguous() bool {
	return len(d.runs) == 0 || (len(d.runs) == 1 && d.runs[0].off == 0 && d.runs[0].n == d.extent)
}

// span returns the bytes count instances reach from their start.
func (d *dtype) span(count int) int {
	if count == 0 || d.elems == 0 {
		return 0
	}
	return (count-1)*d.extent + d.ub
}

// cursor walks the type map of count instances of a datatype, in order.
type cursor struct {
	d     *dtype
	count int
	inst  int // current instance
	r     int // current run
	pos   int // bytes consumed in the current run
}

func newCursor(d *dtype, count int) cursor {
	c := cursor{d: d, count: count}
	if d.elems == 0 {
		c.inst = count
	}
	return c
}

// next returns the offset and length of the next piece, at most max bytes;
// n is 0 at the end.
func (c *cursor) next(max int) (off, n int) {
	if c.inst >= c.count {
		return 0, 0
	}
	r := c.d.runs[c.r]
	off = c.inst*c.d.extent + r.off + c.pos
	n = min(r.n-c.pos, max)
	c.pos += n
	if c.pos == r.n {
		c.pos = 0
		c.r++
		if c.r == len(c.d.runs) {
			c.r = 0
			c.inst++
		}
	}
	return off, n
}

// zip calls fn for matching pieces of two type maps with the same number
// of bytes.
func zip(a, b cursor, fn func(aOff, bOff, n int)) {
	for a.inst < a.count && b.inst < b.count {
		an := a.d.runs[a.r].n - a.pos
		bn := b.d.runs[b.r].n - b.pos
		k := min(an, bn)
		ao, _ := a.next(k)
		bo, _ := b.next(k)
		fn(ao, bo, k)
	}
}

// asBytes views a slice of plain elements as bytes.
func asBytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}
