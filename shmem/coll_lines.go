package shmem

import "unsafe"

// lineCall is a reduction small enough to ride in the lines of the entry
// barrier, with its descriptor and the descriptor's hash. The team keeps
// the last one that passed its checks: loops repeat the same small
// reduction, and for a few bytes the checks, the descriptor and its hash
// cost about as much as the barrier itself.
type lineCall struct {
	typ      unsafe.Pointer // identifies the element type (see typeID)
	op       ReduceOp
	n        int
	dst, src symID
	nb       int // bytes reduced
	d        desc
	hash     uint32
	fold     lineFold
}

// repeats reports whether a call is the one c holds and its objects are
// still live (the team's usability is checked by the caller). The Syms
// come by pointer and are compared field by field: copies of them cost
// more than the comparisons.
func repeats[T Reducible](c *lineCall, op ReduceOp, n int, dst, src *Sym[T]) bool {
	return c.typ == typeID[T]() && c.op == op && c.n == n && isObj(&c.dst, dst) && isObj(&c.src, src) &&
		dst.w.objs.live(dst.slot, dst.gen) && src.w.objs.live(src.slot, src.gen)
}

// symID is a Sym less its element type.
type symID struct {
	w         *World
	off       uint64
	n         int
	slot, gen uint32
}

func idOf[T any](s Sym[T]) symID { return symID{s.w, s.off, s.n, s.slot, s.gen} }

func isObj[T any](k *symID, s *Sym[T]) bool {
	return k.w == s.w && k.off == s.off && k.n == s.n && k.slot == s.slot && k.gen == s.gen
}

// typeID identifies T by the type word of a *T in an interface: a load
// from the generic dictionary, where reflect.TypeFor and Kind cost calls.
func typeID[T any]() unsafe.Pointer {
	var p any = (*T)(nil)
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&p))[0]
}

// reduceInLines runs c (with local error lerr, nil when c passed its
// checks) in the lines of the entry barrier of a power-of-two team: one
// barrier is the whole collective, and on a mapped team it moves no more
// cache lines than a barrier does. The partial results stay private until
// every member is known to have made the same call, so a mismatch leaves
// dst untouched. Like barrier, a checked call outside GSHMEM_DEBUG sends
// its hash without building the descriptor again.
func reduceInLines(t *Team, c *lineCall, lerr error) error {
	t.open()
	acc := asBytes(t.lineAcc[:])[:c.nb]
	if lerr == nil {
		if t.hostHeap {
			// A few bytes: copy them, where readMine (and writeMine
			// below) take two calls more.
			copy(acc, t.w.heap[c.src.off:])
		} else {
			lerr = t.readMine(c.src.off, acc)
		}
	}
	if lerr != nil || t.w.opts.Debug != "" {
		d := c.d
		if err := t.agreeFold(&d, lerr, acc, c.fold); err != nil {
			return err
		}
	} else if same, err := t.exchange(c.hash, acc, c.fold); err != nil || !same {
		if err != nil {
			return err
		}
		d := c.d
		d[dSeq] = t.cseq
		return t.mismatch(d, "", -1)
	}
	if !t.hostHeap {
		return t.writeMine(c.dst.off, acc)
	}
	copy(t.w.heap[c.dst.off:], acc)
	return nil
}

// lineFold combines in, a partner's partial result, into acc with the
// call's op, for elements of the call's type: acc = acc op in.
type lineFold func(acc, in []byte)

func foldLines[T Reducible](op ReduceOp) lineFold {
	return func(acc, in []byte) { combine(op, viewAs[T](acc), viewAs[T](in)) }
}
