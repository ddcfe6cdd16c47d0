package windows

import (
	"cmp"
	"slices"
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
	runs []claimRun // sorted by address, not overlapping
}

// claimRun is a run of pages with the same holders: how many windows, and
// the page file it lies on (nil: held alone, or not moved yet), from
// offset off. Runs, not pages, so that claiming a GiB costs what claiming
// a page does.
type claimRun struct {
	lo, hi uintptr
	n      int
	file   *sharedFile
	off    int // lo's offset in file
}

// sharedFile is a page file and how many bytes of window pages rest on
// it (counted once per window that holds them).
type sharedFile struct {
	pf   *shmem.PageFile
	refs int
}

// split cuts the run holding address p, if any, so that a run starts at p.
func split(p uintptr) {
	rs := claimed.runs
	for i, r := range rs {
		if r.lo < p && p < r.hi {
			left, right := r, r
			left.hi, right.lo = p, p
			if r.file != nil {
				right.off = r.off + int(p-r.lo)
			}
			claimed.runs = slices.Insert(rs, i+1, right)
			claimed.runs[i] = left
			return
		}
	}
}

// claim takes the pages [lo, hi) for one window alone, or reports that
// some page is another window's already.
func claim(lo, hi uintptr) bool { return claimPages(lo, hi, false) }

// claimShared is claim for a Create window, which may share the pages
// that lie on page files.
func claimShared(lo, hi uintptr) bool { return claimPages(lo, hi, true) }

func claimPages(lo, hi uintptr, share bool) bool {
	claimed.Lock()
	defer claimed.Unlock()
	for _, r := range claimed.runs {
		if r.lo < hi && lo < r.hi && (!share || r.file == nil) {
			return false
		}
	}
	split(lo)
	split(hi)
	var out []claimRun
	next := lo // the first page of [lo, hi) not yet held
	for _, r := range claimed.runs {
		if r.hi <= lo || r.lo >= hi {
			out = append(out, r)
			continue
		}
		if r.lo > next {
			out = append(out, claimRun{lo: next, hi: r.lo, n: 1})
		}
		r.n++
		if r.file != nil {
			r.file.refs += int(r.hi - r.lo)
		}
		out = append(out, r)
		next = r.hi
	}
	if next < hi {
		out = append(out, claimRun{lo: next, hi: hi, n: 1})
	}
	slices.SortFunc(out, func(a, b claimRun) int { return cmp.Compare(a.lo, b.lo) })
	claimed.runs = out
	return true
}

// unclaim lets go of the pages [lo, hi): a page file none of whose pages
// any window holds is closed.
func unclaim(lo, hi uintptr) {
	claimed.Lock()
	defer claimed.Unlock()
	split(lo)
	split(hi)
	out := claimed.runs[:0]
	for _, r := range claimed.runs {
		if r.lo >= lo && r.hi <= hi {
			r.n--
			if f := r.file; f != nil {
				if f.refs -= int(r.hi - r.lo); f.refs == 0 {
					f.pf.Close()
				}
			}
			if r.n == 0 {
				continue
			}
		}
		out = append(out, r)
	}
	claimed.runs = out
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
// own, at their offset from lo), in address order.
func fileSegs(lo, hi uintptr) []fileSeg {
	claimed.Lock()
	defer claimed.Unlock()
	var out []fileSeg
	for _, r := range claimed.runs {
		if r.hi <= lo || r.lo >= hi {
			continue
		}
		from, to := max(r.lo, lo), min(r.hi, hi)
		s := fileSeg{at: int(from - lo), off: int(from - lo), len: int(to - from)}
		if r.file != nil {
			s.file, s.off = r.file, r.off+int(from-r.lo)
		}
		out = append(out, s)
	}
	return out
}

// filePages records that the pages of [lo, hi) on no file now lie on pf
// (a window's own page file, at their offsets from lo), which from here
// on other windows may share; the file is closed when no window holds any
// of its pages.
func filePages(lo, hi uintptr, pf *shmem.PageFile) {
	f := &sharedFile{pf: pf}
	claimed.Lock()
	defer claimed.Unlock()
	for i := range claimed.runs {
		r := &claimed.runs[i]
		if r.lo >= lo && r.hi <= hi && r.file == nil {
			r.file, r.off = f, int(r.lo-lo)
			f.refs += int(r.hi-r.lo) * r.n
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
