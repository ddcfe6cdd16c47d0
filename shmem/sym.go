package shmem

import (
	"fmt"
	"math"
	"reflect"
	"sync/atomic"
	"unsafe"
)

// Sym is a symmetric object: n elements of T at the same heap offset on
// every PE. It is the target (or source) of remote operations, named by a
// PE number, and Local gives this PE's own copy as a slice.
//
// A Sym is a small value; copy it freely. At and Slice give sub-objects that
// stay bounds-checked against their allocation. After Free, every copy of
// the Sym is rejected with ErrNotSymmetric.
//
// T must be plain data: numbers, bools, arrays and structs of them.
type Sym[T any] struct {
	w    *World
	off  uint64
	n    int // elements; -1 marks an out-of-range At or Slice
	slot uint32
	gen  uint32
}

// Len returns the number of elements (0 for an invalid sub-object).
func (s Sym[T]) Len() int { return max(s.n, 0) }

// Offset returns the object's byte offset in the symmetric heap.
func (s Sym[T]) Offset() uint64 { return s.off }

// World returns the world the object belongs to.
func (s Sym[T]) World() *World { return s.w }

// Local returns this PE's copy of the object. It aliases the heap: peers'
// puts appear in it. It is nil for an invalid or freed object.
func (s Sym[T]) Local() []T {
	if s.valid() != nil || s.n == 0 || (s.w.dev != nil && !s.w.inHostArea(s.off)) {
		return nil // (a device heap has no host copy: use Get, or DevicePtr in kernels)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&s.w.heap[s.off])), s.n)
}

// At returns the one-element object at index i (the target of atomics and
// waits). An index out of range gives an object every call rejects with
// ErrOutOfBounds.
func (s Sym[T]) At(i int) Sym[T] { return s.Slice(i, i+1) }

// Slice returns elements [lo, hi) as an object. Bounds out of range give an
// object every call rejects with ErrOutOfBounds.
func (s Sym[T]) Slice(lo, hi int) Sym[T] {
	if s.n < 0 {
		return s // already out of range: keep the first bad bounds
	}
	if lo < 0 || hi < lo || hi > s.n {
		// An object out of range keeps what its error reports: the
		// length as -(n+1) and the bounds asked for in place of the
		// offset, which no call uses any more.
		s.off = uint64(uint32(clamp32(lo)))<<32 | uint64(uint32(clamp32(hi)))
		s.n = -(s.n + 1)
		return s
	}
	s.off += uint64(lo) * elemSize[T]()
	s.n = hi - lo
	return s
}

// Bytes returns the object as bytes: the byte-level form of every call.
func (s Sym[T]) Bytes() Sym[byte] {
	b := Sym[byte]{w: s.w, off: s.off, n: s.n, slot: s.slot, gen: s.gen}
	if s.n > 0 {
		b.n = s.n * int(elemSize[T]())
	}
	return b
}

// View reinterprets a byte object as elements of T. It fails with
// ErrInvalid when T is not plain data or the length is not a whole number of
// elements; a view whose offset is not aligned for T is allowed, but atomics
// on it fail with ErrMisaligned.
func View[T any](b Sym[byte]) (Sym[T], error) {
	if err := b.valid(); err != nil {
		return Sym[T]{}, err
	}
	if err := checkPlain[T](); err != nil {
		return Sym[T]{}, err
	}
	sz := elemSize[T]()
	if sz == 0 || uint64(b.n)%sz != 0 {
		return Sym[T]{}, errf(ErrInvalid, "%d bytes is not a whole number of %d-byte elements", b.n, sz)
	}
	return Sym[T]{w: b.w, off: b.off, n: int(uint64(b.n) / sz), slot: b.slot, gen: b.gen}, nil
}

func elemSize[T any]() uint64 {
	var z T
	return uint64(unsafe.Sizeof(z))
}

// valid reports why s cannot be used, or nil.
func (s Sym[T]) valid() error {
	if s.w == nil {
		return errf(ErrNotSymmetric, "zero Sym (not returned by Alloc)")
	}
	if s.w.closed.Load() {
		return ErrFinalized
	}
	if !s.w.objs.live(s.slot, s.gen) {
		return errf(ErrNotSymmetric, "the object was freed")
	}
	if s.n < 0 {
		n, lo, hi := -s.n-1, int32(s.off>>32), int32(s.off)
		if hi == lo+1 {
			return errf(ErrOutOfBounds, "index %d out of range of an object of %d elements", lo, n)
		}
		return errf(ErrOutOfBounds, "elements [%d, %d) out of range of an object of %d elements", lo, hi, n)
	}
	return nil
}

// clamp32 keeps a bound within what an invalid object records.
func clamp32(v int) int32 {
	return int32(max(min(v, math.MaxInt32), math.MinInt32))
}

// remote checks s as the target of an access of nelem elements at pe and
// returns the byte count.
func (s Sym[T]) remote(pe, nelem int) (uint64, error) {
	if err := s.valid(); err != nil {
		return 0, err
	}
	if pe < 0 || pe >= s.w.npes {
		return 0, errf(ErrBadPE, "PE %d of %d", pe, s.w.npes)
	}
	if nelem > s.n {
		return 0, errf(ErrOutOfBounds, "%d elements into an object of %d", nelem, s.n)
	}
	return uint64(nelem) * elemSize[T](), nil
}

var plainTypes atomic.Pointer[map[reflect.Type]error]

// checkPlain reports an element type a symmetric object cannot hold.
// Scalar kinds answer at once: the map lookup of the general case cost a
// small reduction a sixth of its time.
func checkPlain[T any]() error {
	t := reflect.TypeFor[T]()
	if k := t.Kind(); k >= reflect.Bool && k <= reflect.Complex128 {
		return nil
	}
	if m := plainTypes.Load(); m != nil {
		if err, ok := (*m)[t]; ok {
			return err
		}
	}
	var err error
	if !isPlain(t) {
		err = errf(ErrInvalid, "element type %v holds pointers; a symmetric object holds plain data only", t)
	}
	for {
		old := plainTypes.Load()
		m := map[reflect.Type]error{t: err}
		if old != nil {
			for k, v := range *old {
				m[k] = v
			}
		}
		if plainTypes.CompareAndSwap(old, &m) {
			return err
		}
	}
}

func isPlain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return isPlain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !isPlain(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// objTable records which allocations are live, so that a freed Sym is
// refused. Lookups are lock-free (two atomic loads) because they sit on
// every RMA call; slots are chunked so the table grows without moving.
type objTable struct {
	chunks [1 << 12]atomic.Pointer[[1 << 10]atomic.Uint32]
	free   []uint32
	next   uint32
}

const maxObjects = 1 << 22

func (t *objTable) live(slot, gen uint32) bool {
	c := t.chunks[(slot>>10)&(1<<12-1)].Load()
	return c != nil && gen != 0 && c[slot&(1<<10-1)].Load() == gen
}

// add returns a slot and generation for a new allocation.
func (t *objTable) add() (uint32, uint32, error) {
	var slot uint32
	if k := len(t.free); k > 0 {
		slot, t.free = t.free[k-1], t.free[:k-1]
	} else {
		if t.next == maxObjects {
			return 0, 0, errf(ErrHeapExhausted, "more than %d live objects", maxObjects)
		}
		slot = t.next
		t.next++
		if t.chunks[slot>>10].Load() == nil {
			t.chunks[slot>>10].Store(new([1 << 10]atomic.Uint32))
		}
	}
	g := &t.chunks[slot>>10].Load()[slot&(1<<10-1)]
	gen := g.Load() + 1
	if gen == 0 {
		gen = 1
	}
	g.Store(gen)
	return slot, gen, nil
}

// remove retires slot; copies of its Sym become invalid.
func (t *objTable) remove(slot uint32) {
	g := &t.chunks[slot>>10].Load()[slot&(1<<10-1)]
	g.Store(g.Load() + 1) // odd/even does not matter: any change retires old Syms
	t.free = append(t.free, slot)
}

func (s Sym[T]) String() string {
	return fmt.Sprintf("Sym[%v]{off=%d, len=%d}", reflect.TypeFor[T](), s.off, s.n)
}
