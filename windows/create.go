package windows

import (
	"os"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// Create windows in the unified model. RMA reaches the caller's buffer
// itself, never a copy, by one of three means, chosen by each PE for its
// own buffer:
//
//   - createHeap: the buffer already lies in a symmetric object of this
//     PE's heap (MPI_Alloc_mem's pool, gshmem_malloc): peers reach it at
//     its heap offset, as an allocate window's memory.
//   - createAdopt: a process PE (whose heap is a memfd every node-local
//     process maps) moves the pages holding the buffer onto pages of a
//     symmetric allocation (shmem.World.AdoptPages): the buffer's
//     addresses stay, its contents are copied once, and from then on they
//     are heap pages. Node-local peers load and store them through their
//     mapping of this PE's heap, remote peers reach them through this PE's
//     heap server (tcp, UCX), and the C fast paths find them as they find
//     an allocate window's. Free gives the pages private memory back
//     (ReturnPages), with what they then hold, where the program still
//     has them mapped.
//   - createDirect: goroutine PEs share one address space: peers use the
//     buffer's own slice.
//
// The allocation behind createAdopt is address space in a heap that is
// itself address space: only the pages copied in are ever committed, and
// they are the buffer's own from then on (no second copy exists).
const (
	createEmpty uint64 = iota // no memory on this PE
	createHeap
	createAdopt
	createDirect
	createFailed // this PE could not set its memory up: every PE fails
)

// createSpan is the bytes of page-aligned heap that this PE's buffer needs
// to be adopted, 0 when it is not (empty, already in the heap, or a
// goroutine PE's), and whether this PE can give the unified model at all.
func createSpan(w *shmem.World, buf []byte) (int, bool) {
	if len(buf) == 0 {
		return 0, true
	}
	if w.HeapOnDevice() {
		return 0, false
	}
	addr := uintptr(unsafe.Pointer(&buf[0]))
	if _, ok := shmem.HeapSym(w, addr, len(buf)); ok {
		return 0, true
	}
	if !w.CanAdopt() {
		return 0, w.BootstrapName() == "inproc"
	}
	page := uintptr(os.Getpagesize())
	lo, hi := addr&^(page-1), (addr+uintptr(len(buf))+page-1)&^(page-1)
	return int(hi - lo), true
}

// directBufs hands a goroutine PE's buffer to the other PEs of its
// process during Create, by address (the same address space).
var directBufs sync.Map // uintptr -> *[]byte

// adopted is the heap range a createAdopt buffer's pages were moved onto.
type adopted struct {
	sym shmem.Sym[byte]
	at  uintptr // the first page of the buffer
}

// setupCreate builds a unified Create window: span is the largest
// createSpan of any PE.
func (win *Win) setupCreate(sizes, units []int, span int, buf []byte) error {
	n, w := win.n, win.world
	page := os.Getpagesize()
	alloc := 8
	if span > 0 {
		alloc = span + page // room to start at a page boundary on every PE
	}
	data, err := win.comm.AllocSymmetricHost(alloc)
	if err != nil {
		return wrap(err, "allocating %d bytes of address space for the window's pages", alloc)
	}
	win.data = data
	mode, loc := createEmpty, uint64(0)
	var failed error
	if len(buf) > 0 {
		addr := uintptr(unsafe.Pointer(&buf[0]))
		if s, ok := shmem.HeapSym(w, addr, len(buf)); ok {
			mode, loc = createHeap, s.Offset()
		} else if w.CanAdopt() {
			lo := addr &^ uintptr(page-1)
			mine, _ := createSpan(w, buf)
			skip := roundUp(int(data.Offset()), page) - int(data.Offset())
			sub := data.Slice(skip, skip+mine)
			if err := w.AdoptPages(sub, lo); err != nil {
				failed = wrap(err, "moving the window's pages into shared memory")
				mode = createFailed
			} else {
				win.adopt = &adopted{sym: sub, at: lo}
				mode, loc = createAdopt, sub.Offset()+uint64(addr-lo)
			}
		} else {
			mode, loc = createDirect, uint64(addr)
			win.direct = &buf
			directBufs.Store(addr, win.direct)
		}
	}
	win.base = buf
	slots := win.ctrl.Local()[ctrlAgree/8 : ctrlAgree/8+2]
	slots[0], slots[1] = mode, loc
	if err := win.comm.Barrier(); err != nil {
		return wrap(err, "window creation")
	}
	win.dataMem = make([]rmem, n)
	win.segs = make([]seg, n)
	got := make([][2]uint64, n)
	for r := range n {
		if err := shmem.Get(got[r][:], win.ctrl.Slice(ctrlAgree/8, ctrlAgree/8+2), win.pes[r]); err != nil {
			return wrap(err, "reading rank %d's window memory", r)
		}
		if got[r][0] == createFailed && failed == nil {
			failed = errorf(compat.ClassNoMem, "rank %d could not make its buffer reachable", r)
		}
	}
	if failed != nil {
		return failed
	}
	for r := range n {
		m, err := win.createMem(r, got[r][0], got[r][1], sizes[r])
		if err != nil {
			return err
		}
		win.dataMem[r] = m
		win.segs[r] = seg{mem: &win.dataMem[r], pe: r, size: sizes[r], unit: units[r], maxDisp: sizes[r] / units[r]}
	}
	win.set.memory = MemoryHost
	return nil
}

// createMem is how this PE reaches rank r's Create memory.
func (win *Win) createMem(r int, mode, loc uint64, size int) (rmem, error) {
	pe := win.pes[r]
	switch mode {
	case createHeap, createAdopt:
		s, ok := shmem.HeapRange(win.world, loc, size)
		if !ok {
			return rmem{}, errorf(compat.ClassWin, "rank %d's window memory at heap offset %d is not a live symmetric object here", r, loc)
		}
		return newRmem(s, pe), nil
	case createDirect:
		b := win.base
		if r != win.me {
			p, ok := directBufs.Load(uintptr(loc))
			if !ok {
				return rmem{}, errorf(compat.ClassWin, "rank %d's window buffer is not in this process", r)
			}
			b = *p.(*[]byte)
		}
		return rmem{pe: pe, mapped: b[:size:size], heap: win.world.Mapped(pe), sym: win.data}, nil
	}
	// No memory: the window's allocation stands in, with size 0.
	return newRmem(win.data, pe), nil
}

// freeCreate undoes setupCreate's moves once no PE reaches the memory.
func (win *Win) freeCreate() error {
	if win.direct != nil {
		directBufs.CompareAndDelete(uintptr(unsafe.Pointer(&(*win.direct)[0])), win.direct)
		win.direct = nil
	}
	if win.adopt == nil {
		return nil
	}
	a := win.adopt
	win.adopt = nil
	return wrap(win.world.ReturnPages(a.sym, a.at), "giving the window's pages back")
}
