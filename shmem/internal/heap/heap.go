// Package heap implements the deterministic allocator behind the symmetric
// heap of the OpenSHMEM-style runtime.
//
// Every PE (processing element) owns a private copy of the symmetric heap
// and runs its own, identical Allocator instance. Because all PEs perform the
// same collective sequence of Alloc and Free calls, and because the allocator
// is a pure, deterministic function of that sequence (no map iteration
// order, no clocks, no randomness, no dependence on the host's memory
// layout), every PE obtains the same offset for the same symmetric object.
// That is what makes an object "symmetric": a remote PE can be addressed
// with the local offset, so one-sided puts and gets need no address exchange
// or other communication at allocation time.
//
// The algorithm is first-fit (lowest address) over an address-ordered list
// of blocks that exactly tiles the managed range. Allocation splits a free
// block into optional alignment padding (left free), the allocated block and
// an optional free remainder; freeing coalesces with free neighbours, so no
// two adjacent blocks are ever both free. All operations are O(number of
// blocks), apart from Free's O(log n) lookup.
package heap

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// MinAlign is the minimum alignment and size granularity of every block: each
// block starts on a 64-byte (cache line) boundary, which avoids false sharing
// between distinct symmetric objects.
const MinAlign = 64

// Sentinel errors; returned errors wrap them (use errors.Is).
var (
	ErrExhausted    = errors.New("heap: symmetric heap exhausted")
	ErrNotAllocated = errors.New("heap: offset is not the start of a live allocation")
	ErrBadAlign     = errors.New("heap: alignment must be a power of two")
	ErrBadSize      = errors.New("heap: invalid size")
)

type block struct {
	off, size uint64
	free      bool
}

// Allocator manages the byte range [base, base+size) of a symmetric heap.
// It is not safe for concurrent use; callers serialise access.
type Allocator struct {
	base, size      uint64
	blocks          []block // sorted by off, tiling [base, base+size) exactly
	inUse, freeSize uint64
}

// New returns an Allocator managing [base, base+size). base and size must be
// multiples of MinAlign and base+size must not overflow; violating this is a
// programming error and panics.
func New(base, size uint64) *Allocator {
	if base%MinAlign != 0 || size%MinAlign != 0 {
		panic(fmt.Sprintf("heap: New(%#x, %#x): base and size must be multiples of %d", base, size, MinAlign))
	}
	if size > math.MaxUint64-base {
		panic(fmt.Sprintf("heap: New(%#x, %#x): range overflows uint64", base, size))
	}
	a := &Allocator{base: base, size: size, freeSize: size}
	if size > 0 {
		a.blocks = []block{{off: base, size: size, free: true}}
	}
	return a
}

// Alloc reserves size bytes aligned to align and returns the block's offset.
//
// align 0 means MinAlign and smaller alignments are raised to MinAlign; an
// alignment that is not a power of two yields ErrBadAlign. The size is
// rounded up to a multiple of MinAlign. A size of 0 returns (0, nil): an
// "empty" allocation that reserves nothing and must not be passed to Free
// (offset 0 may be the start of a real block when base is 0). A size whose
// rounding would overflow yields ErrBadSize; a request that does not fit
// yields ErrExhausted and leaves the allocator unchanged. The first (lowest
// address) fitting free block is used.
func (a *Allocator) Alloc(size, align uint64) (uint64, error) {
	if align == 0 {
		align = MinAlign
	}
	if align&(align-1) != 0 {
		return 0, fmt.Errorf("alloc(size=%d, align=%d): %w", size, align, ErrBadAlign)
	}
	if align < MinAlign {
		align = MinAlign
	}
	if size == 0 {
		return 0, nil
	}
	if size > math.MaxUint64-(MinAlign-1) {
		return 0, fmt.Errorf("alloc(size=%d, align=%d): size overflows when rounded to %d: %w",
			size, align, MinAlign, ErrBadSize)
	}
	sz := (size + MinAlign - 1) &^ (MinAlign - 1)
	for i, b := range a.blocks {
		if !b.free {
			continue
		}
		var pad uint64
		if r := b.off & (align - 1); r != 0 {
			pad = align - r
		}
		if pad > b.size || b.size-pad < sz {
			continue
		}
		a.carve(i, pad, sz)
		a.inUse += sz
		a.freeSize -= sz
		a.mustHold("Alloc")
		return b.off + pad, nil
	}
	return 0, fmt.Errorf("alloc(size=%d, align=%d): need %d bytes, %d available, largest free block %d: %w",
		size, align, sz, a.freeSize, a.largestFree(), ErrExhausted)
}

// carve turns blocks[i] (free, size >= pad+sz) into [pad free][sz used][rest free].
func (a *Allocator) carve(i int, pad, sz uint64) {
	b := a.blocks[i]
	parts := make([]block, 0, 3)
	if pad > 0 {
		parts = append(parts, block{off: b.off, size: pad, free: true})
	}
	parts = append(parts, block{off: b.off + pad, size: sz})
	if rest := b.size - pad - sz; rest > 0 {
		parts = append(parts, block{off: b.off + pad + sz, size: rest, free: true})
	}
	a.blocks = slices.Replace(a.blocks, i, i+1, parts...)
}

