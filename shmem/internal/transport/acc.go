package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/internal/accops"
	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// Acc is one multi-element atomic update of a peer's heap (an MPI
// accumulate): every element at Off becomes "element Op source", each
// element atomically with respect to every other update of it through
// Apply or the layers' direct stores into mapped memory. Over tcp it
// travels as one frame and the target applies it whole, so that an
// accumulate of n elements costs what a put of the same bytes costs.
type Acc struct {
	Off   uint64 // heap offset of the first element
	Type  uint8  // element type, in accops' (the MPI layers') numbering
	Op    uint8  // op, in accops' numbering; NoOp with Res: an atomic read
	Count int    // elements
	Src   []byte // Count elements (nil for NoOp)
	Cmp   []byte // one element: compare-and-swap of Count 1 (op Replace)
	Res   []byte // receives the previous values (nil: nothing is fetched)
	// Locks is the heap offset of NumStripes 4-byte stripe locks at the
	// target, for elements no hardware atomic covers (over 8 bytes, or
	// misaligned); NoLocks when there are none (such elements then fail).
	// Element i takes stripe ((Phase + i*size) >> 3) % NumStripes, so that
	// the layer's own direct updates of the same element take the same one.
	Locks uint64
	Phase uint64
}

// NumStripes is the number of stripe locks an Acc's Locks names.
const NumStripes = 64

// NoLocks says an Acc has no stripe locks.
const NoLocks = ^uint64(0)

// ErrAccLocked: a stripe lock stayed taken longer than the update may wait.
var ErrAccLocked = errors.New("transport: accumulate stripe lock not released in time")

// Check validates a against a heap of heapSize bytes.
func (a *Acc) Check(heapSize uint64) error {
	tab := accops.Get()
	if tab == nil {
		return errors.New("accumulate: this program has no accumulate ops")
	}
	if !tab.Defined(a.Type, a.Op) {
		return fmt.Errorf("accumulate op %d on element type %d is not defined", a.Op, a.Type)
	}
	sz := uint64(tab.Size(a.Type))
	n := uint64(a.Count)
	if a.Count < 0 || n > heapSize/sz || a.Off > heapSize-n*sz {
		return fmt.Errorf("accumulate of %d elements of type %d at offset %d outside a %d-byte heap", a.Count, a.Type, a.Off, heapSize)
	}
	if (a.Op == tab.NoOp) != (a.Src == nil) || (a.Src != nil && uint64(len(a.Src)) != n*sz) {
		return fmt.Errorf("accumulate of %d elements of type %d with %d source bytes", a.Count, a.Type, len(a.Src))
	}
	if a.Cmp != nil && (a.Count != 1 || uint64(len(a.Cmp)) != sz || a.Op != tab.Replace) {
		return fmt.Errorf("compare-and-swap of %d elements of type %d", a.Count, a.Type)
	}
	if a.Res != nil && uint64(len(a.Res)) != n*sz {
		return fmt.Errorf("accumulate of %d elements of type %d into %d result bytes", a.Count, a.Type, len(a.Res))
	}
	if a.Locks != NoLocks && (a.Locks%4 != 0 || a.Locks > heapSize || heapSize-a.Locks < 4*NumStripes) {
		return fmt.Errorf("stripe locks at offset %d of a %d-byte heap", a.Locks, heapSize)
	}
	return nil
}

// ApplyAcc applies a to heap, the target's own memory, element by element
// as the layers do in mapped memory: a hardware atomic where one does the
// op, a compare-and-swap loop on the aligned word holding the element, or
// the element's stripe lock. wait is called when a stripe lock is taken
// by someone else, to wait until the lock word reads 0; an error from it
// ends the update there. The heap's doorbell rings once at the end. a must
// have passed Check.
func ApplyAcc(heap []byte, a *Acc, wait func(lock *uint32) error) error {
	tab := accops.Get()
	sz := tab.Size(a.Type)
	hw, ok := tab.Hardware(a.Type, a.Op)
	if a.Cmp != nil {
		hw, ok = atomicop.CompareAndSwap, true
	}
	if ok && sz <= 8 && sz&(sz-1) == 0 && a.Off%uint64(sz) == 0 {
		// Every element takes one hardware atomic: the common case, kept
		// free of per-element calls through the table.
		if sz == 8 && hw == atomicop.Add && a.Res == nil && a.Count > 0 {
			addAll(unsafe.Slice((*uint64)(unsafe.Pointer(&heap[a.Off])), a.Count), a.Src)
			doorbell.Ring(heap, false)
			return nil
		}
		v, cmp := uint64(0), bitsOf(a.Cmp)
		for i := range a.Count {
			if a.Src != nil {
				v = bitsOf(a.Src[i*sz : (i+1)*sz])
			}
			old := atomicop.Apply(unsafe.Pointer(&heap[a.Off+uint64(i*sz)]), sz, hw, v, cmp)
			if a.Res != nil {
				putBits(a.Res[i*sz:(i+1)*sz], old)
			}
		}
		if hw.Writes() {
			doorbell.Ring(heap, false)
		}
		return nil
	}
	var err error
	wrote := false
	for i := 0; i < a.Count && err == nil; i++ {
		off := a.Off + uint64(i*sz)
		var src, res []byte
		if a.Src != nil {
			src = a.Src[i*sz : (i+1)*sz]
		}
		if a.Res != nil {
			res = a.Res[i*sz : (i+1)*sz]
		}
		var w bool
		w, err = accElem(tab, heap, off, a, src, res, (a.Phase+uint64(i*sz))>>3%NumStripes, wait)
		wrote = wrote || w
	}
	if wrote {
		doorbell.Ring(heap, false)
	}
	return err
}

