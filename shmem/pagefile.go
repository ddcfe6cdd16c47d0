package shmem

import (
	"fmt"
	"os"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Page files: the pages of a user's buffer moved onto a memfd of their
// own, for windows on the user's memory (MPI_Win_create). AdoptPages moves
// them onto heap pages instead; then the heap file holds them, and giving
// them back at the window's end must copy every page out again (the heap's
// pages are the heap's: a heap file cannot hand a page over). A page file
// holds nothing but the buffer: the buffer's own addresses map it, so
// when the window ends the buffer simply stays as it is (no copy, no
// syscall on its pages), and its memory is freed when the program unmaps
// it, as any memory of the program is. While the window lives, every
// process that reaches the buffer maps the file over its view of the
// window's heap range (Overlay): node-local peers by loads and stores,
// remote peers through the owner's heap server (which reads the owner's
// heap mapping, overlaid too), the C fast paths through those same views.

// pageFileName names the memfds in /proc/self/maps: a buffer a freed
// window left on its page file is still private to this process and may
// be adopted again (Adoptable).
const pageFileName = "gshmem-window"

// PageFile is a memfd holding a copy of n bytes of pages of this process
// at address at, until MapOver puts it in their place.
type PageFile struct {
	fd      int
	ino     uint64
	at      uintptr
	n       int
	pending []span // runs (offsets from at) still to copy in: MapOver copies them
}

// CanOverlay reports whether NewPageFile and Overlay may be used: the heap
// is a host memfd and no peer reaches it through memory registered with a
// fabric (UCX pins the heap's pages, which an overlay would replace).
func (w *World) CanOverlay() bool {
	return w.CanAdopt() && !strings.EqualFold(w.opts.RemoteTransport, "ucx")
}

// NewPageFile makes a memfd of n bytes for the pages at at (page-aligned;
// Adoptable) that will take the runs of them that copy names ([offset,
// length] pairs from at, page-aligned). Neither the pages nor the file's
// data are touched until MapOver, which copies each run's data in and
// maps the file over it.
func (w *World) NewPageFile(at uintptr, n int, copy [][2]int) (*PageFile, error) {
	if !w.CanOverlay() || n <= 0 || uint64(at)%osPage != 0 || uint64(n)%osPage != 0 {
		return nil, errf(ErrInvalid, "NewPageFile of %d bytes at %#x (page-aligned ranges on a memfd heap only)", n, at)
	}
	fd, err := unix.MemfdCreate(pageFileName, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("shmem: memfd for %d bytes of window pages: %w", n, err)
	}
	f := &PageFile{fd: fd, at: at, n: n}
	var st unix.Stat_t
	if err := unix.Ftruncate(fd, int64(n)); err != nil {
		f.Close()
		return nil, fmt.Errorf("shmem: sizing the memfd of %d bytes of window pages: %w", n, err)
	}
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("shmem: memfd of window pages: %w", err)
	}
	f.ino = st.Ino
	// The data is copied by MapOver, just before the file takes the pages'
	// place: a store to them in between (another thread's, or in a Go
	// process another goroutine's object sharing the page) would be lost.
	for _, c := range copy {
		f.pending = append(f.pending, span{c[0], c[1]})
	}
	return f, nil
}

// Ref names the file for another process of this node and user: it opens
// /proc/pid/fd/fd (OpenPeerFile) and checks the inode.
func (f *PageFile) Ref() (pid int, fd int, ino uint64) { return os.Getpid(), f.fd, f.ino }

// Fd is the file's descriptor, valid until Close.
func (f *PageFile) Fd() int { return f.fd }

// MapOver copies the data of the n bytes of pages at off into the file
// and maps the file over them, at their own addresses: from here on those
// pages are the file's (the private pages they had are freed). Other
// threads must not store to them while MapOver runs.
func (f *PageFile) MapOver(off, n int) error {
	var now, later []span
	for _, r := range f.pending {
		if r.at >= off && r.at+r.n <= off+n {
			now = append(now, r)
		} else {
			later = append(later, r)
		}
	}
	// Only the pages that hold data now (dataRuns): the rest stay holes
	// that read zero. pwrite fills a page the file never had without
	// clearing it first: one pass over the data, on up to 8 threads.
	var runs []span
	for _, c := range now {
		for _, r := range dataRuns(f.at+uintptr(c.at), c.n) {
			runs = append(runs, span{c.at + r.at, r.n})
		}
	}
	if err := inParallel(runs, func(r span) error {
		return writeFile(f.fd, f.at+uintptr(r.at), r.n, int64(r.at))
	}); err != nil {
		return err
	}
	f.pending = later
	got, err := mmapFixed(f.at+uintptr(off), n, f.fd, off)
	if err != nil || got != f.at+uintptr(off) {
		return fmt.Errorf("shmem: mapping %d bytes of window pages at %#x: %v", n, f.at+uintptr(off), err)
	}
	return nil
}

