package shmem

import (
	"github.com/gshmem/gshmem/internal/memcopy"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// bcastSeg is the pipelining unit of the tree broadcast.
const bcastSeg = 256 << 10

// Broadcast copies the first n elements of src on team PE root into dst on
// every member of the team, the root included (shmem_broadcast). Every
// member passes the same dst, src, n and root; src == dst is allowed (the
// root's data then stays in place), other overlaps are not. It returns when
// dst on this PE holds the data and, on the root, src may be reused. It does
// not complete other outstanding RMA.
//
// Up to a scratch half (about 2 KiB), the root copies src into its team
// scratch before the entry barrier and the others read it from there: one
// barrier. Larger broadcasts on a mapped team copy straight from the root's
// src, and each reader then signals the root, which returns once all have
// read. Without mappings the data goes down a binomial tree of puts, in
// 256 KiB segments, each followed by a signal to the child.
func Broadcast[T any](t *Team, dst, src Sym[T], n, root int) error {
	if err := t.usable(); err != nil {
		return err
	}
	var d desc
	dataDesc(&d, kBroadcast, n, dst, src)
	d[dRoot] = uint64(root)
	sz := elemSize[T]()
	nb := uint64(max(n, 0)) * sz
	lerr := checkBroadcast(t, dst, src, n, root)
	small := nb <= t.scrCap()
	dev := t.onDevice()
	par := t.open()
	if lerr == nil && small && t.me == root && nb > 0 && !dev {
		lerr = t.readMine(src.off, t.w.heap[t.scrData(par):t.scrData(par)+nb])
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if dev {
		return t.blocking(func(s uintptr) error {
			return t.w.dev.collBroadcast(s, t.devTeam(), root, dst.off, src.off, nb)
		})
	}
	return t.broadcast(dst.off, src.off, nb, root, small, par)
}

func checkBroadcast[T any](t *Team, dst, src Sym[T], n, root int) error {
	if n < 0 {
		return errf(ErrInvalid, "Broadcast of %d elements", n)
	}
	if root < 0 || root >= len(t.members) {
		return errf(ErrBadPE, "Broadcast root %d of a team of %d", root, len(t.members))
	}
	if err := checkObj(t, dst, "Broadcast dst", n); err != nil {
		return err
	}
	if err := checkObj(t, src, "Broadcast src", n); err != nil {
		return err
	}
	nb := uint64(n) * elemSize[T]()
	if dst.off != src.off && overlap(dst.off, nb, src.off, nb) {
		return errf(ErrInvalid, "Broadcast dst and src overlap without being the same object")
	}
	return nil
}

func (t *Team) broadcast(dstOff, srcOff, nb uint64, root int, small bool, par uint64) error {
	w := t.w
	if nb == 0 {
		return nil
	}
	if t.me == root {
		if err := t.copyMine(dstOff, srcOff, nb); err != nil {
			return err
		}
	}
	n := len(t.members)
	switch {
	case n == 1:
		return nil
	case small:
		if t.me == root {
			return nil
		}
		return t.pull([]piece{{root, t.scrData(par), dstOff, nb}})
	case t.direct:
		if t.me == root {
			t.bdoneRecv += uint64(n - 1)
			return t.waitGE(t.sigOff(sigBDone), t.bdoneRecv)
		}
		m := t.remote(root)
		memcopy.Copy(w.heap[dstOff:dstOff+nb], m[srcOff:srcOff+nb])
		return t.signal(root, sigBDone)
	default:
		return t.treeBroadcast(dstOff, srcOff, nb, root)
	}
}

// treeBroadcast pushes the data down a binomial tree rooted at root: team PE
// v (relative to the root) gets it from v minus its lowest set bit and
// forwards it to v+2^k for every 2^k below that bit, largest subtree first.
func (t *Team) treeBroadcast(dstOff, srcOff, nb uint64, root int) error {
	w := t.w
	n := len(t.members)
	v := mod(t.me-root, n)
	low := n // the lowest set bit of v; the root has none
	if v != 0 {
		low = v & -v
	}
	var kids []int
	for b := 1; b < low && v+b < n; b <<= 1 {
		kids = append(kids, (v+b+root)%n)
	}
	for i, j := 0, len(kids)-1; i < j; i, j = i+1, j-1 {
		kids[i], kids[j] = kids[j], kids[i]
	}
	from := dstOff
	if v == 0 {
		from = srcOff
	}
	nseg := (nb + bcastSeg - 1) / bcastSeg
	base := t.treeRecv
	sig := t.sigOff(sigTree)
	for s := uint64(0); s < nseg; s++ {
		lo, hi := s*bcastSeg, min(nb, (s+1)*bcastSeg)
		if v != 0 {
			if err := t.waitGE(sig, base+s+1); err != nil {
				return err
			}
		}
		if len(kids) == 0 {
			continue
		}
		data, err := t.mine(from+lo, int(hi-lo), 1)
		if err != nil {
			return err
		}
		for _, k := range kids {
			pe := t.members[k]
			if err := w.tr.Put(pe, dstOff+lo, data); err != nil {
				return err
			}
			if err := w.tr.Fence(); err != nil {
				return err
			}
			if _, err := w.tr.Atomic(pe, sig, 8, transport.OpAdd|transport.OpRuntime, 1, 0); err != nil {
				return err
			}
		}
	}
	if v != 0 {
		t.treeRecv += nseg
	}
	return nil
}
