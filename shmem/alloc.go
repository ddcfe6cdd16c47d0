package shmem

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/gshmem/gshmem/shmem/internal/heap"
)

// Alloc allocates n elements of T on every PE's heap and returns the
// symmetric object, as shmem_malloc. It is collective: every PE must call it
// with the same n; when they differ, every PE gets ErrSizeMismatch and
// nothing is allocated. The memory is not cleared.
func Alloc[T any](w *World, n int) (Sym[T], error) { return allocate[T](w, n, 0, false) }

// Calloc is Alloc with the memory set to zero on every PE before any PE
// returns, as shmem_calloc.
func Calloc[T any](w *World, n int) (Sym[T], error) { return allocate[T](w, n, 0, true) }

// Align is Alloc with the object's offset a multiple of align bytes (a power
// of two), as shmem_align. Every object is at least 64-byte aligned.
func Align[T any](w *World, align uint64, n int) (Sym[T], error) {
	return allocate[T](w, n, align, false)
}

const (
	opAlloc   = 1
	opCalloc  = 2
	opFree    = 3
	opBad     = 4 // this PE's own arguments were invalid; the others must fail too
	opRealloc = 5
	opHost    = 0x40 // with opAlloc or opCalloc: in a device World's host area (AllocHost)

	hintShift = 8 // an Alloc request's kind carries its hints above this bit
)

func allocate[T any](w *World, n int, align uint64, zero bool) (Sym[T], error) {
	return allocateHinted[T](w, n, align, zero, 0)
}

// allocateHinted is allocate with AllocWithHints' hints, which travel in the
// request's kind so that PEs passing different hints disagree.
func allocateHinted[T any](w *World, n int, align uint64, zero bool, hints Hint) (Sym[T], error) {
	return allocateIn[T](w, n, align, zero, hints, false)
}

// allocateIn is allocateHinted in the heap, or in a device World's host
// area when host is set (AllocHost, hostarea.go).
func allocateIn[T any](w *World, n int, align uint64, zero bool, hints Hint, host bool) (Sym[T], error) {
	if w == nil {
		return Sym[T]{}, errf(ErrInvalid, "nil World")
	}
	if w.closed.Load() {
		return Sym[T]{}, ErrFinalized
	}
	kind := uint64(opAlloc)
	if zero {
		kind = opCalloc
	}
	sz := elemSize[T]()
	localErr := checkPlain[T]()
	var bytes uint64
	switch {
	case localErr != nil:
	case n < 0:
		localErr = errf(ErrInvalid, "allocation of %d elements", n)
	case sz != 0 && uint64(n) > math.MaxUint64/sz:
		localErr = errf(ErrHeapExhausted, "%d elements of %d bytes overflow", n, sz)
	case align&(align-1) != 0:
		localErr = errf(ErrInvalid, "alignment %d is not a power of two", align)
	default:
		bytes = uint64(n) * sz
	}
	if hints&^hintsKnown != 0 {
		localErr = errf(ErrInvalid, "unknown allocation hints %#x", uint64(hints&^hintsKnown))
	}
	kind |= uint64(hints) << hintShift
	a := w.alloc
	if host && w.hostArea != nil {
		kind |= opHost
		a = w.hostArea
	}
	if localErr != nil {
		kind = opBad
	}
	if err := w.agree(kind, bytes, align); err != nil {
		return Sym[T]{}, errors.Join(localErr, err)
	}
	var off uint64
	if bytes > 0 {
		var err error
		if off, err = a.Alloc(bytes, align); err != nil {
			if errors.Is(err, heap.ErrExhausted) {
				return Sym[T]{}, w.exhausted(bytes, err)
			}
			return Sym[T]{}, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	slot, gen, err := w.objs.add()
	if err != nil {
		// Same on every PE: the tables grow identically.
		if bytes > 0 {
			_, _ = a.Free(off)
		}
		return Sym[T]{}, err
	}
	s := Sym[T]{w: w, off: off, n: n, slot: slot, gen: gen}
	w.noteDeviceObject(a, off, slot, gen)
	if zero && bytes > 0 {
		if err := w.clearHeap(off, bytes); err != nil {
			return s, err
		}
		if err := w.SyncAll(); err != nil {
			return s, err
		}
	}
	w.log.Tracef("alloc %d bytes at %d", bytes, off)
	return s, nil
}

// Free releases a symmetric object on every PE, as shmem_free. It is
// collective: every PE must pass the same object. Freeing an object twice, or
// one that is not live, returns ErrDoubleFree on every PE; PEs that pass
// different objects get ErrSizeMismatch. Nothing is freed in either case.
func Free[T any](s Sym[T]) error {
	w := s.w
	if w == nil {
		return errf(ErrNotSymmetric, "Free of a zero Sym")
	}
	if w.closed.Load() {
		return ErrFinalized
	}
	live := w.objs.live(s.slot, s.gen)
	kind, off := uint64(opFree), s.off
	if !live {
		kind = opBad
	}
	if err := w.agree(kind, off, 0); err != nil {
		if !live {
			return errf(ErrDoubleFree, "object at offset %d is not live (%v)", off, err)
		}
		return err
	}
	if s.off != 0 { // offset 0 marks a zero-length object, which has no block
		a := w.alloc
		if w.inHostArea(off) {
			a = w.hostArea
		}
		n, err := a.Free(off)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrDoubleFree, err)
		}
		if a == w.alloc {
			w.releaseHeap(off, n)
		}
	}
	w.objs.remove(s.slot)
	delete(w.objsByOff, off)
	w.log.Tracef("free at %d", off)
	return nil
}

