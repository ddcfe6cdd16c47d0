// Package atomicop is the one switch from an atomic operation on a word of
// memory to the instruction that does it. The core's shared-memory and TCP
// transports apply remote atomics with it, and the layers reach it through
// shmem.Mapped for their direct stores into mapped peers, so every path
// that updates a word of a heap agrees on what each operation means.
//
// Words of 4 and 8 bytes use the hardware instruction where there is one
// and a compare-and-swap loop where there is not (Xor, and a
// compare-and-swap that must return the value it found). Words of 1 and 2
// bytes, which Go's sync/atomic does not cover, are updated by a
// compare-and-swap loop on the aligned 4-byte word that holds them, so
// their neighbours in that word are never disturbed. Every operation is
// sequentially consistent with the other operations of sync/atomic.
package atomicop

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// Op is an atomic operation. Each returns the value the word held before
// it (Store returns 0).
type Op uint8

// The operations. Add wraps around; And, Or and Xor are bitwise;
// CompareAndSwap stores the operand only if the word equals the compare
// value.
const (
	Load Op = iota
	Store
	Swap
	CompareAndSwap
	Add
	And
	Or
	Xor
	numOps
)

// Valid reports whether op names an operation.
func (op Op) Valid() bool { return op < numOps }

// Writes reports whether op may change the word (all but Load).
func (op Op) Writes() bool { return op != Load }

func (op Op) String() string {
	if !op.Valid() {
		return "Op(?)"
	}
	return [...]string{"load", "store", "swap", "compare-and-swap", "add", "and", "or", "xor"}[op]
}

// Width reports whether Apply takes words of n bytes.
func Width(n int) bool { return n == 1 || n == 2 || n == 4 || n == 8 }

// Apply runs op on the word of width bytes (1, 2, 4 or 8) at p, which
// must be aligned to width, with the operand v and, for CompareAndSwap, the
// compare value cmp (both in the word's low bits), and returns the word's
// previous value. An invalid op or width panics: callers check them where
// the request enters (Valid, Width).
func Apply(p unsafe.Pointer, width int, op Op, v, cmp uint64) uint64 {
	switch width {
	case 8:
		return apply64((*uint64)(p), op, v, cmp)
	case 4:
		return uint64(apply32((*uint32)(p), op, uint32(v), uint32(cmp)))
	case 1, 2:
		return applySmall(p, width, op, v, cmp)
	}
	panic("atomicop: width " + itoa(width))
}

func apply32(w *uint32, op Op, v, cmp uint32) uint32 {
	switch op {
	case Load:
		return atomic.LoadUint32(w)
	case Store:
		atomic.StoreUint32(w, v)
		return 0
	case Swap:
		return atomic.SwapUint32(w, v)
	case CompareAndSwap:
		for {
			old := atomic.LoadUint32(w)
			if old != cmp || atomic.CompareAndSwapUint32(w, old, v) {
				return old
			}
		}
	case Add:
		return atomic.AddUint32(w, v) - v
	case And:
		return atomic.AndUint32(w, v)
	case Or:
		return atomic.OrUint32(w, v)
	case Xor:
		for {
			old := atomic.LoadUint32(w)
			if atomic.CompareAndSwapUint32(w, old, old^v) {
				return old
			}
		}
	}
	panic("atomicop: op " + itoa(int(op)))
}

func apply64(w *uint64, op Op, v, cmp uint64) uint64 {
	switch op {
	case Load:
		return atomic.LoadUint64(w)
	case Store:
		atomic.StoreUint64(w, v)
		return 0
	case Swap:
		return atomic.SwapUint64(w, v)
	case CompareAndSwap:
		for {
			old := atomic.LoadUint64(w)
			if old != cmp || atomic.CompareAndSwapUint64(w, old, v) {
				return old
			}
		}
	case Add:
		return atomic.AddUint64(w, v) - v
	case And:
		return atomic.AndUint64(w, v)
	case Or:
		return atomic.OrUint64(w, v)
	case Xor:
		for {
			old := atomic.LoadUint64(w)
			if atomic.CompareAndSwapUint64(w, old, old^v) {
				return old
			}
		}
	}
	panic("atomicop: op " + itoa(int(op)))
}

// applySmall runs op on a 1- or 2-byte word by a compare-and-swap loop on
// the aligned 4-byte word that holds it.
func applySmall(p unsafe.Pointer, width int, op Op, v, cmp uint64) uint64 {
	if !op.Valid() {
		panic("atomicop: op " + itoa(int(op)))
	}
	addr := uintptr(p)
	shift := (addr & 3) * 8
	if !littleEndian {
		shift = (4 - uintptr(width) - addr&3) * 8
	}
	mask := uint32(1)<<(8*width) - 1
	w := (*uint32)(unsafe.Add(p, -int(addr&3)))
	for {
		word := atomic.LoadUint32(w)
		old := word >> shift & mask
		var nv uint32
		switch op {
		case Load:
			return uint64(old)
		case Store, Swap:
			nv = uint32(v)
		case CompareAndSwap:
			if old != uint32(cmp)&mask {
				return uint64(old)
			}
			nv = uint32(v)
		case Add:
			nv = old + uint32(v)
		case And:
			nv = old & uint32(v)
		case Or:
			nv = old | uint32(v)
		case Xor:
			nv = old ^ uint32(v)
		}
		nw := word&^(mask<<shift) | (nv&mask)<<shift
		if atomic.CompareAndSwapUint32(w, word, nw) {
			if op == Store {
				return 0
			}
			return uint64(old)
		}
	}
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
