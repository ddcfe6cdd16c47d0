package windows

import (
	"encoding/binary"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// Dynamic windows in the unified model: RMA reaches attached memory
// itself, never a copy. A dynamic window's allocation on every PE is a
// table of attached regions followed by a pool of address space. Attach
// publishes {address, length, offset, kind} in a table slot; an origin
// looks the target address up in the target's table, so that an access
// that misses every attached region fails with ErrRMARange and nothing
// outside attached memory is ever reached. A region is one of:
//
//   - slotPool (process PEs): the pages holding the region are moved onto
//     pages of the pool (shmem.World.AdoptPages, as Create's buffers are,
//     create.go): the caller's addresses stay, and they are heap pages
//     from then on, which node-local peers load and store through their
//     mapping of this PE's heap and remote peers reach through its heap
//     server. The pool is laid out by address: it is cut into granules of
//     gran bytes, each holding the pages of one aligned gran-byte range
//     of this process's address space at their offset in that range. So
//     regions that share a page (two small arrays side by side) share its
//     pool page, and a region is contiguous in the pool whatever regions
//     came before it. A page stays adopted while any region holds it;
//     Detach gives the last holder's pages back their own private memory
//     (ReturnPages), so memory freed after Detach is the program's again.
//   - slotHeap: the region lies in one live object of this PE's symmetric
//     heap (MPI_Alloc_mem's pool, an allocate window's memory): off is its
//     heap offset, which names the same object on every PE.
//   - slotDirect (goroutine PEs): every PE is in this process, so peers
//     reach the caller's memory by its address, through the registry of
//     this process's dynamic windows (direct).
const (
	dynSlots      = 1 << 14 // regions attached at once; the table is address space, touched as used
	dynSlotBytes  = 32      // addr, len, off, state: four uint64
	dynHeader     = 64      // uint64 high-water mark of used slots, uint64 generation, padding
	dynTableBytes = dynHeader + dynSlots*dynSlotBytes
	dynGranules   = 64 // granules in a pool
)

// A table slot's state word.
const (
	slotFree uint64 = iota
	slotPool
	slotHeap
	slotDirect
)

type region struct {
	addr int
	buf  []byte // the caller's memory
	off  int    // slotPool: offset in the allocation; slotHeap: heap offset
	kind uint64
	slot int
}

type dynamic struct {
	mem    []byte // this PE's allocation (table + pool)
	direct bool   // goroutine PEs: peers reach regions by address
	pool   int    // offset in mem of the pool's first granule (page-aligned)
	gran   int    // bytes of a granule, a multiple of the page size

	// Pool pages: which granule of the address space each pool granule
	// holds (key+1, 0 when free), the granule of each key, how many
	// adopted pages each holds, and how many regions hold each page.
	slots  []uintptr
	slotOf map[uintptr]int
	gpages map[uintptr]int
	refs   map[uintptr]int

	mu      sync.RWMutex // regions, for direct peers
	regions []region
	used    []bool   // table slots in use
	cache   []dynHit // per target: the region of the last lookup
}

// dynHit is a region found in a target's table, valid while the table's
// generation stays gen: its pool offset, or the memory that reaches it.
type dynHit struct {
	gen, addr, n, off uint64
	m                 *rmem
	ok                bool
}

// directDyn is the dynamic windows of this process's goroutine PEs, by
// the first byte of each one's allocation, for their peers' lookups.
var directDyn sync.Map

// dynPool returns the pool bytes and granule size of a dynamic window: the
// info key's, or by default a sixteenth of the heap (address space: only
// attached pages are ever committed).
func dynPool(w *shmem.World, asked int) (pool, gran int) {
	page := os.Getpagesize()
	if asked <= 0 {
		gran = max(roundUp(int(w.Options().SymmetricSize/16/dynGranules), page), page)
		return dynGranules * gran, gran
	}
	gran = max(roundUp(asked/dynGranules, page), page)
	// Whole granules, at least the bytes asked (a pool smaller than a
	// page still holds one page of attachments).
	return roundUp(asked, gran), gran
}

func newDynamic(win *Win, mem []byte) *dynamic {
	// The allocation is zeroed already (AllocSymmetric): the table's
	// untouched pages cost nothing.
	d := &dynamic{mem: mem, cache: make([]dynHit, win.n), used: make([]bool, dynSlots),
		direct: win.world.BootstrapName() == "inproc", slotOf: map[uintptr]int{}, gpages: map[uintptr]int{}, refs: map[uintptr]int{}}
	d.gran = win.set.gran
	page := os.Getpagesize()
	d.pool = roundUp(int(win.data.Offset())+dynTableBytes, page) - int(win.data.Offset())
	d.slots = make([]uintptr, max(len(mem)-d.pool, 0)/d.gran)
	if d.direct {
		directDyn.Store(&mem[0], d)
	}
	return d
}

func (d *dynamic) u64(off int) *uint64 { return (*uint64)(unsafe.Pointer(&d.mem[off])) }

// Address returns the address of buf's first element (MPI_Get_address): in
// a dynamic window, the displacement that names it at the PE that attached
// it. Address(buf[i:]) names element i.
func Address[T compat.Elem](buf []T) int {
	if len(buf) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(&buf[0])))
}