// agree checks that every PE entered the same allocation call with the same
// arguments. The request rides in the barrier's descriptor hash, so that a
// PE reads no peer's memory when all agree (reading every PE's request
// would map every peer's heap here at the first Alloc: page tables that
// grow with the job). When the hashes differ, each PE reads everyone's
// request, which it wrote into its own control area, to say who asked for
// what; all PEs see the same requests, so all reach the same verdict.
// GSHMEM_DEBUG compares the whole descriptors too (agree), so that a hash
// collision cannot hide a mismatch there. Requests alternate between two
// slots so that the next call cannot overwrite one a slow peer still reads.
func (w *World) agree(kind, a, b uint64) error {
	w.allocSeq++
	slotOff := uint64(allocSlotOff) + (w.allocSeq&1)*64
	var req [32]byte
	binary.LittleEndian.PutUint64(req[0:], w.allocSeq)
	binary.LittleEndian.PutUint64(req[8:], kind)
	binary.LittleEndian.PutUint64(req[16:], a)
	binary.LittleEndian.PutUint64(req[24:], b)
	copy(w.heap[slotOff:], req[:])
	// A barrier of its own kind: a PE in BarrierAll while its peers
	// allocate gets ErrSizeMismatch, all of them, instead of matching.
	if err := w.Quiet(); err != nil {
		return err
	}
	d := newDesc(kAlloc)
	d[dArgs], d[dArgs+1], d[dArgs+2], d[dN] = w.allocSeq, kind, a, b
	world := w.teams.world
	world.open()
	err := world.agree(&d, nil)
	if err == nil {
		if kind == opBad {
			return errf(ErrInvalid, "every PE passed invalid arguments")
		}
		return nil
	}
	if !errors.Is(err, ErrSizeMismatch) {
		return err
	}
	var got [32]byte
	for pe := range w.npes {
		if gerr := w.tr.Get(pe, slotOff, got[:]); gerr != nil {
			return errors.Join(err, gerr)
		}
		if got != req {
			return errf(ErrSizeMismatch, "PE %d called %s, PE %d called %s",
				w.pe, describeReq(req), pe, describeReq(got))
		}
	}
	return err // every PE made this request: some PE is in another collective
}

func describeReq(r [32]byte) string {
	seq := binary.LittleEndian.Uint64(r[0:])
	a, b := binary.LittleEndian.Uint64(r[16:]), binary.LittleEndian.Uint64(r[24:])
	kind := binary.LittleEndian.Uint64(r[8:])
	if kind&opHost != 0 && kind&^opHost <= opCalloc {
		return fmt.Sprintf("AllocHost(%d bytes, zeroed %v) as allocation call #%d", a, kind&^opHost == opCalloc, seq)
	}
	if h := kind >> hintShift; h != 0 && kind&(1<<hintShift-1) == opAlloc {
		return fmt.Sprintf("AllocWithHints(%d bytes, hints %#x) as allocation call #%d", a, h, seq)
	}
	switch kind {
	case opAlloc:
		return fmt.Sprintf("Alloc(%d bytes, align %d) as allocation call #%d", a, b, seq)
	case opRealloc:
		return fmt.Sprintf("Realloc(offset %d to %d bytes) as allocation call #%d", a, b, seq)
	case opCalloc:
		return fmt.Sprintf("Calloc(%d bytes) as allocation call #%d", a, seq)
	case opFree:
		return fmt.Sprintf("Free(offset %d) as allocation call #%d", a, seq)
	default:
		return fmt.Sprintf("an allocation call with invalid arguments as call #%d", seq)
	}
}
