package mpitype

import (
	"fmt"
	"sync/atomic"

	"github.com/gshmem/gshmem/internal/mpierr"
)

// Datatype is the one MPI datatype handle of every MPI layer (compat
// declares it as compat.Datatype, and windows takes that): a type map, or
// the reason there is none, and whether MPI_Type_free was called. The zero
// Datatype is invalid. Constructors never fail; an invalid construction
// gives a Datatype whose Err says why and which every call rejects with
// ErrType.
type Datatype struct{ h *handle }

// handle is what a Datatype points to. Err's fields come first and the
// map's small ones right after: what every Send and Recv reads lies in the
// object's first 48 bytes.
type handle struct {
	err   error
	freed atomic.Bool
	Map
}

// MapOf returns t's type map; t.Err() must be nil. It is a function of this
// internal package, not a method, so that the map stays out of the layers'
// public API.
func MapOf(t Datatype) *Map { return &t.h.Map }

// Predefined returns the datatype handle of basic type b: one handle per
// basic type, so that equal predefined datatypes compare equal.
func Predefined(b Basic) Datatype {
	if b <= BasicInvalid || b >= NumBasic {
		return typeErr("basic type %d is not a datatype", b)
	}
	return predefined[b]
}

var predefined = func() (p [NumBasic]Datatype) {
	for b := BasicInvalid + 1; b < NumBasic; b++ {
		p[b] = Datatype{&handle{Map: BasicMap(b)}}
	}
	return p
}()

// TypeOf returns the predefined datatype of T.
func TypeOf[T Elem]() Datatype { return predefined[Of[T]()] }

func typeErr(format string, args ...any) Datatype {
	return Datatype{&handle{err: mpierr.Errorf(mpierr.ClassType, format, args...)}}
}

// NamedExt is a predefined datatype of basic type b whose external32 size
// is ext bytes (a C long: 8 bytes here, 4 in external32): a handle of its
// own, as distinct MPI types are.
func NamedExt(b Basic, ext int) Datatype {
	if b <= BasicInvalid || b >= NumBasic {
		return typeErr("basic type %d is not a datatype", b)
	}
	return Datatype{&handle{Map: ExtMap(b, ext)}}
}

// usable returns old's handle, or the datatype that says why it is not
// usable.
func usable(old Datatype, what string) (*handle, Datatype, bool) {
	o := old.h
	switch {
	case o == nil:
		return nil, typeErr("%s of an invalid datatype", what), false
	case o.err != nil:
		return nil, old, false
	case o.freed.Load():
		return nil, typeErr("%s of a freed datatype", what), false
	}
	return o, Datatype{}, true
}

func made(m Map, err error) Datatype {
	if err != nil {
		return typeErr("%v", err)
	}
	return Datatype{&handle{Map: m}}
}

// Contiguous is count copies of old, one after the other
// (MPI_Type_contiguous).
func Contiguous(count int, old Datatype) Datatype {
	o, bad, ok := usable(old, "contiguous")
	if !ok {
		return bad
	}
	if count < 0 {
		return typeErr("contiguous of %d copies", count)
	}
	return made(Repeat(count, o.extent, &o.Map))
}

// VectorOf is count blocks of blocklen copies of old, the starts of
// consecutive blocks stride copies of old apart (MPI_Type_vector; the
// stride may be negative). A stride shorter than blocklen gives
// overlapping entries: such a datatype may describe data that is only read
// (the origin of a put or an accumulate), and every call that would write
// through it fails with ErrType.
func VectorOf(count, blocklen, stride int, old Datatype) Datatype {
	o, bad, ok := usable(old, "vector")
	if !ok {
		return bad
	}
	if !Fits(max(stride, -stride), max(o.extent, -o.extent), MaxBytes) {
		return typeErr("vector stride %d of a type of extent %d is too large", stride, o.extent)
	}
	return HVectorOf(count, blocklen, stride*o.extent, old)
}

// HVectorOf is VectorOf with the stride in bytes (MPI_Type_create_hvector).
func HVectorOf(count, blocklen, stride int, old Datatype) Datatype {
	o, bad, ok := usable(old, "vector")
	if !ok {
		return bad
	}
	switch {
	case count < 0 || blocklen < 0:
		return typeErr("vector of %d blocks of %d elements", count, blocklen)
	case count > 0 && blocklen > 0 && o.size > 0 &&
		float64(count-1)*float64(max(stride, -stride))+float64(blocklen)*float64(max(o.extent, -o.extent, o.trueExt)) > MaxBytes:
		return typeErr("vector of %d blocks of %d at stride %d spans more than 2^48 bytes", count, blocklen, stride)
	}
	return made(HVector(count, blocklen, stride, &o.Map))
}

// Block is count copies of a datatype placed disp bytes from the origin:
// one block of MPI_Type_create_struct or of the indexed types (whose
// element displacements the caller turns into bytes).
type Block struct {
	Disp, Count int
	Old         Datatype
}

// BlocksOf is the datatype of blocks laid out in order (the indexed types
// and their h- and block forms; StructOf for structs). Displacements may
// have any sign; blocks of no elements do not count for the bounds.
// Entries that overlap give a datatype only reads may use, as for vectors.
func BlocksOf(blocks []Block) Datatype { return placeBlocks(blocks, false) }

// StructOf is BlocksOf for MPI_Type_create_struct: blocks of any types,
// the extent padded to the largest alignment of its basic types unless a
// member has explicit bounds (a resized type).
func StructOf(blocks []Block) Datatype { return placeBlocks(blocks, true) }

