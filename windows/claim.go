package windows

import (
	"os"
	"sync"

	"github.com/gshmem/gshmem/shmem"
)

// claimed holds the pages of this process that live windows hold. A page
// moved onto heap pages (AdoptPages: dynamic windows' pools, a Create
// window where page files cannot be used) can be a second mapping of one
// heap page only, so its window holds it alone. A page on a page file
// (shmem.PageFile, a Create window's) can be shared: a later window whose
// buffer shares the page (two arrays in one page, the same buffer in two
// windows) maps that file's page over its own heap range too, and the
// file stays open while any window holds one of its pages.
var claimed struct {
	sync.Mutex
	pages map[uintptr]*pageRef
}

// pageRef is one page's holders: how many windows, and the page file it
// lies on (nil: held alone, or not moved yet).
type pageRef struct {
	n    int
	file *sharedFile
	off  int // the page's offset in file
}

// sharedFile is a page file and how many window pages rest on it.
type sharedFile struct {
	pf   *shmem.PageFile
	refs int
}

// claim takes the pages [lo, hi) for one window alone, or reports that
// some page is another window's already.
func claim(lo, hi uintptr) bool { return claimPages(lo, hi, false) }

// claimShared is claim for a Create window, which may share the pages
// that lie on page files.
func claimShared(lo, hi uintptr) bool { return claimPages(lo, hi, true) }

func claimPages(lo, hi uintptr, share bool) bool {
	page := uintptr(os.Getpagesize())
	claimed.Lock()
	defer claimed.Unlock()
	for p := lo; p < hi; p += page {
		if r := claimed.pages[p]; r != nil && (!share || r.file == nil) {
			return false
		}
	}
	if claimed.pages == nil {
		claimed.pages = map[uintptr]*pageRef{}
	}
	for p := lo; p < hi; p += page {
		if r := claimed.pages[p]; r != nil {
			r.n++
		} else {
			claimed.pages[p] = &pageRef{n: 1}
		}
	}
	return true
}

// unclaim lets go of the pages [lo, hi): a page file none of whose pages
// any window holds is closed.
func unclaim(lo, hi uintptr) {
	page := uintptr(os.Getpagesize())
	claimed.Lock()
	defer claimed.Unlock()
	for p := lo; p < hi; p += page {
		r := claimed.pages[p]
		if r == nil {
			continue
		}
		if r.n--; r.n > 0 {
			continue
		}
		delete(claimed.pages, p)
		if f := r.file; f != nil {
			if f.refs--; f.refs == 0 {
				f.pf.Close()
			}
		}
	}
}

// fileSeg is a run of a Create window's pages that lies on one page
// file: len bytes at off in the file, at at bytes from the first page.
type fileSeg struct {
	file    *sharedFile // nil: the window's own new file
	at, off int
	len     int
}

// fileSegs splits the claimed pages [lo, hi) into runs on other windows'
// page files and runs not on any (nil file: they go onto this window's
// own), in address order.
func fileSegs(lo, hi uintptr) []fileSeg {
	page := int(os.Getpagesize())
	claimed.Lock()
	defer claimed.Unlock()
	var out []fileSeg
	for p := lo; p < hi; p += uintptr(page) {
		at := int(p - lo)
		r := claimed.pages[p]
		var f *sharedFile
		off := at
		if r != nil && r.file != nil {
			f, off = r.file, r.off
		}
		if k := len(out) - 1; k >= 0 && out[k].file == f && out[k].at+out[k].len == at && out[k].off+out[k].len == off {
			out[k].len += page
			continue
		}
		out = append(out, fileSeg{file: f, at: at, off: off, len: page})
	}
	return out
}

// filePages records that the pages of segs without a file now lie on
// pf (a window's own page file, at the same offsets from lo), which from
// here on other windows may share; the file is closed when no window
// holds any of its pages.
func filePages(lo uintptr, segs []fileSeg, pf *shmem.PageFile) {
	page := os.Getpagesize()
	f := &sharedFile{pf: pf}
	claimed.Lock()
	defer claimed.Unlock()
	for _, s := range segs {
		if s.file != nil {
			continue
		}
		for o := 0; o < s.len; o += page {
			if r := claimed.pages[lo+uintptr(s.at+o)]; r != nil && r.file == nil {
				r.file, r.off = f, s.at+o
				f.refs++
			}
		}
	}
	if f.refs == 0 {
		pf.Close()
	}
}

// segFd is the descriptor of seg's file: the window's own (own) or the
// shared file's.
func segFd(s fileSeg, own *shmem.PageFile) int {
	if s.file != nil {
		return s.file.pf.Fd()
	}
	return own.Fd()
}
