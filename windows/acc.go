package windows

import (
	"bytes"
	"encoding/binary"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// Accumulate combines origin into target's window at disp (MPI_Accumulate):
// each target element becomes "target op origin". Every element is updated
// atomically with respect to other accumulates (Accumulate, GetAccumulate,
// FetchAndOp, CompareAndSwap) on it, so the same op from many PEs on the
// same location gives the exact result. OpNoOp is not allowed here.
func Accumulate[T compat.Elem](win *Win, origin []T, target, disp int, op compat.Op) error {
	if err := checkOp(op, mpitype.Of[T](), false); err != nil || target == compat.ProcNull {
		return err
	}
	return win.accContig(mpitype.Of[T](), mpitype.AsBytes(origin), nil, target, disp, op)
}

// accContig is the accumulate engine for contiguous buffers of one basic
// type; src is nil for NO_OP, res nil when nothing is fetched.
func (win *Win) accContig(b mpitype.Basic, src, res []byte, target, disp int, op compat.Op) error {
	raceSynced()
	defer raceWrote()
	if err := win.enter(target); err != nil {
		return err
	}
	if win.devWorld && win.anyDevice(src, res) {
		return win.hostStaged(src, res, func(s, r []byte) error { return win.accContig(b, s, r, target, disp, op) })
	}
	k := &kinds[b]
	n := max(len(src), len(res))
	m, off, err := win.locate(target, disp, n)
	if err != nil {
		return err
	}
	// Elements lie an extent apart; a pair with padding after its members
	// (MPI_DOUBLE_INT) updates its members alone, one message each where
	// the target is not mapped.
	step := b.Extent()
	if m.mapped == nil && step == k.size {
		return wrap(win.remoteAcc(target, m, off, b, op, src, nil, res), "accumulate at rank %d", target)
	}
	for i := 0; i+k.size <= n; i += step {
		var s, r []byte
		if src != nil {
			s = src[i : i+k.size]
		}
		if res != nil {
			r = res[i : i+k.size]
		}
		if err := win.applyElem(target, m, off+i, k, op, s, nil, r); err != nil {
			return wrap(err, "accumulate at rank %d", target)
		}
	}
	return nil
}

// AccumulateTyped is Accumulate with datatypes, as PutTyped.
func AccumulateTyped[T compat.Elem](win *Win, origin []T, ocount int, otype compat.Datatype, target, disp, tcount int, ttype compat.Datatype, op compat.Op) error {
	x, err := checkTypes(origin, ocount, otype, tcount, ttype, true, false)
	if err != nil {
		return err
	}
	if err := checkOpOn(op, x.tt.Basic(), false, tcount, ttype); err != nil || target == compat.ProcNull {
		return err
	}
	return win.accumulate(&x, nil, target, disp, op)
}

// GetAccumulate fetches len(result) elements at disp in target's window
// into result and combines origin into them, as one atomic step per
// element (MPI_Get_accumulate). With OpNoOp it is an atomic read and
// origin is ignored (may be nil); with OpReplace an atomic swap.
func GetAccumulate[T compat.Elem](win *Win, origin, result []T, target, disp int, op compat.Op) error {
	b := mpitype.Of[T]()
	if err := checkOp(op, b, true); err != nil {
		return err
	}
	src := mpitype.AsBytes(origin)
	if op == compat.OpNoOp {
		src = nil
	} else if len(origin) != len(result) {
		return errorf(compat.ClassArg, "GetAccumulate of %d origin elements into %d result elements", len(origin), len(result))
	}
	if target == compat.ProcNull {
		return nil
	}
	return win.accContig(b, src, mpitype.AsBytes(result), target, disp, op)
}

// GetAccumulateTyped is GetAccumulate with datatypes for the origin, the
// result and the target.
func GetAccumulateTyped[T compat.Elem](win *Win, origin []T, ocount int, otype compat.Datatype, result []T, rcount int, rtype compat.Datatype,
	target, disp, tcount int, ttype compat.Datatype, op compat.Op) error {
	r, err := checkTypes(result, rcount, rtype, tcount, ttype, false, true)
	if err != nil {
		return err
	}
	var o *xfer
	if op != compat.OpNoOp {
		x, err := checkTypes(origin, ocount, otype, tcount, ttype, true, false)
		if err != nil {
			return err
		}
		o = &x
	}
	if err := checkOpOn(op, r.tt.Basic(), true, tcount, ttype); err != nil || target == compat.ProcNull {
		return err
	}
	return win.accumulate(o, &r, target, disp, op)
}

// FetchAndOp is GetAccumulate of one element (MPI_Fetch_and_op): it returns
// the element's previous value.
func FetchAndOp[T compat.Elem](win *Win, origin T, target, disp int, op compat.Op) (T, error) {
	var old T
	b := mpitype.Of[T]()
	if err := checkOp(op, b, true); err != nil || target == compat.ProcNull {
		return old, err
	}
	err := win.one(b, target, disp, op, mpitype.AsBytes([]T{origin}), nil, mpitype.AsBytes(unsafe.Slice(&old, 1)))
	return old, err
}

// CompareAndSwap replaces the element at disp in target's window with
// origin if it equals compare, atomically (MPI_Compare_and_swap), and
// returns the value it held. T must be an integer, bool or byte type
// (ErrType otherwise).
func CompareAndSwap[T compat.Elem](win *Win, compare, origin T, target, disp int) (T, error) {
	var old T
	b := mpitype.Of[T]()
	if !kinds[b].cas {
		return old, errorf(compat.ClassType, "CompareAndSwap on %v: it takes integer, bool and byte types", b)
	}
	if target == compat.ProcNull {
		return old, nil
	}
	err := win.one(b, target, disp, compat.OpReplace, mpitype.AsBytes([]T{origin}), mpitype.AsBytes([]T{compare}), mpitype.AsBytes(unsafe.Slice(&old, 1)))
	return old, err
}

func (win *Win) one(b mpitype.Basic, target, disp int, op compat.Op, src, cmp, res []byte) error {
	raceSynced()
	defer raceWrote()
	if err := win.enter(target); err != nil {
		return err
	}
	k := &kinds[b]
	m, off, err := win.locate(target, disp, k.size)
	if err != nil {
		return err
	}
	return win.applyElem(target, m, off, k, op, src, cmp, res)
}

// accumulate runs op element by element; o is nil for NO_OP, r nil when
// nothing is fetched.
func (win *Win) accumulate(o, r *xfer, target, disp int, op compat.Op) error {
	raceSynced()      // race builds: what peers wrote before is ordered before this
	defer raceWrote() // and this before the target's next synchronization
	if err := win.enter(target); err != nil {
		return err
	}
	if win.devWorld {
		var ob, rb []byte
		if o != nil {
			ob = o.buf
		}
		if r != nil {
			rb = r.buf
		}
		if t := r; (o == nil || o.ot.Contiguous()) && (r == nil || r.ot.Contiguous()) {
			// Contiguous on the origin side: one update of the whole range
			// (on GPU memory one locked read-modify-write, not one per
			// element).
			if o != nil {
				t = o
			}
			if t.tt.Contiguous() {
				if o != nil {
					ob = ob[:o.bytes]
				}
				if r != nil {
					rb = rb[:r.bytes]
				}
				return win.accContig(t.tt.Basic(), ob, rb, target, disp, op)
			}
		}
		if win.anyDevice(ob, rb) {
			return win.hostStaged(ob, rb, func(s, res []byte) error {
				o2, r2 := withBuf(o, s), withBuf(r, res)
				return win.accumulate(o2, r2, target, disp, op)
			})
		}
	}
	t := r
	if o != nil {
		t = o
	}
	m, off, err := win.locateType(target, disp, t.tt, t.tcount)
	if err != nil {
		return err
	}
	tc := t.tt.Cursor(t.tcount)
	var oc, rc mpitype.Cursor
	if o != nil {
		oc = o.ot.Cursor(o.ocount)
	}
	if r != nil {
		rc = r.ot.Cursor(r.ocount)
	}
	// Element by element, each of the basic type the target's signature
	// gives (several, for REPLACE and NO_OP on a mixed map).
	var first error
	t.tt.EachSeg(t.tcount, func(s mpitype.Seg) bool {
		k := &kinds[s.B]
		sz, data := k.size, s.B.Size()
		var gap [32]byte // the result of an element with padding inside (MPI_SHORT_INT)
		for range s.N {
			to := elemAt(&tc, data)
			var src, res []byte
			if o != nil {
				oo := elemAt(&oc, data)
				src = o.buf[oo : oo+sz]
			}
			var ro int
			if r != nil {
				ro = elemAt(&rc, data)
				res = r.buf[ro : ro+sz]
				if sz != data {
					res = gap[:sz]
				}
			}
			if err := win.applyElem(target, m, off+to, k, op, src, nil, res); err != nil {
				first = wrap(err, "accumulate at rank %d", target)
				return false
			}
			if r != nil && sz != data { // the members only, not the padding between
				v, _, _ := s.B.Pair()
				copy(r.buf[ro:ro+v.Size()], res)
				copy(r.buf[ro+sz-(data-v.Size()):ro+sz], res[sz-(data-v.Size()):])
			}
		}
		return true
	})
	return first
}

// elemAt returns the offset of the next element of data bytes at c and
// steps past it: one piece, or a pair's two members where padding lies
// between them (MPI_SHORT_INT), which the element's Span covers.
func elemAt(c *mpitype.Cursor, data int) int {
	off, n := c.Next(data)
	for got := n; got < data && n > 0; got += n {
		_, n = c.Next(data - got)
	}
	return off
}

// applyElem updates one element at off of m atomically: with op and the
// operand src, or, when cmp is not nil, by replacing it with src if it
// equals cmp. The previous value goes to res if not nil. Elements of 1, 2,
// 4 and 8 bytes that are naturally aligned use a hardware atomic on mapped
// memory where one does the op (hwAtomic), else a compare-and-swap loop on
// the aligned 4- or 8-byte word holding them; others take a stripe lock
// of rank's control area. A target whose memory is not mapped here gets
// the update as one message (remoteAcc).
func (win *Win) applyElem(rank int, m *rmem, off int, k *kind, op compat.Op, src, cmp, res []byte) error {
	if m.mapped == nil {
		return win.remoteAcc(rank, m, off, k.basic, op, src, cmp, res)
	}
	sz := k.size
	if m.mapped != nil && sz <= 8 && sz&(sz-1) == 0 && off%sz == 0 && hwAtomic(m, off, k, op, src, cmp, res) {
		return nil
	}
	var opnd [4]uint64 // aligned copy of the operand
	ob := unsafe.Slice((*byte)(unsafe.Pointer(&opnd)), 32)[:k.size]
	copy(ob, src)
	word, width := -1, 0
	switch {
	case sz <= 2 && off%sz == 0:
		word, width = off&^3, 4
	case (sz == 4 || sz == 8) && off%sz == 0:
		word, width = off, sz
	}
	if word < 0 {
		return win.lockedElem(rank, m, off, k, op, ob, cmp, res)
	}
	shift := off - word
	for {
		var old uint64
		var err error
		if width == 4 {
			var v uint32
			v, err = m.load32(word)
			old = uint64(v)
		} else {
			old, err = m.load64(word)
		}
		if err != nil {
			return err
		}
		var cur [1]uint64
		cb := unsafe.Slice((*byte)(unsafe.Pointer(&cur)), 8)
		binary.LittleEndian.PutUint64(cb, old)
		e := cb[shift : shift+sz]
		copy(res, e)
		if !combine(k, op, e, ob, cmp) {
			return nil
		}
		nv := binary.LittleEndian.Uint64(cb)
		if nv == old {
			return nil
		}
		var prev uint64
		if width == 4 {
			var v uint32
			v, err = m.cas32(word, uint32(old), uint32(nv))
			prev = uint64(v)
		} else {
			prev, err = m.cas64(word, old, nv)
		}
		if err != nil || prev == old {
			return err
		}
	}
}

// hwAtomic does what one hardware atomic can, through the core's one
// switch (shmem.Mapped.Apply, which also wakes the target's waiters): a
// fetch, swap or compare-and-swap, and an integer add, and, or or xor, on
// an aligned element of 1, 2, 4 or 8 bytes of mapped memory. It reports
// false for anything else.
func hwAtomic(m *rmem, off int, k *kind, op compat.Op, src, cmp, res []byte) bool {
	var aop shmem.AtomicOp
	switch {
	case cmp != nil:
		aop = shmem.AtomicCompareAndSwap
	case op == compat.OpNoOp:
		aop = shmem.AtomicLoad
	case op == compat.OpReplace && k.size != k.basic.Size():
		return false // padding inside (MPI_SHORT_INT): the members only, not a swap
	case op == compat.OpReplace:
		aop = shmem.AtomicSwap
	case !k.isInt:
		return false
	case op == compat.OpSum:
		aop = shmem.AtomicAdd
	case op == compat.OpBand:
		aop = shmem.AtomicAnd
	case op == compat.OpBor:
		aop = shmem.AtomicOr
	case op == compat.OpBxor:
		aop = shmem.AtomicXor
	default:
		return false
	}
	old, err := m.heap.Apply(m.ptr(off), k.size, aop, elemBits(src), elemBits(cmp))
	if err != nil {
		return false
	}
	if res != nil {
		var b [8]byte
		binary.NativeEndian.PutUint64(b[:], old)
		if littleEndian {
			copy(res, b[:len(res)])
		} else {
			copy(res, b[8-len(res):]) // the low bytes come last
		}
	}
	return true
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// elemBits returns the element b (1 to 8 bytes, or nil) as the low bits
// of a word.
func elemBits(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.NativeEndian.Uint16(b))
	case 4:
		return uint64(binary.NativeEndian.Uint32(b))
	case 8:
		return binary.NativeEndian.Uint64(b)
	}
	return 0
}