// Attach makes buf reachable by RMA through a dynamic window
// (MPI_Win_attach); peers name it by Address(buf). Not collective. buf must
// not overlap memory already attached, and must stay attached until the
// operations on it are synchronized; on process PEs the pages holding it
// become heap pages until Detach (so no other goroutine may store to those
// pages while Attach and Detach run). ErrRMAAttach when the window's pool
// of address space (info key gshmem_dynamic_pool) or its table of 16384
// regions is full, or when buf shares a page with another window's
// memory.
func Attach[T compat.Elem](win *Win, buf []T) error {
	if err := win.dynCheck(); err != nil {
		return err
	}
	b := mpitype.AsBytes(buf)
	if len(b) == 0 {
		return errorf(compat.ClassRMAAttach, "attach of an empty buffer")
	}
	d := win.dyn
	addr := Address(buf)
	for _, r := range d.regions {
		if addr < r.addr+len(r.buf) && r.addr < addr+len(b) {
			return errorf(compat.ClassRMAAttach, "memory at %#x overlaps a region already attached", addr)
		}
	}
	slot := slices.Index(d.used, false)
	if slot < 0 {
		return errorf(compat.ClassRMAAttach, "%d regions are attached already", dynSlots)
	}
	r := region{addr: addr, buf: b, slot: slot, kind: slotDirect}
	if !d.direct {
		if s, ok := shmem.HeapSym(win.world, uintptr(addr), len(b)); ok {
			r.kind, r.off = slotHeap, int(s.Offset())
		} else {
			off, err := win.adoptRegion(b)
			if err != nil {
				return err
			}
			r.kind, r.off = slotPool, off
		}
	}
	d.mu.Lock()
	d.regions = append(d.regions, r)
	d.mu.Unlock()
	d.used[slot] = true
	so := dynHeader + slot*dynSlotBytes
	atomic.StoreUint64(d.u64(so), uint64(addr))
	atomic.StoreUint64(d.u64(so+8), uint64(len(b)))
	atomic.StoreUint64(d.u64(so+16), uint64(r.off))
	atomic.StoreUint64(d.u64(so+24), r.kind)
	if hw := d.u64(0); atomic.LoadUint64(hw) < uint64(slot+1) {
		atomic.StoreUint64(hw, uint64(slot+1))
	}
	atomic.AddUint64(d.u64(8), 1) // origins' cached lookups are stale
	return nil
}

// Detach removes memory attached with Attach (MPI_Win_detach), named by
// the same buffer. Not collective. From then on an access to it fails
// with ErrRMARange, and its pages (where no other region of the window
// holds them) are the program's own private memory again, with what they
// hold: it may free them.
func Detach[T compat.Elem](win *Win, buf []T) error {
	raceSynced() // race builds: peers' copies into this memory came before
	if err := win.dynCheck(); err != nil {
		return err
	}
	d := win.dyn
	addr := Address(buf)
	i := slices.IndexFunc(d.regions, func(r region) bool { return r.addr == addr && addr != 0 })
	if i < 0 {
		return errorf(compat.ClassRMAAttach, "memory at %#x is not attached", addr)
	}
	return win.detach(i)
}

// detach removes region i: unpublished first, so that no new lookup finds
// it, then its pages given back.
func (win *Win) detach(i int) error {
	d := win.dyn
	r := d.regions[i]
	atomic.StoreUint64(d.u64(dynHeader+r.slot*dynSlotBytes+24), slotFree)
	atomic.AddUint64(d.u64(8), 1)
	d.used[r.slot] = false
	d.mu.Lock()
	d.regions = slices.Delete(d.regions, i, i+1)
	d.mu.Unlock()
	if r.kind == slotPool {
		return win.releaseRegion(r.buf)
	}
	return nil
}

// freeDynamic detaches every region (MPI_Win_free detaches the memory
// still attached) and leaves the registry.
func (win *Win) freeDynamic() error {
	d := win.dyn
	if d == nil {
		return nil
	}
	var first error
	for len(d.regions) > 0 {
		if err := win.detach(len(d.regions) - 1); err != nil && first == nil {
			first = err
		}
	}
	if d.direct {
		directDyn.Delete(&d.mem[0])
	}
	return first
}

