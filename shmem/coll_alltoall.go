package shmem

// Alltoall exchanges blocks of n elements between all members
// (shmem_alltoall): block j of src on team PE i (elements j*n..j*n+n-1)
// lands in block i of dst on team PE j. Every member passes the same dst,
// src and n; both need n*NPEs() elements and must not overlap. It returns
// when dst on this PE is complete and src may be reused.
//
// When a PE's whole src (n*NPEs() elements) fits a scratch half (about
// 2 KiB), it is staged there before the entry barrier and the blocks are
// read from the scratch: one barrier. Otherwise each PE reads its block
// straight from every member's src (loads on a mapped team, non-blocking
// gets otherwise, starting with the next PE) and an exit barrier keeps the
// sources in place until all have read.
func Alltoall[T any](t *Team, dst, src Sym[T], n int) error {
	if err := t.usable(); err != nil {
		return err
	}
	var d desc
	dataDesc(&d, kAlltoall, n, dst, src)
	np := len(t.members)
	blk := uint64(max(n, 0)) * elemSize[T]()
	all := blk * uint64(np)
	var lerr error
	if n < 0 {
		lerr = errf(ErrInvalid, "Alltoall of %d elements", n)
	} else if lerr = checkObj(t, src, "Alltoall src", min(n, src.n+1)*np); lerr == nil {
		if lerr = checkObj(t, dst, "Alltoall dst", n*np); lerr == nil && overlap(dst.off, all, src.off, all) {
			lerr = errf(ErrInvalid, "Alltoall dst and src overlap")
		}
	}
	w := t.w
	small := all <= t.scrCap()
	dev := t.onDevice()
	par := t.open()
	if lerr == nil && small && all > 0 && !dev {
		lerr = t.readMine(src.off, w.heap[t.scrData(par):t.scrData(par)+all])
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if blk == 0 {
		return nil
	}
	if dev {
		return t.pullDevice(w.dev.stream(), alltoallPieces(t, dst.off, src.off, blk), true)
	}
	from := src.off
	if small {
		from = t.scrData(par)
	}
	me := uint64(t.me)
	if err := t.copyMine(dst.off+me*blk, src.off+me*blk, blk); err != nil {
		return err
	}
	ps := make([]piece, 0, np-1)
	for i := 1; i < np; i++ {
		p := (t.me + i) % np
		ps = append(ps, piece{p, from + me*blk, dst.off + uint64(p)*blk, blk})
	}
	if err := t.pull(ps); err != nil {
		return err
	}
	if small {
		return nil
	}
	return t.exitSync()
}

// Alltoalls is Alltoall over strided data (shmem_alltoalls): team PE i
// sends elements src[(j*n+k)*srcStride], k = 0..n-1, to team PE j, which
// stores them at dst[(i*n+k)*dstStride]. Strides are in elements and at
// least 1; with both 1 it is Alltoall. Every member passes the same
// arguments. It returns when dst on this PE is complete and src may be
// reused.
//
// Small exchanges (n*NPEs() elements within a scratch half) are packed
// contiguously into the sender's scratch before the entry barrier and
// unpacked by the receivers: one barrier. Larger ones are read element by
// element from the members' src (loads on a mapped team; without mappings,
// one get of the block's span when the stride is at most 4, else one get per
// element), followed by an exit barrier.
func Alltoalls[T any](t *Team, dst, src Sym[T], dstStride, srcStride, n int) error {
	if err := t.usable(); err != nil {
		return err
	}
	var d desc
	dataDesc(&d, kAlltoalls, n, dst, src)
	d[dArgs], d[dArgs+1] = uint64(dstStride), uint64(srcStride)
	np := len(t.members)
	sz := elemSize[T]()
	span := func(stride int) int { // elements an object needs
		if n <= 0 {
			return 0
		}
		return (np*n-1)*stride + 1
	}
	var lerr error
	switch {
	case n < 0 || dstStride < 1 || srcStride < 1:
		lerr = errf(ErrInvalid, "Alltoalls of %d elements with strides %d and %d", n, dstStride, srcStride)
	case n > 0 && (n > src.n || n > dst.n || srcStride > src.n || dstStride > dst.n):
		lerr = errf(ErrOutOfBounds, "Alltoalls of %d elements with strides %d and %d over objects of %d and %d",
			n, dstStride, srcStride, dst.n, src.n)
	default:
		if lerr = checkObj(t, src, "Alltoalls src", span(srcStride)); lerr == nil {
			lerr = checkObj(t, dst, "Alltoalls dst", span(dstStride))
		}
		if lerr == nil && overlap(dst.off, uint64(span(dstStride))*sz, src.off, uint64(span(srcStride))*sz) {
			lerr = errf(ErrInvalid, "Alltoalls dst and src overlap")
		}
	}
	w := t.w
	total := uint64(max(n, 0)*np) * sz
	small := total <= t.scrCap()
	par := t.open()
	if lerr == nil && small && total > 0 {
		packed := viewAs[T](w.heap[t.scrData(par) : t.scrData(par)+total])
		b, err := t.mine(src.off, span(srcStride)*int(sz), 0)
		in := viewAs[T](b)
		for i := range packed {
			if err != nil {
				lerr = err
				break
			}
			packed[i] = in[i*srcStride]
		}
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if total == 0 {
		return nil
	}
	// This PE's src and dst, staged when the heap is on a GPU (dst then
	// goes back whole, so the elements between the strided ones keep their
	// values).
	outB, err := t.mine(dst.off, span(dstStride)*int(sz), np)
	if err != nil {
		return err
	}
	mineB, err := t.mine(src.off, span(srcStride)*int(sz), np+1)
	if err != nil {
		return err
	}
	out, mine := viewAs[T](outB), viewAs[T](mineB)
	f := t.fetch()
	blk := n * int(sz)
	type pending struct {
		p      int
		buf    []T
		stride int
	}
	var later []pending
	for i := range np {
		p := (t.me + i) % np
		o := out[p*n*dstStride:]
		if p == t.me {
			for k := range n {
				o[k*dstStride] = mine[(t.me*n+k)*srcStride]
			}
			continue
		}
		if small {
			b, err := f.view(p, t.scrData(par)+uint64(t.me*blk), blk, t.buf(len(later), blk))
			if err != nil {
				return err
			}
			later = append(later, pending{p, viewAs[T](b), 1})
			continue
		}
		first := src.off + uint64(t.me*n*srcStride)*sz
		if m := t.remote(p); m != nil {
			in := viewAs[T](m[first : first+uint64((n-1)*srcStride+1)*sz])
			for k := range n {
				o[k*dstStride] = in[k*srcStride]
			}
			continue
		}
		if srcStride <= 4 {
			nbytes := ((n-1)*srcStride + 1) * int(sz)
			b, err := f.view(p, first, nbytes, t.buf(len(later), nbytes))
			if err != nil {
				return err
			}
			later = append(later, pending{p, viewAs[T](b), srcStride})
			continue
		}
		b := t.buf(len(later), blk)
		for k := range n {
			if err := f.into(p, first+uint64(k*srcStride)*sz, b[k*int(sz):(k+1)*int(sz)]); err != nil {
				return err
			}
		}
		later = append(later, pending{p, viewAs[T](b), 1})
	}
	if err := f.wait(); err != nil {
		return err
	}
	for _, l := range later {
		o := out[l.p*n*dstStride:]
		for k := range n {
			o[k*dstStride] = l.buf[k*l.stride]
		}
	}
	if !t.hostHeap {
		if err := t.writeMine(dst.off, outB); err != nil {
			return err
		}
	}
	if small {
		return nil
	}
	return t.exitSync()
}
