package windows

import (
	"encoding/binary"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// A dynamic window's allocation on every PE is a table of attached regions
// followed by a pool. Attach copies a buffer into pool space (its public
// copy) and publishes {address, length, pool offset} in a table slot;
// origins look the target address up in the target's table, so an access
// that misses every attached region fails with ErrRMARange and nothing is
// ever written outside the pool.
const (
	dynSlots      = 1 << 14 // regions attached at once; the table is address space, touched as used
	dynSlotBytes  = 32      // addr, len, off, state: four uint64
	dynHeader     = 64      // uint64 high-water mark of used slots, uint64 generation, padding
	dynTableBytes = dynHeader + dynSlots*dynSlotBytes
)

type region struct {
	addr   int
	buf    []byte // private copy: the caller's memory
	off    int    // public copy's offset in the allocation
	slot   int
	shadow []byte
}

type dynamic struct {
	mem     []byte // this PE's allocation (table + pool)
	regions []region
	used    []bool   // table slots in use
	cache   []dynHit // per target: the region of the last lookup
}

// dynHit is a region found in a target's table, valid while the table's
// generation stays gen.
type dynHit struct {
	gen, addr, n, off uint64
	ok                bool
}

func newDynamic(mem []byte, n int) *dynamic {
	// The allocation is zeroed already (AllocSymmetric): the table's
	// untouched pages cost nothing.
	return &dynamic{mem: mem, cache: make([]dynHit, n), used: make([]bool, dynSlots)}
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
// operations on it are synchronized. ErrRMAAttach when the window's pool
// (info key gshmem_dynamic_pool) or its table of 16384 regions is full.
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
	off, ok := d.place(addr, len(b))
	if !ok {
		return errorf(compat.ClassRMAAttach, "no room for %d bytes in the dynamic pool of %d bytes (info key %s)",
			len(b), len(d.mem)-dynTableBytes, InfoDynamicPool)
	}
	copy(d.mem[off:off+len(b)], b)
	r := region{addr: addr, buf: b, off: off, slot: slot, shadow: slices.Clone(b)}
	d.regions = append(d.regions, r)
	d.used[slot] = true
	so := dynHeader + slot*dynSlotBytes
	atomic.StoreUint64(d.u64(so), uint64(addr))
	atomic.StoreUint64(d.u64(so+8), uint64(len(b)))
	atomic.StoreUint64(d.u64(so+16), uint64(off))
	atomic.StoreUint64(d.u64(so+24), 1)
	if hw := d.u64(0); atomic.LoadUint64(hw) < uint64(slot+1) {
		atomic.StoreUint64(hw, uint64(slot+1))
	}
	atomic.AddUint64(d.u64(8), 1) // origins' cached lookups are stale
	return nil
}

// Detach removes memory attached with Attach (MPI_Win_detach), named by
// the same buffer. Its contents are brought up to date with the public
// copy first.
func Detach[T compat.Elem](win *Win, buf []T) error {
	if err := win.dynCheck(); err != nil {
		return err
	}
	d := win.dyn
	addr := Address(buf)
	i := slices.IndexFunc(d.regions, func(r region) bool { return r.addr == addr && addr != 0 })
	if i < 0 {
		return errorf(compat.ClassRMAAttach, "memory at %#x is not attached", addr)
	}
	r := &d.regions[i]
	reconcile(r.buf, d.mem[r.off:r.off+len(r.buf)], r.shadow, true, true)
	atomic.StoreUint64(d.u64(dynHeader+r.slot*dynSlotBytes+24), 0)
	d.used[r.slot] = false
	atomic.AddUint64(d.u64(8), 1)
	d.regions = slices.Delete(d.regions, i, i+1)
	return nil
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

// place finds pool space for n bytes whose offset has the same alignment
// modulo 16 as addr, so that elements aligned in the caller's buffer are
// aligned in the public copy too (and get hardware atomics).
func (d *dynamic) place(addr, n int) (int, bool) {
	taken := make([]region, len(d.regions))
	copy(taken, d.regions)
	slices.SortFunc(taken, func(a, b region) int { return a.off - b.off })
	at := dynTableBytes
	fit := func(lo int) int { return lo + ((addr-lo)%16+16)%16 }
	for _, r := range taken {
		if o := fit(at); o+n <= r.off {
			return o, true
		}
		at = r.off + len(r.buf)
	}
	if o := fit(at); o+n <= len(d.mem) {
		return o, true
	}
	return 0, false
}

// lookup finds, in rank's table, the attached region holding
// [addr, addr+span) and returns its offset in the allocation.
func (win *Win) lookup(rank, addr, span int) (int, error) {
	m := &win.dataMem[rank]
	var table []byte
	var gen uint64
	hit := &win.dyn.cache[rank]
	if m.mapped != nil {
		table = m.mapped[:dynTableBytes]
		gen = atomic.LoadUint64((*uint64)(unsafe.Pointer(&table[8])))
		if hit.ok && hit.gen == gen {
			if a := uint64(addr) - hit.addr; uint64(addr) >= hit.addr && a <= hit.n && uint64(span) <= hit.n-a {
				return int(hit.off + a), nil
			}
		}
	} else {
		// The header, then only the slots below its high-water mark.
		head := make([]byte, dynHeader)
		if err := m.read(0, head); err != nil {
			return 0, wrap(err, "reading rank %d's attached regions", rank)
		}
		hw := int(min(binary.LittleEndian.Uint64(head), dynSlots))
		table = make([]byte, dynHeader+hw*dynSlotBytes)
		copy(table, head)
		if err := m.read(dynHeader, table[dynHeader:]); err != nil {
			return 0, wrap(err, "reading rank %d's attached regions", rank)
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
		if ld(so+24) != 1 {
			continue
		}
		a, n, off := ld(so), ld(so+8), ld(so+16)
		if uint64(addr) < a || uint64(addr)-a > n || uint64(span) > n-(uint64(addr)-a) {
			continue
		}
		// A torn read during a concurrent Detach must still not point
		// outside the pool.
		if off < dynTableBytes || off > limit || n > limit-off {
			continue
		}
		if m.mapped != nil {
			*hit = dynHit{gen: gen, addr: a, n: n, off: off, ok: true}
		}
		return int(off) + (addr - int(a)), nil
	}
	return 0, errorf(compat.ClassRMARange, "rank %d has no memory attached at [%#x, %#x)", rank, addr, addr+span)
}