func placeBlocks(blocks []Block, pad bool) Datatype {
	parts := make([]Part, len(blocks))
	for i, b := range blocks {
		o, bad, ok := usable(b.Old, "block")
		if !ok {
			return bad
		}
		if b.Count < 0 {
			return typeErr("block %d: %d elements", i, b.Count)
		}
		// A block of no elements is no part of the map, wherever it is
		// (MPICH's indexed_misc puts them at LLONG_MAX).
		if b.Count > 0 && (b.Disp > MaxBytes || b.Disp < -MaxBytes || float64(b.Count)*float64(max(o.extent, -o.extent, o.trueExt)) > MaxBytes) {
			return typeErr("block %d: %d elements at displacement %d spans more than 2^48 bytes", i, b.Count, b.Disp)
		}
		parts[i] = Part{Disp: b.Disp, N: b.Count, Step: o.extent, Old: &o.Map}
	}
	return made(Place(parts, pad))
}

// PartsOf is the datatype of parts built by a layer from maps it already
// checked (subarrays, darrays).
func PartsOf(parts []Part) Datatype { return made(Place(parts, false)) }

// ResizedOf is old with lower bound lb and extent extent bytes
// (MPI_Type_create_resized). The data stays where it was: instances are
// extent bytes apart, and may interleave.
func ResizedOf(old Datatype, lb, extent int) Datatype {
	o, bad, ok := usable(old, "resized")
	if !ok {
		return bad
	}
	if lb > MaxBytes || lb < -MaxBytes || extent > MaxBytes || extent < -MaxBytes {
		return typeErr("resized to lower bound %d and extent %d", lb, extent)
	}
	return Datatype{&handle{Map: Resized(&o.Map, lb, extent)}}
}

// DupOf is a derived datatype with old's type map (MPI_Type_dup).
func DupOf(old Datatype) Datatype {
	o, bad, ok := usable(old, "dup")
	if !ok {
		return bad
	}
	return Datatype{&handle{Map: Dup(&o.Map)}}
}

// Err reports why the datatype is invalid (never built, built from bad
// arguments, or freed), or nil.
func (t Datatype) Err() error {
	if h := t.h; h != nil && h.err == nil && !h.freed.Load() {
		return nil
	}
	switch {
	case t.h == nil:
		return mpierr.Errorf(mpierr.ClassType, "zero Datatype")
	case t.h.err != nil:
		return t.h.err
	}
	return mpierr.Errorf(mpierr.ClassType, "datatype was freed")
}

// Commit returns Err: datatypes need no commit, but ported code that calls
// MPI_Type_commit keeps its shape.
func (t Datatype) Commit() error { return t.Err() }

// Free marks a derived datatype freed (MPI_Type_free); later calls that
// take it fail with ErrType. Predefined datatypes cannot be freed.
func (t Datatype) Free() error {
	if err := t.Err(); err != nil {
		return err
	}
	if t.h.Predefined() {
		return mpierr.Errorf(mpierr.ClassType, "%v is predefined and cannot be freed", t.h.Basic())
	}
	t.h.freed.Store(true)
	return nil
}

// Basic returns the datatype's basic type, BasicInvalid for an invalid
// datatype.
func (t Datatype) Basic() Basic {
	if t.Err() != nil {
		return BasicInvalid
	}
	return t.h.Basic()
}

// Size returns the bytes of data in one instance (MPI_Type_size).
func (t Datatype) Size() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.Size()
}

// Count returns the number of basic elements in one instance.
func (t Datatype) Count() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.Elems()
}

// Extent returns the distance in bytes from one instance to the next
// (MPI_Type_get_extent's extent: ub - lb).
func (t Datatype) Extent() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.Extent()
}

// LB returns the lower bound (MPI_Type_get_extent's lb).
func (t Datatype) LB() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.LB()
}

// TrueLB returns the displacement of the first data byte
// (MPI_Type_get_true_extent's lb): where a buffer of this type starts.
func (t Datatype) TrueLB() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.TrueLB()
}

// TrueExtent returns the bytes from the first data byte to the end of the
// last (MPI_Type_get_true_extent's extent).
func (t Datatype) TrueExtent() int {
	if t.Err() != nil {
		return 0
	}
	return t.h.TrueExtent()
}

// Overlap reports whether some bytes of an instance appear twice in the
// datatype (a vector whose stride is shorter than its block).
func (t Datatype) Overlap() bool { return t.Err() == nil && t.h.Overlap() }

func (t Datatype) String() string {
	switch {
	case t.Err() != nil:
		return "invalid datatype"
	case t.h.Predefined():
		return t.h.Basic().String()
	case t.h.Pieces() == 1 && t.h.extent == t.h.size && t.h.basic != BasicMixed:
		return fmt.Sprintf("%d x %v", t.h.Elems(), t.h.Basic())
	}
	return t.h.Map.String()
}

// Opaque is a predefined datatype of n bytes that the engine moves but
// cannot compute on (MPI_REAL16, MPI_INTEGER16, ...): n elements of
// bytes.
func Opaque(n int) Datatype { return PredefinedOf(Contiguous(n, Predefined(BasicByte))) }

// PredefinedOf is a predefined datatype with t's map (the Fortran pair
// types, MPI_2REAL: two reals): a handle of its own that cannot be freed.
func PredefinedOf(t Datatype) Datatype {
	if t.Err() != nil {
		return t
	}
	m := t.h.Map
	m.predefined = m.Contiguous()
	return Datatype{&handle{Map: m}}
}
