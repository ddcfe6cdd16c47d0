package shmem

// FCollect concatenates the first n elements of src of every member into
// dst on every member, in team PE order: dst[i*n:(i+1)*n] receives team PE
// i's elements (shmem_fcollect). Every member passes the same dst, src and
// n; dst needs n*NPEs() elements and must not overlap src. It returns when
// dst on this PE is complete and src may be reused.
//
// Up to a scratch half per PE (about 2 KiB), each PE copies its block into
// its team scratch before the entry barrier and then reads every member's:
// one barrier. Larger blocks are read straight from the members' src (loads
// on a mapped team, non-blocking gets otherwise, starting with the next PE
// so that readers spread over sources), then an exit barrier keeps every src
// in place until all have read.
func FCollect[T any](t *Team, dst, src Sym[T], n int) error {
	if err := t.usable(); err != nil {
		return err
	}
	var d desc
	dataDesc(&d, kFCollect, n, dst, src)
	np := len(t.members)
	nb := uint64(max(n, 0)) * elemSize[T]()
	var lerr error
	switch {
	case n < 0:
		lerr = errf(ErrInvalid, "FCollect of %d elements", n)
	default:
		if lerr = checkObj(t, src, "FCollect src", n); lerr == nil {
			lerr = checkObj(t, dst, "FCollect dst", n*np)
		}
		if lerr == nil && overlap(dst.off, nb*uint64(np), src.off, nb) {
			lerr = errf(ErrInvalid, "FCollect dst and src overlap")
		}
	}
	small := nb <= t.scrCap()
	dev := t.onDevice()
	par := t.open()
	if lerr == nil && small && nb > 0 && !dev {
		lerr = t.readMine(src.off, t.w.heap[t.scrData(par):t.scrData(par)+nb])
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if nb == 0 {
		return nil
	}
	if dev {
		return t.blocking(func(s uintptr) error { return t.w.dev.collFCollect(s, t.devTeam(), dst.off, src.off, nb) })
	}
	sizes := make([]uint64, np)
	for i := range sizes {
		sizes[i] = nb
	}
	return t.gather(dst.off, src.off, sizes, small, par)
}

// Collect concatenates the first n elements of src of every member into
// dst on every member, in team PE order, where n may differ between members
// (shmem_collect): team PE i's elements follow those of PEs 0..i-1. Every
// member passes the same dst and src; dst must hold the sum of the n's and
// must not overlap src. It returns when dst on this PE is complete and src
// may be reused.
//
// Each PE publishes its count in its team scratch (with its block, when the
// block fits) before the entry barrier; after it every PE reads all counts,
// so all see the same offsets and the same choice: if every block fitted,
// one barrier in all, else the blocks are read from the members' src and an
// exit barrier follows.
func Collect[T any](t *Team, dst, src Sym[T], n int) error {
	if err := t.usable(); err != nil {
		return err
	}
	var d desc
	dataDesc(&d, kCollect, 0, dst, src)
	sz := elemSize[T]()
	nb := uint64(max(n, 0)) * sz
	var lerr error
	if n < 0 {
		lerr = errf(ErrInvalid, "Collect of %d elements", n)
	} else if lerr = checkObj(t, src, "Collect src", n); lerr == nil {
		lerr = checkObj(t, dst, "Collect dst", 0)
	}
	w := t.w
	dev := t.onDevice()
	fits := nb <= t.scrCap() && !dev
	par := t.open()
	hdr := t.scrHdr(par)
	if lerr == nil {
		flag := uint64(0)
		if fits {
			flag = 1
			lerr = t.readMine(src.off, w.heap[t.scrData(par):t.scrData(par)+nb])
		}
		storeLocal(w.heap, hdr, nb)
		storeLocal(w.heap, hdr+8, flag)
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	np := len(t.members)
	words := make([]uint64, 2*np)
	f := t.fetch()
	for p := range np {
		if err := f.into(p, hdr, asBytes(words[2*p:2*p+2])); err != nil {
			return err
		}
	}
	if err := f.wait(); err != nil {
		return err
	}
	sizes := make([]uint64, np)
	var total uint64
	allFit := true
	for p := range np {
		sizes[p] = words[2*p]
		total += sizes[p]
		allFit = allFit && words[2*p+1] == 1
	}
	// Every member sees the same counts and (the descriptors agreed) the
	// same dst, so all return this error or none does.
	if sz != 0 && total > uint64(dst.n)*sz {
		return errf(ErrOutOfBounds, "Collect: the members contribute %d bytes in all, dst holds %d", total, uint64(dst.n)*sz)
	}
	// src is the same object everywhere, so every PE checks the same ranges.
	var largest uint64
	for _, s := range sizes {
		largest = max(largest, s)
	}
	if overlap(dst.off, total, src.off, largest) {
		return errf(ErrInvalid, "Collect dst and src overlap")
	}
	if total == 0 {
		return nil
	}
	if dev {
		ps := make([]piece, 0, np)
		at := dst.off
		for p, n := range sizes {
			ps = append(ps, piece{p, src.off, at, n})
			at += n
		}
		return t.pullDevice(w.dev.stream(), ps, true)
	}
	return t.gather(dst.off, src.off, sizes, allFit, par)
}

// gather copies team PE p's sizes[p] bytes (from its scratch when small,
// else from its src) to dst at the sum of the sizes before it.
func (t *Team) gather(dstOff, srcOff uint64, sizes []uint64, small bool, par uint64) error {
	np := len(t.members)
	at := make([]uint64, np+1)
	for p := range np {
		at[p+1] = at[p] + sizes[p]
	}
	from := srcOff
	if small {
		from = t.scrData(par)
	}
	if err := t.copyMine(dstOff+at[t.me], srcOff, sizes[t.me]); err != nil {
		return err
	}
	ps := make([]piece, 0, np-1)
	for i := 1; i < np; i++ {
		p := (t.me + i) % np
		ps = append(ps, piece{p, from, dstOff + at[p], sizes[p]})
	}
	if err := t.pull(ps); err != nil {
		return err
	}
	if small {
		return nil
	}
	return t.exitSync()
}
