package windows

import (
	"os"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

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
	createFile   // the buffer's pages are moved onto a page file of their own
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

// adopted is the heap range a createAdopt buffer's pages were moved onto,
// or, for createFile, the page file they were moved onto and the overlays
// this PE made of page files over its views of the window's heap ranges
// (its own and node-local peers').
type adopted struct {
	sym      shmem.Sym[byte]
	at       uintptr // the first page of the buffer
	file     *shmem.PageFile
	overlays []*shmem.Overlay
}

// fileIdx is the first of ctrlFileWords words after the PSCW words of the
// control area: the pid, descriptor, inode and size of a PE's page file
// (pid 0: none), and its vote that it could open every peer's file it
// needs.
func (win *Win) fileIdx() int { return ctrlPosted/8 + 2*win.n }

const ctrlFileWords = 5

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
	var sub shmem.Sym[byte]
	var lo, hi uintptr
	if len(buf) > 0 {
		addr := uintptr(unsafe.Pointer(&buf[0]))
		if s, ok := shmem.HeapSym(w, addr, len(buf)); ok {
			mode, loc = createHeap, s.Offset()
		} else {
			lo, hi = pageRange(buf)
			skip := roundUp(int(data.Offset()), page) - int(data.Offset())
			sub = data.Slice(skip, skip+int(hi-lo))
			mode, loc = createAdopt, sub.Offset()+uint64(addr-lo)
			win.adopt = &adopted{sym: sub, at: lo}
		}
	}
	mapErr, err := win.setupFiles(mode == createAdopt)
	if err != nil {
		return err
	}
	if mode == createAdopt && win.adopt.file != nil {
		mode = createFile
	} else if mode == createAdopt {
		if err := w.AdoptPages(sub, lo); err != nil {
			failed = wrap(err, "moving the window's pages into shared memory")
			mode = createFailed
			win.adopt.sym = shmem.Sym[byte]{} // nothing to give back
			unclaim(lo, hi)
		}
	}
	if failed == nil && mapErr != nil {
		failed, mode = mapErr, createFailed
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

// setupFiles moves this PE's buffer onto a page file when want (its pages
// are win.adopt's) and every PE can map every node-local peer's file, and
// maps the files of the peers whose views this process owns over them. A
// failure to open a file is a vote for AdoptPages instead (say /proc is
// closed to peers); a failure to map one once all agreed fails the window
// (mapErr), after this PE's own buffer is in place.
func (win *Win) setupFiles(want bool) (mapErr, err error) {
	w, a := win.world, win.adopt
	words := win.ctrl.Local()[win.fileIdx() : win.fileIdx()+ctrlFileWords]
	clear(words)
	if want && w.CanOverlay() {
		if f, err := w.NewPageFile(a.at, a.sym.Len()); err == nil {
			a.file = f
			pid, fd, ino := f.Ref()
			words[0], words[1], words[2], words[3] = uint64(pid), uint64(fd), ino, uint64(a.sym.Len())
		}
	}
	if err := win.comm.Barrier(); err != nil {
		return nil, wrap(err, "window creation")
	}
	me := uint64(os.Getpid())
	ref := make([][4]uint64, win.n)
	fds := make([]int, win.n)
	ok := true
	for r := range win.n {
		fds[r] = -1
		if err := shmem.Get(ref[r][:], win.ctrl.Slice(win.fileIdx(), win.fileIdx()+4), win.pes[r]); err != nil {
			return nil, wrap(err, "reading rank %d's window pages", r)
		}
		if ref[r][0] == 0 || ref[r][0] == me || win.dataPtr(r) == nil {
			continue // none; this process's own (one view); reached by messages
		}
		fd, err := shmem.OpenPeerFile(int(ref[r][0]), int(ref[r][1]), ref[r][2])
		if err != nil {
			ok = false
			break
		}
		fds[r] = fd
	}
	defer func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	if ok {
		words[4] = 1
	}
	if err := win.comm.Barrier(); err != nil {
		return nil, wrap(err, "window creation")
	}
	all := true
	for r := range win.n {
		v, err := shmem.G(win.ctrl.At(win.fileIdx()+4), win.pes[r])
		if err != nil {
			return nil, wrap(err, "window creation")
		}
		all = all && v == 1
	}
	if !all {
		if a != nil && a.file != nil {
			a.file.Close()
			a.file = nil
		}
		return nil, nil
	}
	if a != nil && a.file != nil {
		if err := a.file.MapOver(); err != nil {
			return wrap(err, "moving the window's pages onto shared memory"), nil
		}
		o, err := w.Overlay(a.sym, w.MyPE(), a.file.Fd())
		if err != nil {
			return wrap(err, "mapping the window's pages into the heap"), nil
		}
		a.overlays = append(a.overlays, o)
	}
	for r, fd := range fds {
		if fd < 0 {
			continue
		}
		o, err := w.Overlay(win.peerSpan(int(ref[r][3])), win.pes[r], fd)
		if err != nil {
			return wrap(err, "mapping rank %d's window pages", r), nil
		}
		if win.adopt == nil {
			win.adopt = &adopted{}
		}
		win.adopt.overlays = append(win.adopt.overlays, o)
	}
	return nil, nil
}

// peerSpan is the page-aligned range of n bytes of the window's
// allocation that a buffer's pages are moved onto: at the same offset on
// every PE, as the allocation is.
func (win *Win) peerSpan(n int) shmem.Sym[byte] {
	page := os.Getpagesize()
	skip := roundUp(int(win.data.Offset()), page) - int(win.data.Offset())
	return win.data.Slice(skip, skip+n)
}

// dataPtr is rank r's copy of the window's allocation as mapped in this
// process, nil where r is reached by messages.
func (win *Win) dataPtr(r int) []byte {
	if forceRemote.Load() && r != win.me {
		return nil
	}
	return shmem.Ptr(win.data, win.pes[r])
}

// createMem is how this PE reaches rank r's Create memory.
func (win *Win) createMem(r int, mode, loc uint64, size int) (rmem, error) {
	pe := win.pes[r]
	switch mode {
	case createHeap, createAdopt, createFile:
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
// A buffer on a page file stays there: only the overlays go, one call
// each, and no page of the buffer is touched.
func (win *Win) freeCreate() error {
	if win.adopt == nil {
		return nil
	}
	a := win.adopt
	win.adopt = nil
	var err error
	for _, o := range a.overlays {
		if e := o.Undo(); e != nil && err == nil {
			err = e
		}
	}
	if a.file != nil {
		a.file.Close()
	} else if a.sym.Len() > 0 {
		err = win.world.ReturnPages(a.sym, a.at)
	}
	if a.sym.Len() > 0 {
		unclaim(a.at, a.at+uintptr(a.sym.Len()))
	}
	return wrap(err, "giving the window's pages back")
}
