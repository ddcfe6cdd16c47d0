package shmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The heap's memory. A PE's heap is address space reserved at start
// (GSHMEM_SYMMETRIC_SIZE, by default as large as the machine's memory),
// whose pages the kernel commits when they are first touched: a memfd
// mapped shared for a process PE, anonymous memory for a goroutine PE.
// So the setting is an upper bound, not a prerequisite: a heap costs what
// its live objects touch. Zeroing a range and freeing an object hand
// their whole pages back to the kernel (zeroPages) instead of writing
// them, so a Calloc of gigabytes touches nothing and a freed window does
// not stay resident.

// hostHeapDefault is GSHMEM_SYMMETRIC_SIZE's default for a host heap: the
// machine's memory, rounded up to a GiB (at least 1 GiB), so that any
// allocation the machine could hold fits.
func hostHeapDefault() uint64 {
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) != nil {
		return defaultHeap
	}
	ram := uint64(si.Totalram) * uint64(max(si.Unit, 1))
	return max((ram+defaultHeap-1)/defaultHeap*defaultHeap, defaultHeap)
}

// machineMemory returns the machine's total and available memory in bytes
// (0, 0 when unknown), for the messages of an exhausted heap.
func machineMemory() (total, avail uint64) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := bytes.Fields(sc.Bytes())
		if len(fields) < 2 {
			continue
		}
		v, _ := strconv.ParseUint(string(fields[1]), 10, 64)
		switch string(fields[0]) {
		case "MemTotal:":
			total = v << 10
		case "MemAvailable:":
			avail = v << 10
		}
	}
	return total, avail
}

// exhausted describes a request the heap could not place: how much was
// asked, how much the heap has free, and how much memory the machine has.
func (w *World) exhausted(bytes uint64, err error) error {
	total, avail := machineMemory()
	return fmt.Errorf("%w: asked for %d bytes; the heap of %d bytes (GSHMEM_SYMMETRIC_SIZE, an upper bound) has %d free; the machine has %d bytes of memory, %d available: %v",
		ErrHeapExhausted, bytes, w.opts.SymmetricSize, w.alloc.Available(), total, avail, err)
}

// osPage is the granularity of the heap's mappings.
var osPage = uint64(os.Getpagesize())

// zeroPages zeroes b, a range of this PE's host heap, handing its whole
// pages back to the kernel (they read as zero and cost nothing until
// touched again) and clearing the partial pages at its ends.
func (w *World) zeroPages(b []byte) {
	if len(b) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (uint64(start) + osPage - 1) &^ (osPage - 1)
	hi := (uint64(start) + uint64(len(b))) &^ (osPage - 1)
	if hi <= lo || hi-lo < 16*osPage {
		clear(b)
		return
	}
	a, z := int(lo-uint64(start)), int(hi-uint64(start))
	if !w.dropPages(b[a:z]) {
		clear(b[a:z])
	}
	clear(b[:a])
	clear(b[z:])
}

// dropPages discards page-aligned heap memory: MADV_REMOVE frees a memfd
// heap's pages (for every process that maps them), MADV_DONTNEED a
// private anonymous heap's. It reports whether the pages now read zero.
func (w *World) dropPages(b []byte) bool {
	if w.heapShared {
		return unix.Madvise(b, unix.MADV_REMOVE) == nil
	}
	return unix.Madvise(b, unix.MADV_DONTNEED) == nil
}

// releaseHeap hands a freed object's whole pages back to the kernel, so
// that the memory of a large freed object does not stay resident.
func (w *World) releaseHeap(off, n uint64) {
	if w.dev != nil || n < 16*osPage || off+n > uint64(len(w.heap)) {
		return
	}
	lo := (off + osPage - 1) &^ (osPage - 1)
	hi := (off + n) &^ (osPage - 1)
	if hi > lo {
		w.dropPages(w.heap[lo:hi])
	}
}

// HeapSym returns the symmetric object of nbytes bytes at address p of
// this process, when [p, p+nbytes) lies inside one live object of this
// PE's host heap (gshmem_malloc memory, the AllocMem pool behind
// MPI_Alloc_mem): the same bytes, which the other PEs reach at the same
// offset. ok is false for any other memory. Use it while the object lives.
func HeapSym(w *World, p uintptr, nbytes int) (s Sym[byte], ok bool) {
	if w == nil || w.dev != nil || nbytes <= 0 || w.closed.Load() || len(w.heap) == 0 {
		return s, false
	}
	base := uintptr(unsafe.Pointer(&w.heap[0]))
	if p < base || uint64(p-base) >= uint64(len(w.heap)) {
		return s, false
	}
	return HeapRange(w, uint64(p-base), nbytes)
}