func (win *Win) dynCheck() error {
	if win == nil {
		return errorf(compat.ClassWin, "nil window")
	}
	if win.flavor != FlavorDynamic {
		return errorf(compat.ClassRMAFlavor, "Attach and Detach need a dynamic window, not %v", win.flavor)
	}
	return win.alive()
}

// lookup finds, in rank's table, the attached region holding
// [addr, addr+span) and returns the memory that reaches it and the offset
// of addr there.
func (win *Win) lookup(rank, addr, span int) (*rmem, int, error) {
	m := &win.dataMem[rank]
	if win.dyn.direct {
		return win.lookupDirect(rank, addr, span)
	}
	var table []byte
	var gen uint64
	hit := &win.dyn.cache[rank]
	if m.mapped != nil {
		table = m.mapped[:dynTableBytes]
		gen = atomic.LoadUint64((*uint64)(unsafe.Pointer(&table[8])))
		if hit.ok && hit.gen == gen {
			if a := uint64(addr) - hit.addr; uint64(addr) >= hit.addr && a <= hit.n && uint64(span) <= hit.n-a {
				return hit.m, int(hit.off + a), nil
			}
		}
	} else {
		// The header, then only the slots below its high-water mark.
		head := make([]byte, dynHeader)
		if err := m.read(0, head); err != nil {
			return nil, 0, wrap(err, "reading rank %d's attached regions", rank)
		}
		hw := int(min(binary.LittleEndian.Uint64(head), dynSlots))
		table = make([]byte, dynHeader+hw*dynSlotBytes)
		copy(table, head)
		if err := m.read(dynHeader, table[dynHeader:]); err != nil {
			return nil, 0, wrap(err, "reading rank %d's attached regions", rank)
		}
	}
	ld := func(off int) uint64 {
		if m.mapped != nil {
			return atomic.LoadUint64((*uint64)(unsafe.Pointer(&table[off])))
		}
		return binary.LittleEndian.Uint64(table[off:])
	}
	hw := int(min(ld(0), dynSlots, uint64(len(table)-dynHeader)/dynSlotBytes))
	limit := uint64(len(win.dataMem[win.me].mapped)) // the same size on every PE
	for s := range hw {
		so := dynHeader + s*dynSlotBytes
		kind := ld(so + 24)
		if kind != slotPool && kind != slotHeap {
			continue
		}
		a, n, off := ld(so), ld(so+8), ld(so+16)
		if uint64(addr) < a || uint64(addr)-a > n || uint64(span) > n-(uint64(addr)-a) {
			continue
		}
		mem := m
		if kind == slotHeap {
			// A live symmetric object here too, or the access fails.
			sym, ok := shmem.HeapRange(win.world, off, int(n))
			if !ok {
				continue
			}
			hm := newRmem(sym, win.pes[rank])
			mem, off = &hm, 0
		} else if off < dynTableBytes || off > limit || n > limit-off {
			// A torn read during a concurrent Detach must still not point
			// outside the pool.
			continue
		}
		if m.mapped != nil {
			*hit = dynHit{gen: gen, addr: a, n: n, off: off, m: mem, ok: true}
		}
		return mem, int(off) + (addr - int(a)), nil
	}
	return nil, 0, errorf(compat.ClassRMARange, "rank %d has no memory attached at [%#x, %#x)", rank, addr, addr+span)
}

// lookupDirect is lookup among goroutine PEs: the target's regions are
// read from its dynamic window itself, and reached by address.
func (win *Win) lookupDirect(rank, addr, span int) (*rmem, int, error) {
	v, ok := directDyn.Load(&shmem.Ptr(win.data, win.pes[rank])[0])
	if !ok {
		return nil, 0, errorf(compat.ClassWin, "rank %d's dynamic window is gone", rank)
	}
	t := v.(*dynamic)
	gen := atomic.LoadUint64(t.u64(8))
	hit := &win.dyn.cache[rank]
	if hit.ok && hit.gen == gen {
		if a := uint64(addr) - hit.addr; uint64(addr) >= hit.addr && a <= hit.n && uint64(span) <= hit.n-a {
			return hit.m, int(a), nil
		}
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	for _, r := range t.regions {
		if addr < r.addr || addr-r.addr > len(r.buf) || span > len(r.buf)-(addr-r.addr) {
			continue
		}
		m := &rmem{pe: win.pes[rank], mapped: r.buf, heap: win.world.Mapped(win.pes[rank]), sym: win.data}
		*hit = dynHit{gen: gen, addr: uint64(r.addr), n: uint64(len(r.buf)), m: m, ok: true}
		return m, addr - r.addr, nil
	}
	return nil, 0, errorf(compat.ClassRMARange, "rank %d has no memory attached at [%#x, %#x)", rank, addr, addr+span)
}
