package windows

import (
	"os"

	"github.com/gshmem/gshmem/compat"
)

// The pool of a dynamic window on process PEs (dynamic.go): attached
// pages moved onto heap pages laid out by address, granule by granule.

// poolOff is the offset in the allocation of the pool page that holds
// address p, whose granule has a slot.
func (d *dynamic) poolOff(p uintptr) int {
	g := uintptr(d.gran)
	return d.pool + d.slotOf[p/g]*d.gran + int(p%g)
}

// granules gives the granules k0..k1 consecutive slots of the pool:
// those that have one fix where the others go. It returns the granules it
// gave a slot, for an undo.
func (d *dynamic) granules(k0, k1 uintptr) ([]uintptr, error) {
	n := int(k1-k0) + 1
	start := -1
	for k := k0; k <= k1; k++ {
		if s, ok := d.slotOf[k]; ok {
			st := s - int(k-k0)
			if (start >= 0 && st != start) || st < 0 || st+n > len(d.slots) {
				return nil, d.noRoom(n)
			}
			start = st
		}
	}
	if start < 0 {
		start = d.freeRun(k0, k1)
	}
	if start < 0 {
		return nil, d.noRoom(n)
	}
	for i := range n {
		if v := d.slots[start+i]; v != 0 && v != k0+uintptr(i)+1 {
			return nil, d.noRoom(n)
		}
	}
	var fresh []uintptr
	for i := range n {
		k := k0 + uintptr(i)
		if d.slots[start+i] == 0 {
			d.slots[start+i] = k + 1
			d.slotOf[k] = start + i
			fresh = append(fresh, k)
		}
	}
	return fresh, nil
}

func (d *dynamic) noRoom(n int) error {
	return errorf(compat.ClassRMAAttach, "no room for %d more granules of %d bytes in the dynamic pool of %d bytes (info key %s): detach memory or ask for a larger pool",
		n, d.gran, len(d.slots)*d.gran, InfoDynamicPool)
}

// freeRun picks n free consecutive slots for granules k0..k1, none of
// which has one: beside a neighbouring granule's slot when they can be
// (so that a later region across the boundary finds them consecutive),
// else in the middle of the largest free stretch, leaving room on both
// sides. -1 when no stretch is long enough.
func (d *dynamic) freeRun(k0, k1 uintptr) int {
	n := int(k1-k0) + 1
	free := func(s int) bool {
		if s < 0 || s+n > len(d.slots) {
			return false
		}
		for i := range n {
			if d.slots[s+i] != 0 {
				return false
			}
		}
		return true
	}
	if s, ok := d.slotOf[k0-1]; ok && free(s+1) {
		return s + 1
	}
	if s, ok := d.slotOf[k1+1]; ok && free(s-n) {
		return s - n
	}
	best, bestLen := -1, 0
	for s := 0; s < len(d.slots); {
		if d.slots[s] != 0 {
			s++
			continue
		}
		e := s
		for e < len(d.slots) && d.slots[e] == 0 {
			e++
		}
		if e-s > bestLen {
			best, bestLen = s, e-s
		}
		s = e
	}
	if bestLen < n {
		return -1
	}
	return best + (bestLen-n)/2
}

// freeGranules lets go of the slots of granules among ks that hold no
// adopted page.
func (d *dynamic) freeGranules(ks []uintptr) {
	for _, k := range ks {
		if s, ok := d.slotOf[k]; ok && d.gpages[k] == 0 {
			d.slots[s] = 0
			delete(d.slotOf, k)
		}
	}
}

// adoptRegion moves the pages holding b onto pool pages (those it shares
// with regions attached before are there already) and returns b's offset
// in the allocation.
func (win *Win) adoptRegion(b []byte) (int, error) {
	d, w := win.dyn, win.world
	if !w.CanAdopt() {
		return 0, errorf(compat.ClassRMAAttach, "this World's heap cannot take attached pages")
	}
	lo, hi := pageRange(b)
	g := uintptr(d.gran)
	fresh, err := d.granules(lo/g, (hi-1)/g)
	if err != nil {
		return 0, err
	}
	page := uintptr(os.Getpagesize())
	var done [][2]uintptr
	fail := func(err error) (int, error) {
		for _, r := range done {
			_ = win.returnRun(r[0], r[1])
		}
		d.freeGranules(fresh)
		return 0, err
	}
	for p := lo; p < hi; {
		if d.refs[p] > 0 {
			p += page
			continue
		}
		q := p
		for q < hi && d.refs[q] == 0 {
			q += page
		}
		if !w.Adoptable(p, int(q-p)) {
			return fail(errorf(compat.ClassRMAAttach, "memory at %#x is not private writable memory of this process (a file or shared mapping cannot be attached)", p))
		}
		if !claim(p, q) {
			return fail(errorf(compat.ClassRMAAttach, "memory at %#x shares a page with another window's memory", p))
		}
		off := d.poolOff(p)
		if err := w.AdoptPages(win.data.Slice(off, off+int(q-p)), p); err != nil {
			unclaim(p, q)
			return fail(wrap(err, "moving attached pages into shared memory"))
		}
		done = append(done, [2]uintptr{p, q})
		p = q
	}
	for p := lo; p < hi; p += page {
		if d.refs[p] == 0 {
			d.gpages[p/g]++
		}
		d.refs[p]++
	}
	return d.poolOff(lo) + int(uintptr(Address(b))-lo), nil
}

// releaseRegion lets go of b's pages: those no other region holds get
// their own private memory back.
func (win *Win) releaseRegion(b []byte) error {
	d := win.dyn
	lo, hi := pageRange(b)
	g := uintptr(d.gran)
	page := uintptr(os.Getpagesize())
	var first error
	for p := lo; p < hi; {
		if d.refs[p] > 1 {
			d.refs[p]--
			p += page
			continue
		}
		q := p
		for q < hi && d.refs[q] <= 1 {
			delete(d.refs, q)
			d.gpages[q/g]--
			q += page
		}
		if err := win.returnRun(p, q); err != nil && first == nil {
			first = err
		}
		p = q
	}
	var ks []uintptr
	for k := lo / g; k <= (hi-1)/g; k++ {
		if d.gpages[k] == 0 {
			delete(d.gpages, k)
		}
		ks = append(ks, k)
	}
	d.freeGranules(ks)
	return first
}

// returnRun gives the adopted pages [p, q) their own memory back.
func (win *Win) returnRun(p, q uintptr) error {
	off := win.dyn.poolOff(p)
	err := win.world.ReturnPages(win.data.Slice(off, off+int(q-p)), p)
	unclaim(p, q)
	return wrap(err, "giving attached pages back")
}
