package compat

import (
	"math"
	"slices"

	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/gshmem/gshmem/shmem"
)

// AllocSymmetric reserves n bytes of symmetric memory over the
// communicator: an object at the same heap offset on every member, which
// members reach with shmem's calls (and streams and kernels with theirs)
// by world PE number (WorldRank). It is collective over c and its memory
// is zeroed on every member when it returns.
//
// A communicator of every PE of the World takes it from the symmetric heap
// (shmem.Calloc). A smaller one cannot, since shmem's allocation is
// collective over the World; it takes it from the members' AllocMem pools
// instead (WithPoolSize, GSHMEM_MPI_POOL_SIZE), at the lowest offset free
// on every member, agreed by a few Allreduce rounds: communicators that
// overlap can hold such objects at the same time, and AllocMem memory is
// never handed out twice. It fails on every member with ErrNoMem when no
// such range is left. windows' windows take their memory here.
func (c *Comm) AllocSymmetric(n int) (shmem.Sym[byte], error) {
	if err := c.check("AllocSymmetric"); err != nil {
		return shmem.Sym[byte]{}, err
	}
	e := c.env
	if n < 0 {
		return shmem.Sym[byte]{}, errorf(ClassArg, "AllocSymmetric of %d bytes", n)
	}
	if c.Spans() {
		return shmem.Sym[byte]{}, errorf(mpierr.ClassUnsupportedOperation, "AllocSymmetric: %s has members in another job, whose heaps are not this World's (no windows or symmetric memory across jobs)", c.name)
	}
	if c.Size() == e.n {
		s, err := shmem.Calloc[byte](e.w, n)
		return s, wrap(err, "AllocSymmetric of %d bytes", n)
	}
	off, err := c.agreeFreeRange(max(n, 1))
	if err != nil {
		return shmem.Sym[byte]{}, err
	}
	clear(e.poolMine[off : off+n])
	// Nobody may store into a member's copy before that member cleared it.
	if err := c.Barrier(); err != nil {
		e.mu.Lock()
		e.poolAlloc.free1(off)
		e.mu.Unlock()
		return shmem.Sym[byte]{}, err
	}
	return e.pool.Slice(off, off+n), nil
}

// AllocSymmetricHost is AllocSymmetric in host memory: on a World whose
// heap is GPU memory, a communicator of every PE takes it from the heap's
// host area (shmem.CallocHost) instead of the GPU; elsewhere it is
// AllocSymmetric. It is for memory the host loads and stores, such as
// windows' control words. FreeSymmetric releases it.
func (c *Comm) AllocSymmetricHost(n int) (shmem.Sym[byte], error) {
	if err := c.check("AllocSymmetricHost"); err != nil {
		return shmem.Sym[byte]{}, err
	}
	e := c.env
	if !e.dev || c.Size() != e.n {
		return c.AllocSymmetric(n)
	}
	if n < 0 {
		return shmem.Sym[byte]{}, errorf(ClassArg, "AllocSymmetricHost of %d bytes", n)
	}
	s, err := shmem.CallocHost[byte](e.w, n)
	return s, wrap(err, "AllocSymmetricHost of %d bytes", n)
}

// FreeSymmetric releases an object AllocSymmetric returned on c. It is
// collective over c, as MPI_Win_free is: no member may reach the object
// after any member has freed it.
func (c *Comm) FreeSymmetric(s shmem.Sym[byte]) error {
	if err := c.check("FreeSymmetric"); err != nil {
		return err
	}
	e := c.env
	if c.Size() == e.n {
		return wrap(shmem.Free(s), "FreeSymmetric")
	}
	base, end := e.pool.Offset(), e.pool.Offset()+uint64(e.pool.Len())
	if s.Offset() < base || s.Offset() >= end || s.World() != e.w {
		return errorf(ClassArg, "FreeSymmetric of an object AllocSymmetric did not return on this communicator")
	}
	if err := c.Barrier(); err != nil {
		return err
	}
	e.mu.Lock()
	ok := e.poolAlloc.free1(int(s.Offset() - base))
	e.mu.Unlock()
	if !ok {
		return errorf(ClassArg, "FreeSymmetric of an object that is not allocated (freed twice?)")
	}
	return nil
}

// agreeFreeRange finds, and takes on every member, the lowest pool offset
// at which n bytes are free on every member. Each round every member
// proposes its lowest fit at or above the highest proposal so far; the
// proposals only grow, so the rounds end, at the latest when some member
// has no fit left.
func (c *Comm) agreeFreeRange(n int) (int, error) {
	e := c.env
	const none = math.MaxInt64
	from := int64(0)
	for {
		e.mu.Lock()
		prop := int64(none)
		if o, ok := e.poolAlloc.fitFrom(int(from), n); ok {
			prop = int64(o)
		}
		e.mu.Unlock()
		in, out := []int64{prop, -prop}, make([]int64, 2)
		if err := Allreduce(c, in, out, 2, Int64, OpMax); err != nil {
			return 0, wrap(err, "AllocSymmetric: agreeing on an offset")
		}
		hi, lo := out[0], -out[1]
		if hi == none {
			return 0, errorf(ClassNoMem, "AllocSymmetric of %d bytes over %d PEs: no range is free in every member's pool of %d bytes (WithPoolSize, GSHMEM_MPI_POOL_SIZE)",
				n, c.Size(), len(e.poolMine))
		}
		if hi == lo {
			e.mu.Lock()
			e.poolAlloc.take(int(hi), n)
			e.mu.Unlock()
			return int(hi), nil
		}
		from = hi
	}
}

// fitFrom returns the lowest cell-aligned offset at or above from where n
// bytes are free.
func (a *allocator) fitFrom(from, n int) (int, bool) {
	from = (from + cell - 1) &^ (cell - 1)
	n = max((n+cell-1)&^(cell-1), cell)
	for _, s := range a.spans {
		o := max(s.off, from)
		if o+n <= s.off+s.n {
			return o, true
		}
	}
	return 0, false
}

// take marks [off, off+n) used; fitFrom found it free.
func (a *allocator) take(off, n int) {
	n = max((n+cell-1)&^(cell-1), cell)
	i := slices.IndexFunc(a.spans, func(s span) bool { return s.off <= off && off+n <= s.off+s.n })
	s := a.spans[i]
	var rest []span
	if off > s.off {
		rest = append(rest, span{s.off, off - s.off})
	}
	if end := s.off + s.n; off+n < end {
		rest = append(rest, span{off + n, end - off - n})
	}
	a.spans = slices.Replace(a.spans, i, i+1, rest...)
	a.used[off] = n
}
