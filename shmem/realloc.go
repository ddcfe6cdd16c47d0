package shmem

import (
	"errors"
	"fmt"
	"math"

	"github.com/gshmem/gshmem/shmem/internal/heap"
)

// Hint tells AllocWithHints how an object will be used
// (shmem_malloc_with_hints). Hints never change what an object holds or how
// it may be used: they are advice, and here every one of them is already
// met by what every allocation gets.
type Hint uint64

const (
	// HintAtomicsRemote (SHMEM_MALLOC_ATOMICS_REMOTE): the object is
	// mostly the target of remote atomics. Every object already starts on
	// a 64-byte line of its own and no allocation shares its last line
	// with another, so its words are naturally aligned for every atomic
	// width and no neighbour's traffic falsely shares them; there is no
	// separate atomic memory to place it in.
	HintAtomicsRemote Hint = 1 << 0
	// HintSignalRemote (SHMEM_MALLOC_SIGNAL_REMOTE): the object holds
	// signal words for PutSignal and waits. The same holds as for
	// HintAtomicsRemote; the words a wait polls are in the same heap
	// whatever the hint, so a waiter's doorbell works as usual.
	HintSignalRemote Hint = 1 << 1

	// hintsKnown are the bits this release understands.
	hintsKnown = HintAtomicsRemote | HintSignalRemote
)

// AllocWithHints is Alloc with usage hints (shmem_malloc_with_hints). It is
// collective like Alloc, and every PE must pass the same hints as well as
// the same n (else ErrSizeMismatch on every PE). A hint bit this release
// does not define is an error rather than being silently dropped (ErrInvalid
// where it was passed, and every other PE fails too): 0 and the Hint
// constants, or-ed, are accepted. See the constants
// for what each hint does here.
func AllocWithHints[T any](w *World, n int, hints Hint) (Sym[T], error) {
	return allocateHinted[T](w, n, 0, false, hints)
}

// Realloc resizes a symmetric object on every PE (shmem_realloc) and
// returns the new object, which holds the old one's first min(old, n)
// elements; the rest is not cleared. It is collective: every PE must pass
// the same object and n (else ErrSizeMismatch on every PE), and the new
// object has the same offset on every PE. The old object is freed: every
// copy of its Sym is rejected afterwards. On an error the old object stays
// as it was, live: ErrHeapExhausted when the heap has no room for n
// elements, ErrDoubleFree for an object that is not live (freed, or
// replaced by an earlier Realloc), ErrInvalid for n < 0 or a sub-object at
// an inner offset (At, Slice) in place of a whole one. A Slice(0, k) of an
// object is taken as the object with its first k elements to keep. Realloc to 0 elements gives a live empty
// object, as Alloc(w, 0) does; free it with Free.
//
// Like the OpenSHMEM call it ends with a barrier, so a peer can write into
// the new object as soon as its own Realloc returns.
func Realloc[T any](s Sym[T], n int) (Sym[T], error) {
	w := s.w
	if w == nil {
		return Sym[T]{}, errf(ErrNotSymmetric, "Realloc of a zero Sym")
	}
	if w.closed.Load() {
		return Sym[T]{}, ErrFinalized
	}
	sz := elemSize[T]()
	var localErr error
	var bytes uint64
	live := w.objs.live(s.slot, s.gen)
	switch {
	case !live:
		localErr = errf(ErrDoubleFree, "Realloc of an object that is not live (freed, or replaced by an earlier Realloc)")
	case s.n < 0:
		localErr = s.valid()
	case n < 0:
		localErr = errf(ErrInvalid, "reallocation to %d elements", n)
	case sz != 0 && uint64(n) > math.MaxUint64/sz:
		localErr = errf(ErrHeapExhausted, "%d elements of %d bytes overflow", n, sz)
	case s.off != 0 && !w.isBlockStart(s.off):
		localErr = errf(ErrInvalid, "Realloc of a sub-object at offset %d: pass the whole object", s.off)
	default:
		bytes = uint64(n) * sz
	}
	kind := uint64(opRealloc)
	if localErr != nil {
		kind = opBad
	}
	// The old offset and the new size name the request: PEs that pass
	// different objects or sizes disagree.
	if err := w.agree(kind, s.off, bytes); err != nil {
		return s, errors.Join(localErr, err)
	}
	ns := Sym[T]{w: w, n: n}
	if bytes > 0 {
		off, err := w.alloc.Alloc(bytes, 0)
		if err != nil {
			if errors.Is(err, heap.ErrExhausted) {
				return s, fmt.Errorf("%w: %v", ErrHeapExhausted, err)
			}
			return s, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		ns.off = off
	}
	if keep := min(uint64(s.n), uint64(n)) * sz; keep > 0 {
		if err := w.copyHeap(ns.off, s.off, keep); err != nil {
			return ns, err
		}
	}
	if s.off != 0 {
		if _, err := w.alloc.Free(s.off); err != nil {
			return ns, fmt.Errorf("%w: %v", ErrDoubleFree, err)
		}
	}
	// Retire the old object's slot before taking the new one's, so the
	// new Sym may reuse it under a new generation: the tables change
	// identically on every PE.
	w.objs.remove(s.slot)
	slot, gen, err := w.objs.add()
	if err != nil {
		return Sym[T]{}, err
	}
	ns.slot, ns.gen = slot, gen
	w.log.Tracef("realloc %d bytes at %d to %d bytes at %d", uint64(s.n)*sz, s.off, bytes, ns.off)
	// No PE may write into the new object before every PE has copied its
	// old contents there.
	if err := w.SyncAll(); err != nil {
		return ns, err
	}
	return ns, nil
}

// isBlockStart reports whether off starts a live allocation (a whole
// object rather than a sub-object of one).
func (w *World) isBlockStart(off uint64) bool {
	_, ok := w.alloc.Size(off)
	return ok
}

// copyHeap copies n bytes of this PE's heap from srcOff to dstOff, wherever
// the heap lives. The ranges do not overlap (both are live allocations).
func (w *World) copyHeap(dstOff, srcOff, n uint64) error {
	if w.dev != nil {
		return w.dev.putDevice(w.pe, dstOff, srcOff, n, true)
	}
	copy(w.heap[dstOff:dstOff+n], w.heap[srcOff:srcOff+n])
	return nil
}

// PEAccessible reports whether this PE can reach pe with RMA and atomics
// now (shmem_pe_accessible): pe is a PE of the job, the World is open and
// pe has not been lost (died, or finalized while this PE runs). Every PE of
// a job shares one heap model, so reachability is all it asks.
func (w *World) PEAccessible(pe int) bool {
	if w == nil || w.closed.Load() || pe < 0 || pe >= w.npes {
		return false
	}
	if pe != w.pe && w.live != nil && w.live.PeerErr(pe) != nil {
		return false
	}
	return true
}

// AddrAccessible reports whether s can be the target of RMA and atomics on
// pe now (shmem_addr_accessible): s is a live object of its World, within
// its bounds, and PEAccessible(pe). A Sym is symmetric by construction, so
// the C call's question whether an address lies in the symmetric heap
// reduces to whether the object is still allocated.
func AddrAccessible[T any](s Sym[T], pe int) bool {
	return s.valid() == nil && s.w.PEAccessible(pe)
}
