package windows

import (
	"os"
	"sync"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// Create windows in the unified model. RMA reaches the caller's buffer
// itself, never a copy, by one of two means, chosen by each PE for its
// own buffer:
//
//   - createHeap: the buffer already lies in a symmetric object of this
//     PE's heap (MPI_Alloc_mem's pool, gshmem_malloc): peers reach it at
//     its heap offset, as an allocate window's memory.
//   - createAdopt: any other buffer: the PE (whose heap is a memfd that
//     every node-local process, or every goroutine PE of this process,
//     maps) moves the pages holding the buffer onto pages of a symmetric
//     allocation (shmem.World.AdoptPages): the buffer's addresses stay,
//     its contents are copied once (the pages that hold data only: pages
//     never written read zero in the heap too), and from then on they are
//     heap pages.
//     Node-local peers load and store them through their mapping of this
//     PE's heap, remote peers reach them through this PE's heap server
//     (tcp, UCX), and the C fast paths find them as they find an allocate
//     window's. Free gives the pages private memory back (ReturnPages),
//     with what they then hold, where the program still has them mapped.
//
// The allocation behind createAdopt is address space in a heap that is
// itself address space: only the pages copied in are ever committed, and
// they are the buffer's own from then on (no second copy exists).
const (
	createEmpty uint64 = iota // no memory on this PE
	createHeap
	createAdopt
	createFailed // this PE could not set its memory up: every PE fails
)

// claimed holds the pages of this process that a live Create window has
// claimed for adoption. A page can be a second mapping of one heap page
// only, so a buffer that shares a page with another window's (two small
// arrays in one page, goroutine PEs' buffers from one allocation span)
// cannot be adopted again: that window takes the separate model instead.
var claimed struct {
	sync.Mutex
	pages map[uintptr]bool
}

// claim takes the pages [lo, hi) for adoption, or reports that some page
// is another window's already.
func claim(lo, hi uintptr) bool {
	page := uintptr(os.Getpagesize())
	claimed.Lock()
	defer claimed.Unlock()
	for p := lo; p < hi; p += page {
		if claimed.pages[p] {
			return false
		}
	}
	if claimed.pages == nil {
		claimed.pages = map[uintptr]bool{}
	}
	for p := lo; p < hi; p += page {
		claimed.pages[p] = true
	}
	return true
}

func unclaim(lo, hi uintptr) {
	page := uintptr(os.Getpagesize())
	claimed.Lock()
	defer claimed.Unlock()
	for p := lo; p < hi; p += page {
		delete(claimed.pages, p)
	}
}

// pageRange is the page-aligned range that holds buf.
func pageRange(buf []byte) (lo, hi uintptr) {
	page := uintptr(os.Getpagesize())
	addr := uintptr(unsafe.Pointer(&buf[0]))
	return addr &^ (page - 1), (addr + uintptr(len(buf)) + page - 1) &^ (page - 1)
}

// createSpan is the bytes of page-aligned heap that this PE's buffer needs
// to be adopted, 0 when it is not (empty, or already in the heap), and
// whether this PE can give the unified model at all. A buffer to adopt
// has its pages claimed (claim): setupCreate or releaseClaim lets go.
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
		return 0, false
	}
	lo, hi := pageRange(buf)
	if !w.Adoptable(lo, int(hi-lo)) || !claim(lo, hi) {
		return 0, false
	}
	return int(hi - lo), true
}

// releaseClaim lets go of the pages createSpan claimed for buf, when the
// window will not adopt them (it is separate, or its creation failed).
func releaseClaim(w *shmem.World, buf []byte, span int) {
	if span > 0 {
		lo, hi := pageRange(buf)
		unclaim(lo, hi)
	}
}

// adopted is the heap range a createAdopt buffer's pages were moved onto.
type adopted struct {
	sym shmem.Sym[byte]
	at  uintptr // the first page of the buffer
}

// setupCreate builds a unified Create window: span is the largest
// createSpan of any PE, mine this PE's (whose claim it owns).
func (win *Win) setupCreate(sizes, units []int, span int, buf []byte, mine int) error {
	n, w := win.n, win.world
	page := os.Getpagesize()
	alloc := 8
	if span > 0 {
		alloc = span + page // room to start at a page boundary on every PE
	}
	data, err := win.comm.AllocSymmetricHost(alloc)
	if err != nil {
		releaseClaim(w, buf, mine)
		return wrap(err, "allocating %d bytes of address space for the window's pages", alloc)
	}
	win.data = data
	mode, loc := createEmpty, uint64(0)
	var failed error
	if len(buf) > 0 {
		addr := uintptr(unsafe.Pointer(&buf[0]))
		if s, ok := shmem.HeapSym(w, addr, len(buf)); ok {
			mode, loc = createHeap, s.Offset()
		} else {
			lo, hi := pageRange(buf)
			skip := roundUp(int(data.Offset()), page) - int(data.Offset())
			sub := data.Slice(skip, skip+int(hi-lo))
			if err := w.AdoptPages(sub, lo); err != nil {
				failed = wrap(err, "moving the window's pages into shared memory")
				mode = createFailed
				unclaim(lo, hi)
			} else {
				win.adopt = &adopted{sym: sub, at: lo}
				mode, loc = createAdopt, sub.Offset()+uint64(addr-lo)
			}
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
	}
	// No memory: the window's allocation stands in, with size 0.
	return newRmem(win.data, pe), nil
}

// freeCreate undoes setupCreate's moves once no PE reaches the memory.
func (win *Win) freeCreate() error {
	if win.adopt == nil {
		return nil
	}
	a := win.adopt
	win.adopt = nil
	err := win.world.ReturnPages(a.sym, a.at)
	unclaim(a.at, a.at+uintptr(a.sym.Len()))
	return wrap(err, "giving the window's pages back")
}
