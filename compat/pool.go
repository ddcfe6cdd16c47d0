package compat

import (
	"slices"
	"unsafe"

	"github.com/gshmem/gshmem/internal/memcopy"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// allocator is a first-fit allocator of 64-byte-aligned blocks over
// [0, size): the local allocator of the AllocMem pool. Unlike the
// symmetric heap's, its calls are local, as MPI_Alloc_mem's are.
type allocator struct {
	spans []span      // free space, sorted by offset, coalesced
	used  map[int]int // offset -> size
}

type span struct{ off, n int }

func (a *allocator) init(size int) {
	a.used = map[int]int{}
	if size > 0 {
		a.spans = []span{{0, size}}
	}
}

func (a *allocator) alloc(n int) (int, bool) {
	n = max((n+cell-1)&^(cell-1), cell)
	for i, s := range a.spans {
		if s.n >= n {
			if s.n == n {
				a.spans = slices.Delete(a.spans, i, i+1)
			} else {
				a.spans[i] = span{s.off + n, s.n - n}
			}
			a.used[s.off] = n
			return s.off, true
		}
	}
	return 0, false
}

func (a *allocator) free1(off int) bool {
	n, ok := a.used[off]
	if !ok {
		return false
	}
	delete(a.used, off)
	f := a.spans
	i, _ := slices.BinarySearchFunc(f, off, func(s span, o int) int { return s.off - o })
	f = slices.Insert(f, i, span{off, n})
	if i+1 < len(f) && f[i].off+f[i].n == f[i+1].off {
		f[i].n += f[i+1].n
		f = slices.Delete(f, i+1, i+2)
	}
	if i > 0 && f[i-1].off+f[i-1].n == f[i].off {
		f[i-1].n += f[i].n
		f = slices.Delete(f, i, i+1)
	}
	a.spans = f
	return true
}

func (a *allocator) free(off int) { a.free1(off) }

// inPool reports whether b lies wholly in this PE's pool and where.
func (e *Env) inPool(b []byte) (int, bool) {
	if len(b) == 0 || len(e.poolMine) == 0 {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(&e.poolMine[0]))
	p := uintptr(unsafe.Pointer(&b[0]))
	if p < base || p+uintptr(len(b)) > base+uintptr(len(e.poolMine)) {
		return 0, false
	}
	return int(p - base), true
}

// AllocMem returns n bytes of this PE's symmetric pool (MPI_Alloc_mem).
// It is local, not collective. A message sent from AllocMem memory takes
// the zero-copy rendezvous: the receiver Gets it straight from here, even
// from another process. Release it with FreeMem. It fails with ErrNoMem
// when the pool (WithPoolSize) is full.
func (e *Env) AllocMem(n int) ([]byte, error) { return AllocMemOf[byte](e, n) }

// AllocMemOf is AllocMem for n elements of T.
func AllocMemOf[T Elem](e *Env, n int) ([]T, error) {
	if e == nil || e.closed.Load() {
		return nil, errorf(ClassOther, "AllocMem on a finalized or nil Env")
	}
	if n < 0 {
		return nil, errorf(ClassArg, "AllocMem of %d elements", n)
	}
	var z T
	sz := int(unsafe.Sizeof(z))
	if n == 0 {
		return []T{}, nil
	}
	var off int
	ok := n <= len(e.poolMine)/sz
	if ok {
		e.mu.Lock()
		off, ok = e.poolAlloc.alloc(n * sz)
		e.mu.Unlock()
	}
	if !ok {
		return nil, errorf(ClassNoMem, "AllocMem of %d elements of %d bytes: the pool of %d bytes is full (WithPoolSize, GSHMEM_MPI_POOL_SIZE)", n, sz, len(e.poolMine))
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&e.poolMine[off])), n)[:n:n], nil
}

// FreeMem releases memory from AllocMem (MPI_Free_mem). buf must be the
// whole slice AllocMem returned (its first element), and no send from it
// may be in progress.
func FreeMem[T Elem](e *Env, buf []T) error {
	if e == nil || e.closed.Load() {
		return errorf(ClassOther, "FreeMem on a finalized or nil Env")
	}
	if cap(buf) == 0 {
		return nil // AllocMem(0)
	}
	off, ok := e.inPool(mpitype.AsBytes(buf[:1]))
	e.mu.Lock()
	defer e.mu.Unlock()
	if !ok || !e.poolAlloc.free1(off) {
		return errorf(ClassArg, "FreeMem of memory AllocMem did not return (or freed twice)")
	}
	return nil
}

// getBytes reads a rendezvous message from pe. A mapped peer is read
// through the cache (memcopy.Copy): the receiver reads its message next.
func getBytes(dst []byte, src shmem.Sym[byte], pe int) error {
	if m := shmem.Ptr(src, pe); m != nil {
		memcopy.Copy(dst, m)
		return nil
	}
	return shmem.Get(dst, src, pe)
}