// HeapRange is HeapSym by heap offset: the nbytes bytes at off, when they
// lie inside one live object. Objects are symmetric, so an offset another
// PE found with HeapSym names the same object here.
func HeapRange(w *World, off uint64, nbytes int) (s Sym[byte], ok bool) {
	if w == nil || w.dev != nil || nbytes <= 0 || w.closed.Load() {
		return s, false
	}
	start, ok := w.alloc.Block(off, uint64(nbytes))
	if !ok {
		return s, false
	}
	r, ok := w.objsByOff[start]
	if !ok || !w.objs.live(r.slot, r.gen) {
		return s, false
	}
	return Sym[byte]{w: w, off: off, n: nbytes, slot: r.slot, gen: r.gen}, true
}

// CanAdopt reports whether AdoptPages works on this World: its heap is a
// host memfd every node-local process maps.
func (w *World) CanAdopt() bool { return w.heapShared && w.dev == nil }

// AdoptPages moves the pages at address at of this process (page-aligned,
// outside the heap, s.Len() bytes) onto the pages of s (this PE's copy,
// page-aligned and as long): their contents are copied there once (only
// the pages that hold data: dataRuns), and
// then the same virtual addresses are a second mapping of those heap
// pages, so that stores through either reach the other and every PE that
// reaches s (mapped node-local peers, remote peers through this PE's heap
// server) reaches the caller's memory itself. Other threads must not
// store to these pages while AdoptPages runs. ReturnPages undoes it. The
// pages are named by address, not by a Go pointer: they may hold memory
// around the caller's object that no Go pointer may reach.
func (w *World) AdoptPages(s Sym[byte], at uintptr) error {
	h := s.Local()
	if !w.CanAdopt() || len(h) == 0 || !pageAligned(h) || uint64(at)%osPage != 0 {
		return errf(ErrInvalid, "AdoptPages of %d bytes at %#x (page-aligned ranges of a memfd heap only)", len(h), at)
	}
	// Only pages that hold data are copied: the rest read zero, as s's
	// pages (zeroed, never touched) do already.
	fd := -1
	if len(h) >= 16*int(osPage) { // small ranges: the search costs more than it saves
		fd = w.heapFile()
	}
	hoff := int64(uintptr(unsafe.Pointer(&h[0])) - uintptr(unsafe.Pointer(&w.heap[0])))
	err := inParallel(dataRuns(at, len(h)), func(r span) error {
		if fd >= 0 {
			return writeFile(fd, at+uintptr(r.at), r.n, hoff+int64(r.at))
		}
		d := h[r.at : r.at+r.n]
		if err := populate(d); err != nil {
			return fmt.Errorf("%w: %d bytes of heap for pages to adopt: %v", ErrHeapExhausted, len(d), err)
		}
		return copyFromAddr(d, at+uintptr(r.at))
	})
	if err != nil {
		return err
	}
	// old_size 0 on a shared mapping makes a second mapping of the same pages.
	src := uintptr(unsafe.Pointer(&h[0]))
	got, _, errno := unix.Syscall6(unix.SYS_MREMAP, src, 0, uintptr(len(h)), unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED, at, 0)
	if errno != 0 || got != at {
		return fmt.Errorf("shmem: mapping %d bytes of heap at %#x: %v", len(h), at, errno)
	}
	return nil
}

// Adoptable reports whether the n bytes of pages at at may be adopted
// (AdoptPages): every page is mapped, private and writable, as heap,
// stack, static data and malloc memory are. Shared mappings (a file the
// program maps, another process's memory, pinned GPU host memory) are
// not: their stores must keep reaching what they map.
func (w *World) Adoptable(at uintptr, n int) bool {
	if !w.CanAdopt() || n <= 0 {
		return false
	}
	return coveringMappings(at, n, func(_, _ uint64, f [][]byte) bool {
		perms := string(f[1]) // private and writable, as heap, stack and data are
		if len(perms) < 4 || perms[0] != 'r' || perms[1] != 'w' {
			return false
		}
		// A freed window's pages stay on its page file, which no other
		// process maps any more: the program's own memory still.
		return perms[3] == 'p' || len(f) >= 6 && string(f[5]) == "/memfd:"+pageFileName
	})
}