// combine updates the element e (aligned) and reports whether it may have
// changed.
func combine(k *kind, op compat.Op, e, src, cmp []byte) bool {
	if cmp != nil {
		if !bytes.Equal(e, cmp) {
			return false
		}
		copy(e, src)
		return true
	}
	if op == compat.OpNoOp {
		return false
	}
	apply(k.basic, op, ptrOf(e), ptrOf(src))
	return true
}

func (win *Win) lockedElem(rank int, m *rmem, off int, k *kind, op compat.Op, src, cmp, res []byte) error {
	if err := win.stripeLock(rank, off); err != nil {
		return err
	}
	var cur [4]uint64
	e := unsafe.Slice((*byte)(unsafe.Pointer(&cur)), 32)[:k.size]
	err := m.read(off, e)
	if err == nil {
		copy(res, e)
		if combine(k, op, e, src, cmp) {
			err = m.write(off, e)
		}
	}
	if uerr := win.stripeUnlock(rank, off); err == nil {
		err = uerr
	}
	return err
}

// remoteAcc updates elements of a rank whose memory is not mapped here
// through the core's Accumulate: one message, applied whole at the target
// under the same hardware atomics and stripe locks (rank's, at the same
// stripes) as the mapped path. One that fetches nothing completes at the
// next Flush, as a Put does.
func (win *Win) remoteAcc(rank int, m *rmem, off int, b mpitype.Basic, op compat.Op, src, cmp, res []byte) error {
	n := max(len(src), len(res))
	if op == compat.OpNoOp {
		src = nil
	}
	if m.dev != 0 {
		return win.devAcc(rank, m, off, b, op, src, cmp, res)
	}
	c := &win.ctrlMem[rank]
	return win.world.Accumulate(m.pe, &shmem.Update{
		Dst: m.sym.Slice(off, off+n), Type: uint8(b), Op: uint8(op), Src: src, Cmp: cmp, Res: res,
		Locks: c.sym.Slice(ctrlStripes, ctrlStripes+4*nStripes), Phase: off,
	})
}