// accElem updates one element and reports whether it wrote.
func accElem(tab *accops.Table, heap []byte, off uint64, a *Acc, src, res []byte, stripe uint64, wait func(*uint32) error) (bool, error) {
	sz := uint64(tab.Size(a.Type))
	if sz <= 8 && sz&(sz-1) == 0 && off%sz == 0 {
		op, ok := tab.Hardware(a.Type, a.Op)
		if a.Cmp != nil {
			op, ok = atomicop.CompareAndSwap, true
		}
		if ok {
			old := atomicop.Apply(unsafe.Pointer(&heap[off]), int(sz), op, bitsOf(src), bitsOf(a.Cmp))
			putBits(res, old)
			return op.Writes(), nil
		}
	}
	var opnd [4]uint64 // an aligned copy of the operand (up to a long double complex)
	ob := unsafe.Slice((*byte)(unsafe.Pointer(&opnd)), 32)[:sz]
	copy(ob, src)
	word, width := uint64(0), uint64(0)
	switch {
	case sz <= 2 && off%sz == 0:
		word, width = off&^3, 4
	case (sz == 4 || sz == 8) && off%sz == 0:
		word, width = off, sz
	}
	if width == 0 {
		return lockedElem(tab, heap, off, a, ob, res, stripe, wait)
	}
	shift := off - word
	p := unsafe.Pointer(&heap[word])
	for {
		old := atomicop.Apply(p, int(width), atomicop.Load, 0, 0)
		var cur [1]uint64
		cb := unsafe.Slice((*byte)(unsafe.Pointer(&cur)), 8)
		binary.LittleEndian.PutUint64(cb, old)
		e := cb[shift : shift+sz]
		copy(res, e)
		if !combineElem(tab, a, e, ob) {
			return false, nil
		}
		nv := binary.LittleEndian.Uint64(cb)
		if nv == old || atomicop.Apply(p, int(width), atomicop.CompareAndSwap, nv, old) == old {
			return nv != old, nil
		}
	}
}

// combineElem updates the aligned element e and reports whether it may
// have changed.
func combineElem(tab *accops.Table, a *Acc, e, src []byte) bool {
	if a.Cmp != nil {
		if string(e) != string(a.Cmp) {
			return false
		}
		copy(e, src)
		return true
	}
	if a.Op == tab.NoOp {
		return false
	}
	tab.Combine(a.Type, a.Op, unsafe.Pointer(&e[0]), unsafe.Pointer(&src[0]))
	return true
}

func lockedElem(tab *accops.Table, heap []byte, off uint64, a *Acc, src, res []byte, stripe uint64, wait func(*uint32) error) (bool, error) {
	if a.Locks == NoLocks {
		return false, fmt.Errorf("transport: element of type %d at offset %d needs a stripe lock and the update names none", a.Type, off)
	}
	lock := (*uint32)(unsafe.Pointer(&heap[a.Locks+4*stripe]))
	for atomicop.Apply(unsafe.Pointer(lock), 4, atomicop.CompareAndSwap, 1, 0) != 0 {
		if err := wait(lock); err != nil {
			return false, err
		}
	}
	var cur [4]uint64
	e := unsafe.Slice((*byte)(unsafe.Pointer(&cur)), 32)[:tab.Size(a.Type)]
	copy(e, heap[off:])
	copy(res, e)
	changed := combineElem(tab, a, e, src)
	if changed {
		copy(heap[off:], e)
	}
	atomicop.Apply(unsafe.Pointer(lock), 4, atomicop.Store, 0, 0)
	return true, nil // the release is a write a waiter may sleep for
}

func bitsOf(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.NativeEndian.Uint16(b))
	case 4:
		return uint64(binary.NativeEndian.Uint32(b))
	case 8:
		return binary.NativeEndian.Uint64(b)
	}
	return 0
}

func putBits(res []byte, v uint64) {
	switch len(res) {
	case 1:
		res[0] = byte(v)
	case 2:
		binary.NativeEndian.PutUint16(res, uint16(v))
	case 4:
		binary.NativeEndian.PutUint32(res, uint32(v))
	case 8:
		binary.NativeEndian.PutUint64(res, v)
	}
}

// addAll atomically adds the 8-byte words of src (any alignment) to dst.
func addAll(dst []uint64, src []byte) {
	for i := range dst {
		atomic.AddUint64(&dst[i], binary.NativeEndian.Uint64(src[8*i:]))
	}
}