// Close closes the descriptor; mappings of the file stay.
func (f *PageFile) Close() {
	if f != nil && f.fd >= 0 {
		unix.Close(f.fd)
		f.fd = -1
	}
}

// OpenPeerFile opens another process's page file (PageFile.Ref), checking
// that it is the file that was named (a descriptor number may be reused).
func OpenPeerFile(pid, fd int, ino uint64) (int, error) {
	nfd, err := unix.Open(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("shmem: opening process %d's window pages: %w", pid, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(nfd, &st); err != nil || st.Ino != ino {
		unix.Close(nfd)
		return -1, fmt.Errorf("shmem: process %d's window pages are gone (descriptor %d is another file)", pid, fd)
	}
	return nfd, nil
}

// Overlay is a page file mapped over this process's view of one PE's
// copy of a heap range; Undo gives the view its heap pages back.
type Overlay struct {
	w     *World
	at    uintptr // the view
	spare uintptr // a second mapping of the heap pages the file covers
	n     int
}

// Overlay maps the file fd from offset off over pe's copy of s as this
// process maps it (page-aligned), keeping the heap pages it hides mapped
// elsewhere for Undo. Node-local peers' views and the PE's own heap are
// overlaid alike.
func (w *World) Overlay(s Sym[byte], pe int, fd int, off int) (*Overlay, error) {
	v := Ptr(s, pe)
	if len(v) == 0 || !pageAligned(v) {
		return nil, errf(ErrInvalid, "Overlay of PE %d's %d bytes at offset %d (a mapped, page-aligned range only)", pe, s.Len(), s.Offset())
	}
	at, n := uintptr(unsafe.Pointer(&v[0])), len(v)
	// old_size 0 on a shared mapping makes a second mapping of the same pages.
	spare, _, errno := unix.Syscall6(unix.SYS_MREMAP, at, 0, uintptr(n), unix.MREMAP_MAYMOVE, 0, 0)
	if errno != 0 {
		return nil, fmt.Errorf("shmem: keeping %d bytes of PE %d's heap view: %v", n, pe, errno)
	}
	if got, err := mmapFixed(at, n, fd, off); err != nil || got != at {
		_, _, _ = unix.Syscall(unix.SYS_MUNMAP, spare, uintptr(n), 0)
		return nil, fmt.Errorf("shmem: mapping window pages over PE %d's heap view: %v", pe, err)
	}
	return &Overlay{w: w, at: at, spare: spare, n: n}, nil
}

// Undo puts the heap pages back in the view, in one call. Once the World
// is closed its views are gone, and so is what the overlay covered: only
// the spare mapping is released then.
func (o *Overlay) Undo() error {
	if o == nil || o.n == 0 {
		return nil
	}
	n := o.n
	o.n = 0
	if o.w.closed.Load() {
		_, _, _ = unix.Syscall(unix.SYS_MUNMAP, o.spare, uintptr(n), 0)
		return nil
	}
	got, _, errno := unix.Syscall6(unix.SYS_MREMAP, o.spare, uintptr(n), uintptr(n), unix.MREMAP_MAYMOVE|unix.MREMAP_FIXED, o.at, 0)
	if errno != 0 || got != o.at {
		return fmt.Errorf("shmem: giving %d bytes of heap view back at %#x: %v", n, o.at, errno)
	}
	return nil
}

// mmapFixed maps n bytes of fd from offset off, shared and writable, at at.
func mmapFixed(at uintptr, n, fd, off int) (uintptr, error) {
	got, _, errno := unix.Syscall6(unix.SYS_MMAP, at, uintptr(n), unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_SHARED|unix.MAP_FIXED, uintptr(fd), uintptr(off))
	if errno != 0 {
		return 0, errno
	}
	return got, nil
}
