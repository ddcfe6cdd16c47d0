package windows

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

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
//   - createFile: any other buffer: its pages move onto a page file
//     (shmem.PageFile, a memfd of their own; the pages that hold data are
//     copied in once, pages never written stay holes), mapped at the
//     buffer's own addresses and over the window's page-aligned range of
//     this PE's heap as every process reaching it maps that heap: this
//     PE's own heap mapping (remote peers go through the heap server,
//     which reads it) and each node-local process peer's view (the peer
//     opens the file by /proc/PID/fd/N, setupFiles). Pages already on a
//     live window's page file (claim.go) are mapped from that file.
//     Free undoes only the overlays: the buffer stays on its file, the
//     program's private memory again since no other process maps it.
//   - createAdopt: where page files cannot be used (a rank cannot open
//     peers' files, a UCX World whose registration pins the heap's
//     pages): the pages move onto heap pages (shmem.World.AdoptPages) and
//     Free gives them private memory back, copying (ReturnPages).
//
// The heap range behind either move is address space in a heap that is
// itself address space: the window costs no memory beyond the buffer.
const (
	createEmpty uint64 = iota // no memory on this PE
	createHeap
	createAdopt
	createFailed // this PE could not set its memory up: every PE fails
	createFile   // the buffer's pages are moved onto a page file of their own
)

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
	if !w.Adoptable(lo, int(hi-lo)) || !claimShared(lo, hi) {
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
// or, for createFile, the page file its pages not shared with another
// window went onto (nil when all were), and the overlays this PE made of
// page files over its views of the window's heap ranges (its own and
// node-local peers').
type adopted struct {
	sym      shmem.Sym[byte]
	at       uintptr // the first page of the buffer
	file     *shmem.PageFile
	onFile   bool // the buffer lies on page files: nothing to give back
	filed    bool // file is in claimed's hands (filePages)
	overlays []*shmem.Overlay
}

// The file words of the control area, after the PSCW words: how many
// segments a PE's buffer lies on (0: none on page files, or too many),
// the PE's vote that it can open every peer's file it needs, and
// maxSegs segments of segWords words (pid, descriptor, inode, offset in
// the file, offset in the buffer's pages, length).
const (
	maxSegs       = 8
	segWords      = 6
	ctrlFileWords = 2 + maxSegs*segWords
)

func (win *Win) fileIdx() int { return ctrlPosted/8 + 2*win.n }

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
	if mode == createAdopt && win.adopt.onFile {
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

// setupFiles moves this PE's buffer onto page files when want (its pages
// are win.adopt's) and every PE can map every node-local peer's files:
// its pages on other windows' page files stay there, the rest go onto a
// new one. It maps the files of the peers whose views this process owns
// over those views. A failure to open a file is a vote for AdoptPages
// instead (say /proc is closed to peers); a failure to map one once all
// agreed fails the window (mapErr).
func (win *Win) setupFiles(want bool) (mapErr, err error) {
	w, a := win.world, win.adopt
	idx := win.fileIdx()
	words := win.ctrl.Local()[idx : idx+ctrlFileWords]
	clear(words)
	var segs []fileSeg
	shared := false
	if want && w.CanOverlay() {
		segs = fileSegs(a.at, a.at+uintptr(a.sym.Len()))
		var runs [][2]int
		for _, s := range segs {
			if s.file == nil {
				runs = append(runs, [2]int{s.at, s.len})
			} else {
				shared = true
			}
		}
		if len(runs) > 0 {
			if f, err := w.NewPageFile(a.at, a.sym.Len(), runs); err == nil {
				a.file = f
			} else {
				segs = nil
			}
		}
		if len(segs) > maxSegs {
			segs = nil
		}
		for i, s := range segs {
			pf := a.file
			if s.file != nil {
				pf = s.file.pf
			}
			pid, fd, ino := pf.Ref()
			copy(words[2+i*segWords:], []uint64{uint64(pid), uint64(fd), ino, uint64(s.off), uint64(s.at), uint64(s.len)})
		}
		words[0] = uint64(len(segs))
	}
	var bad error // this PE cannot go on page files, and has no other way
	if want && len(segs) == 0 && shared {
		bad = errorf(compat.ClassNoMem, "the window's buffer shares pages with other windows on more than %d runs, or no page file could be made", maxSegs)
	}
	if err := win.comm.Barrier(); err != nil {
		return nil, wrap(err, "window creation")
	}
	type peerSeg struct {
		r, fd      int
		off, at, n int
	}
	var opened []peerSeg
	defer func() {
		for _, p := range opened {
			unix.Close(p.fd)
		}
	}()
	me := uint64(os.Getpid())
	ok := bad == nil
	for r := range win.n {
		if r == win.me || win.dataPtr(r) == nil {
			continue
		}
		ref := make([]uint64, ctrlFileWords)
		if err := shmem.Get(ref, win.ctrl.Slice(idx, idx+ctrlFileWords), win.pes[r]); err != nil {
			return nil, wrap(err, "reading rank %d's window pages", r)
		}
		for i := range min(int(ref[0]), maxSegs) {
			g := ref[2+i*segWords : 2+(i+1)*segWords]
			if g[0] == me {
				continue // this process's own: one view, the owner's
			}
			fd, err := shmem.OpenPeerFile(int(g[0]), int(g[1]), g[2])
			if err != nil {
				ok = false
				break
			}
			opened = append(opened, peerSeg{r, fd, int(g[3]), int(g[4]), int(g[5])})
		}
	}
	if ok {
		words[1] = 1
	}
	if err := win.comm.Barrier(); err != nil {
		return nil, wrap(err, "window creation")
	}
	all := true
	for r := range win.n {
		v, err := shmem.G(win.ctrl.At(idx+1), win.pes[r])
		if err != nil {
			return nil, wrap(err, "window creation")
		}
		all = all && v == 1
	}
	if !all {
		if bad != nil {
			return bad, nil
		}
		if shared {
			return errorf(compat.ClassNoMem, "the window's buffer shares pages with other windows, and some rank cannot map other processes' page files"), nil
		}
		if a != nil && a.file != nil {
			a.file.Close()
			a.file = nil
		}
		return nil, nil
	}
	if len(segs) > 0 {
		a.onFile = true
		for _, s := range segs {
			if s.file == nil {
				if err := a.file.MapOver(s.at, s.len); err != nil {
					return wrap(err, "moving the window's pages onto shared memory"), nil
				}
			}
		}
		if a.file != nil {
			filePages(a.at, a.at+uintptr(a.sym.Len()), a.file)
			a.filed = true
		}
		for _, s := range segs {
			o, err := w.Overlay(a.sym.Slice(s.at, s.at+s.len), w.MyPE(), segFd(s, a.file), s.off)
			if err != nil {
				return wrap(err, "mapping the window's pages into the heap"), nil
			}
			a.overlays = append(a.overlays, o)
		}
	}
	for _, p := range opened {
		o, err := w.Overlay(win.peerSpan(p.at+p.n).Slice(p.at, p.at+p.n), win.pes[p.r], p.fd, p.off)
		if err != nil {
			return wrap(err, "mapping rank %d's window pages", p.r), nil
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
// process, nil where r is reached by messages. Where the window itself
// reaches r by shmem calls (forceRemote), the transport still stores
// through this mapping: it is overlaid all the same.
func (win *Win) dataPtr(r int) []byte { return shmem.Ptr(win.data, win.pes[r]) }

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
	if a.file != nil && !a.filed {
		a.file.Close()
	}
	if !a.onFile && a.sym.Len() > 0 {
		err = win.world.ReturnPages(a.sym, a.at)
	}
	if a.sym.Len() > 0 {
		unclaim(a.at, a.at+uintptr(a.sym.Len()))
	}
	return wrap(err, "giving the window's pages back")
}