// find returns the index of the block starting at off, or -1.
func (a *Allocator) find(off uint64) int {
	i := sort.Search(len(a.blocks), func(i int) bool { return a.blocks[i].off >= off })
	if i < len(a.blocks) && a.blocks[i].off == off {
		return i
	}
	return -1
}

// Free releases the live block starting at off and returns its usable size.
// The freed space is coalesced with free neighbours. An offset that is not
// the start of a live block (double free, interior pointer, never allocated,
// out of range) yields ErrNotAllocated and leaves the allocator unchanged.
func (a *Allocator) Free(off uint64) (uint64, error) {
	i := a.find(off)
	if i < 0 || a.blocks[i].free {
		what := "not a block start"
		if i >= 0 {
			what = "already free"
		} else if off < a.base || off-a.base >= a.size {
			what = fmt.Sprintf("outside heap [%#x, %#x)", a.base, a.base+a.size)
		}
		return 0, fmt.Errorf("free(%#x): %s: %w", off, what, ErrNotAllocated)
	}
	sz := a.blocks[i].size
	a.blocks[i].free = true
	a.inUse -= sz
	a.freeSize += sz
	if i+1 < len(a.blocks) && a.blocks[i+1].free {
		a.blocks[i].size += a.blocks[i+1].size
		a.blocks = slices.Delete(a.blocks, i+1, i+2)
	}
	if i > 0 && a.blocks[i-1].free {
		a.blocks[i-1].size += a.blocks[i].size
		a.blocks = slices.Delete(a.blocks, i, i+1)
	}
	a.mustHold("Free")
	return sz, nil
}

// mustHold panics when an invariants build finds the allocator broken
// after call; in other builds it is nothing (the constant folds it away).
func (a *Allocator) mustHold(call string) {
	if !invariants {
		return
	}
	if err := a.Check(); err != nil {
		panic("heap: after " + call + ": " + err.Error())
	}
}

// Size returns the usable size of the live block starting at off.
func (a *Allocator) Size(off uint64) (uint64, bool) {
	i := a.find(off)
	if i < 0 || a.blocks[i].free {
		return 0, false
	}
	return a.blocks[i].size, true
}

// Block returns the live block that holds [off, off+n): its start, or
// false when that range is not inside one live block.
func (a *Allocator) Block(off, n uint64) (uint64, bool) {
	i := sort.Search(len(a.blocks), func(i int) bool { return a.blocks[i].off > off }) - 1
	if i < 0 || a.blocks[i].free {
		return 0, false
	}
	b := a.blocks[i]
	if off+n < off || off+n > b.off+b.size {
		return 0, false
	}
	return b.off, true
}

// Range returns the managed range as its base and size.
func (a *Allocator) Range() (base, size uint64) { return a.base, a.size }

// InUse returns the number of bytes in live blocks (after rounding).
func (a *Allocator) InUse() uint64 { return a.inUse }

// Available returns the total number of free bytes (possibly fragmented).
func (a *Allocator) Available() uint64 { return a.freeSize }

func (a *Allocator) largestFree() uint64 {
	var m uint64
	for _, b := range a.blocks {
		if b.free && b.size > m {
			m = b.size
		}
	}
	return m
}

// Check verifies the allocator's invariants: blocks are non-empty, aligned,
// sorted, non-overlapping and tile [base, base+size) exactly; no two adjacent
// blocks are both free; and the InUse/Available counters match the blocks.
func (a *Allocator) Check() error {
	next := a.base
	var used, free uint64
	for i, b := range a.blocks {
		switch {
		case b.size == 0:
			return fmt.Errorf("heap: check: block %d at %#x is empty", i, b.off)
		case b.off%MinAlign != 0 || b.size%MinAlign != 0:
			return fmt.Errorf("heap: check: block %d [%#x,+%d) misaligned", i, b.off, b.size)
		case b.off != next:
			return fmt.Errorf("heap: check: block %d at %#x, want %#x (gap or overlap)", i, b.off, next)
		case b.size > a.base+a.size-b.off:
			return fmt.Errorf("heap: check: block %d [%#x,+%d) exceeds heap end %#x", i, b.off, b.size, a.base+a.size)
		case b.free && i > 0 && a.blocks[i-1].free:
			return fmt.Errorf("heap: check: adjacent free blocks %d and %d not coalesced", i-1, i)
		}
		if b.free {
			free += b.size
		} else {
			used += b.size
		}
		next = b.off + b.size
	}
	if next != a.base+a.size {
		return fmt.Errorf("heap: check: blocks end at %#x, want %#x", next, a.base+a.size)
	}
	if used != a.inUse || free != a.freeSize {
		return fmt.Errorf("heap: check: counters inUse=%d free=%d, blocks say %d and %d", a.inUse, a.freeSize, used, free)
	}
	return nil
}