// ReturnPages gives the pages at at that AdoptPages mapped onto s back
// their own private memory, with the contents they have now, wherever
// they still are that mapping (memory the program unmapped or mapped anew
// since is left alone), and then zeroes s's pages.
func (w *World) ReturnPages(s Sym[byte], at uintptr) error {
	h := s.Local()
	if len(h) == 0 {
		return errf(ErrInvalid, "ReturnPages of an empty heap range")
	}
	spans, err := aliasSpans(uintptr(unsafe.Pointer(&w.heap[0])), uintptr(unsafe.Pointer(&h[0])), at, len(h))
	if err != nil {
		return err
	}
	fd := -1
	if len(h) >= 16*int(osPage) {
		fd = w.heapFile()
	}
	hoff := int64(uintptr(unsafe.Pointer(&h[0])) - uintptr(unsafe.Pointer(&w.heap[0])))
	for _, sp := range spans {
		fresh, err := unix.Mmap(-1, 0, sp.n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return fmt.Errorf("shmem: %d bytes to give pages back: %w", sp.n, err)
		}
		dst := at + uintptr(sp.at)
		// Only what the heap file holds is copied back: its holes read
		// zero, as the fresh pages do.
		runs, ok := []span{{0, sp.n}}, false
		if fd >= 0 {
			runs, ok = fileData(fd, hoff+int64(sp.at), sp.n)
			if !ok {
				runs = []span{{0, sp.n}}
			}
		}
		err = inParallel(runs, func(r span) error {
			if err := populate(fresh[r.at : r.at+r.n]); err != nil {
				return fmt.Errorf("shmem: %d bytes to give pages back: %w", r.n, err)
			}
			return copyFromAddr(fresh[r.at:r.at+r.n], dst+uintptr(r.at))
		})
		if err != nil {
			_ = unix.Munmap(fresh)
			return err
		}
		got, _, errno := unix.Syscall6(unix.SYS_MREMAP, uintptr(unsafe.Pointer(&fresh[0])), uintptr(sp.n), uintptr(sp.n),
			unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED, dst, 0)
		if errno != 0 || got != dst {
			_ = unix.Munmap(fresh)
			return fmt.Errorf("shmem: giving %d bytes at %#x back: %v", sp.n, dst, errno)
		}
	}
	w.zeroPages(h)
	return nil
}

// populate commits b's pages at once (MADV_POPULATE_WRITE): one call
// instead of a fault per page, and a clean ENOMEM where memory runs out
// instead of a SIGBUS at the first store. Kernels before 5.14 lack it:
// the pages are then committed by the copy that follows.
func populate(b []byte) error {
	if err := unix.Madvise(b, unix.MADV_POPULATE_WRITE); err != nil && err != unix.EINVAL {
		return err
	}
	return nil
}

// copyFromAddr copies len(dst) bytes of this process's memory at address
// at into dst, through the kernel (process_vm_readv on this process).
func copyFromAddr(dst []byte, at uintptr) error {
	for done := 0; done < len(dst); {
		n, err := unix.ProcessVMReadv(os.Getpid(), []unix.Iovec{{Base: &dst[done], Len: uint64(len(dst) - done)}},
			[]unix.RemoteIovec{{Base: at + uintptr(done), Len: len(dst) - done}}, 0)
		if err != nil || n <= 0 {
			return fmt.Errorf("shmem: copying %d bytes at %#x: %v", len(dst)-done, at+uintptr(done), err)
		}
		done += n
	}
	return nil
}

func pageAligned(b []byte) bool {
	return uint64(uintptr(unsafe.Pointer(&b[0])))%osPage == 0 && uint64(len(b))%osPage == 0
}

// span is a part of the pages given to ReturnPages: at bytes from their start, n long.
type span struct{ at, n int }

// aliasSpans reads /proc/self/maps for the parts of [at, at+n) that are
// still mappings of the heap file at heap address hat (the heap itself is
// mapped at heapBase, which names the file).
func aliasSpans(heapBase, hat, at uintptr, n int) ([]span, error) {
	raw, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil, fmt.Errorf("shmem: reading /proc/self/maps: %w", err)
	}
	type vma struct {
		lo, hi, off uint64
		file        string
	}
	var heapFile string
	var vmas []vma
	for _, line := range bytes.Split(raw, []byte{'\n'}) {
		f := bytes.Fields(line)
		if len(f) < 5 {
			continue
		}
		rng := bytes.SplitN(f[0], []byte{'-'}, 2)
		if len(rng) != 2 {
			continue
		}
		lo, _ := strconv.ParseUint(string(rng[0]), 16, 64)
		hi, _ := strconv.ParseUint(string(rng[1]), 16, 64)
		off, _ := strconv.ParseUint(string(f[2]), 16, 64)
		v := vma{lo, hi, off, string(f[3]) + " " + string(f[4])}
		if uint64(heapBase) >= lo && uint64(heapBase) < hi {
			heapFile = v.file // the heap maps its file from offset 0 at heapBase
		}
		if hi > uint64(at) && lo < uint64(at)+uint64(n) {
			vmas = append(vmas, v)
		}
	}
	var out []span
	for _, v := range vmas {
		if v.file != heapFile || heapFile == "" {
			continue
		}
		lo, hi := max(v.lo, uint64(at)), min(v.hi, uint64(at)+uint64(n))
		// Still ours: this VMA shows lo the heap page that AdoptPages put there.
		want := uint64(hat-heapBase) + (lo - uint64(at))
		if v.off+(lo-v.lo) == want {
			out = append(out, span{int(lo - uint64(at)), int(hi - lo)})
		}
	}
	return out, nil
}

// DownWord returns the address of a word outside Go's heap that becomes
// nonzero once any peer of this PE is lost or has finalized (the
// transport's health, the same word its own fast paths load), for fast
// paths in other languages: they load it before an operation on a mapped
// peer, and when it is set take the Go path, which reports the loss. It is
// nil where no peer can be lost (goroutine PEs).
func (w *World) DownWord() *uint32 {
	if d, ok := w.tr.(interface{ DownWord() *uint32 }); ok {
		return d.DownWord()
	}
	return nil
}
