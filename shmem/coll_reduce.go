package shmem

import (
	"math/bits"
	"reflect"
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// ReduceOp is the operation of a reduction.
type ReduceOp uint8

// The reduction operations (OpenSHMEM's and, or, xor, min, max, sum, prod
// reductions). And, Or and Xor apply to integer types only.
const (
	ReduceSum ReduceOp = iota
	ReduceProd
	ReduceMin
	ReduceMax
	ReduceAnd
	ReduceOr
	ReduceXor
)

func (op ReduceOp) String() string {
	if op > ReduceXor {
		return "ReduceOp(?)"
	}
	return [...]string{"sum", "prod", "min", "max", "and", "or", "xor"}[op]
}

// Reducible is the set of element types reductions accept: every integer,
// float and complex type (OpenSHMEM's reduction types, less long double).
// Complex types take ReduceSum and ReduceProd only, as in OpenSHMEM.
type Reducible interface {
	ordered | ~complex64 | ~complex128
}

// ordered is the reducible types that min and max apply to.
type ordered interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

func checkOp[T Reducible](op ReduceOp) error {
	if op > ReduceXor {
		return errf(ErrInvalid, "reduction op %d", op)
	}
	switch k := reflect.TypeFor[T]().Kind(); {
	case op >= ReduceAnd && (k == reflect.Float32 || k == reflect.Float64 || isFloat2[T]()):
		return errf(ErrInvalid, "%s reduction of %v: bitwise ops need an integer type", op, reflect.TypeFor[T]())
	case op > ReduceProd && (k == reflect.Complex64 || k == reflect.Complex128):
		return errf(ErrInvalid, "%s reduction of %v: complex types take sum and prod only", op, reflect.TypeFor[T]())
	}
	return nil
}

// Reduce combines the first n elements of src across the members with op
// and leaves the result in dst on every member (OpenSHMEM's
// shmem_<op>_reduce, an all-reduce): dst[i] = src_0[i] op src_1[i] op ...
// over team PEs 0..NPEs()-1. Every member passes the same dst, src, n and
// op. dst and src may be the same object (in place) but may not overlap
// otherwise. Every member gets bitwise the same result. It returns when dst
// on this PE holds the result and src may be reused.
//
// Up to 56 bytes on a team whose size is a power of two ride in the lines
// of the entry barrier itself (recursive doubling, each pair folding the
// lower block into the upper): the reduction costs what a barrier costs.
// Otherwise, on a mapped team: up to a scratch half (about 2 KiB) each PE
// stages src in its team scratch before the entry barrier and then folds
// every member's copy, in team order, into dst: one barrier. Larger
// reductions split dst into one slice per PE; each PE folds its slice from
// every member's src, in blocks, and stores the block into every member's
// dst; an exit barrier ends it. Without mappings: small ones use recursive
// doubling (pairs of PEs put partial results into each other's scratch,
// with the non-power-of-two remainder folded in first), larger ones a ring
// (a reduce-scatter and then an allgather, each PE getting its left
// neighbour's chunk), which needs no scratch and works in place.
func Reduce[T Reducible](t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	if err := t.usable(); err != nil {
		return err
	}
	if t.onDevice() {
		return reduceDevice(t, op, dst, src, n)
	}
	if c := &t.lines; repeats(c, op, n, &dst, &src) {
		return reduceInLines(t, c, nil)
	}
	return reduce(t, op, dst, src, n)
}

// reduceDesc describes a Reduce and checks its arguments on this PE.
func reduceDesc[T Reducible](t *Team, op ReduceOp, dst, src Sym[T], n int) (desc, error) {
	var d desc
	dataDesc(&d, kReduce, n, dst, src)
	d[dOp] = uint64(op)
	nb := uint64(max(n, 0)) * elemSize[T]()
	lerr := checkOp[T](op)
	if lerr == nil && t.onDevice() {
		lerr = checkDevOp[T](op)
	}
	if lerr == nil && n < 0 {
		lerr = errf(ErrInvalid, "Reduce of %d elements", n)
	}
	if lerr == nil {
		if lerr = checkObj(t, src, "Reduce src", n); lerr == nil {
			lerr = checkObj(t, dst, "Reduce dst", n)
		}
	}
	if lerr == nil && dst.off != src.off && overlap(dst.off, nb, src.off, nb) {
		lerr = errf(ErrInvalid, "Reduce dst and src overlap without being the same object")
	}
	return d, lerr
}

// reduce is Reduce on a usable team, less the shortcut for a repeated
// small call.
func reduce[T Reducible](t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	d, lerr := reduceDesc(t, op, dst, src, n)
	sz := elemSize[T]()
	nb := uint64(max(n, 0)) * sz
	w := t.w
	np := len(t.members)
	if np > 1 && np&(np-1) == 0 && nb > 0 && nb <= lineData {
		c := &lineCall{}
		if lerr == nil { // the next equal call may skip the checks
			c = &t.lines
		}
		*c = lineCall{typ: typeID[T](), op: op, n: n, dst: idOf(dst), src: idOf(src),
			nb: int(nb), d: d, hash: d.hash(), fold: foldLines[T](op)}
		return reduceInLines(t, c, lerr)
	}
	small := nb <= t.scrCap()
	par := t.open()
	if lerr == nil && t.direct && small && np > 1 && nb > 0 {
		copy(w.heap[t.scrData(par):], w.heap[src.off:src.off+nb])
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if nb == 0 {
		return nil
	}
	if np == 1 {
		return t.copyMine(dst.off, src.off, nb)
	}
	switch {
	case t.direct && small:
		out := viewAs[T](w.heap[dst.off : dst.off+nb])
		f := t.fetch()
		for p := range np {
			in, _ := f.view(p, t.scrData(par), int(nb), nil)
			if p == 0 {
				copy(out, viewAs[T](in))
			} else {
				combine(op, out, viewAs[T](in))
			}
		}
		return nil
	case t.direct:
		return reduceSlices[T](t, op, dst.off, src.off, n)
	case nb <= t.rdCap():
		return reduceDoubling[T](t, op, dst.off, src.off, n, par)
	default:
		return reduceRing[T](t, op, dst.off, src.off, n)
	}
}

// reduceBlock is the number of bytes a large reduction folds at a time.
const reduceBlock = 16 << 10

// slice returns the elements [lo, hi) of n that team PE p of np owns, cut
// on cache-line boundaries when the element size allows.
func slice(n, np, p int, sz uint64) (int, int) {
	per := (n + np - 1) / np
	if sz > 0 && 64%sz == 0 {
		line := int(64 / sz)
		per = (per + line - 1) / line * line
	}
	lo := min(n, p*per)
	return lo, min(n, lo+per)
}

// reduceSlices is the large reduction on a mapped team.
func reduceSlices[T Reducible](t *Team, op ReduceOp, dstOff, srcOff uint64, n int) error {
	np := len(t.members)
	sz := elemSize[T]()
	lo, hi := slice(n, np, t.me, sz)
	blk := max(1, reduceBlock/int(sz))
	acc := viewAs[T](t.buf(0, blk*int(sz)))
	mems := make([][]byte, np)
	for p := range np {
		mems[p] = t.remote(p)
	}
	for b := lo; b < hi; b += blk {
		e := min(hi, b+blk)
		s0, s1 := srcOff+uint64(b)*sz, srcOff+uint64(e)*sz
		a := acc[:e-b]
		copy(a, viewAs[T](mems[0][s0:s1]))
		for p := 1; p < np; p++ {
			combine(op, a, viewAs[T](mems[p][s0:s1]))
		}
		d0 := dstOff + uint64(b)*sz
		for i := range np {
			p := (t.me + i) % np
			copy(mems[p][d0:], asBytes(a))
		}
	}
	return t.exitSync()
}

// rdCap is the largest reduction done by recursive doubling: the scratch
// half holds one area (a signal line and the data) per round.
func (t *Team) rdCap() uint64 {
	area := t.w.teams.scrSize / uint64(t.w.teams.rounds+1) &^ 63
	if area <= 64 {
		return 0
	}
	return area - 64
}

// reduceDoubling is recursive doubling through the transport. With p2 the
// largest power of two not above n and r = n-p2, PEs 2i and 2i+1 (i < r)
// first combine (the even one sends and later gets the result back); the
// remaining p2 PEs then exchange partial results with the PE whose rank
// differs in bit k, for each k. Every PE combines the same pairs of values,
// so all get the same result. Messages go to an area per round in the
// receiver's scratch half, data then (after a fence) a signal holding the
// collective's sequence number.
func reduceDoubling[T Reducible](t *Team, op ReduceOp, dstOff, srcOff uint64, n int, par uint64) error {
	w := t.w
	np := len(t.members)
	sz := elemSize[T]()
	nb := uint64(n) * sz
	area := t.rdCap() + 64
	rounds := uint64(w.teams.rounds)
	tag := t.cseq
	at := func(r uint64) uint64 { return t.scrHdr(par) + r*area }
	accB := t.buf(0, int(nb))
	if err := t.readMine(srcOff, accB); err != nil {
		return err
	}
	acc := viewAs[T](accB)
	send := func(p int, r uint64, data []T) error {
		pe := t.members[p]
		if err := w.tr.Put(pe, at(r)+64, asBytes(data)); err != nil {
			return err
		}
		if err := w.tr.Fence(); err != nil {
			return err
		}
		_, err := w.tr.Atomic(pe, at(r), 8, transport.OpStore|transport.OpRuntime, tag, 0)
		return err
	}
	recv := func(r uint64) ([]T, error) {
		if err := t.waitEQ(at(r), tag); err != nil {
			return nil, err
		}
		return viewAs[T](w.heap[at(r)+64 : at(r)+64+nb]), nil
	}
	p2 := 1 << (bits.Len(uint(np)) - 1)
	rem := np - p2
	me := t.me
	var rank int
	switch {
	case me < 2*rem && me%2 == 0:
		if err := send(me+1, rounds, acc); err != nil {
			return err
		}
		res, err := recv(rounds)
		if err != nil {
			return err
		}
		return t.writeMine(dstOff, asBytes(res))
	case me < 2*rem:
		in, err := recv(rounds)
		if err != nil {
			return err
		}
		combine(op, acc, in)
		rank = me / 2
	default:
		rank = me - rem
	}
	peer := func(r int) int {
		if r < rem {
			return 2*r + 1
		}
		return r + rem
	}
	for k, mask := uint64(0), 1; mask < p2; k, mask = k+1, mask<<1 {
		if err := send(peer(rank^mask), k, acc); err != nil {
			return err
		}
		in, err := recv(k)
		if err != nil {
			return err
		}
		combine(op, acc, in)
	}
	if me < 2*rem {
		if err := send(me-1, rounds, acc); err != nil {
			return err
		}
	}
	return t.writeMine(dstOff, accB)
}

// ringSeg is the unit in which the ring gets a chunk.
const ringSeg = 64 << 10

// reduceRing is the ring all-reduce through the transport. The n elements
// are cut into one chunk per PE. Reduce-scatter, steps s = 1..np-1: PE i
// gets its left neighbour's partial result for chunk i-s (for s = 1, the
// neighbour's src), combines its own src into it and stores it in its dst;
// after np-1 steps PE i holds the finished chunk i+1. Allgather, steps
// np..2np-2: PE i gets the finished chunk its left neighbour got one step
// before. Each step waits for the neighbour's signal that its previous step
// is done. Every chunk of every PE's dst is written once per phase and only
// read by the right neighbour in between, so src may be dst, and the
// partial results need no scratch; a final signal to the left neighbour
// says its memory is no longer read.
func reduceRing[T Reducible](t *Team, op ReduceOp, dstOff, srcOff uint64, n int) error {
	w := t.w
	np := len(t.members)
	sz := elemSize[T]()
	left := mod(t.me-1, np)
	right := (t.me + 1) % np
	seg := max(1, ringSeg/int(sz))
	tmp := viewAs[T](t.buf(0, seg*int(sz)))
	chunk := func(c int) (int, int) { return c * n / np, (c + 1) * n / np }
	base := t.readyRecv
	steps := 2 * (np - 1)
	ready := t.sigOff(sigReady)
	for s := 1; s <= steps; s++ {
		if s >= 2 {
			if err := t.waitGE(ready, base+uint64(s-1)); err != nil {
				return err
			}
		}
		var q int
		from := dstOff
		reduce := s <= np-1
		if reduce {
			q = mod(t.me-s, np)
			if s == 1 {
				from = srcOff
			}
		} else {
			q = mod(t.me+1-(s-np+1), np)
		}
		lo, hi := chunk(q)
		for a := lo; a < hi; a += seg {
			e := min(hi, a+seg)
			at, mineAt := from+uint64(a)*sz, uint64(a)*sz
			x := tmp[:e-a]
			if !reduce && t.hostHeap { // straight into dst
				x = viewAs[T](w.heap[dstOff+mineAt : dstOff+uint64(e)*sz])
			}
			if err := w.tr.Get(t.members[left], at, asBytes(x)); err != nil {
				return err
			}
			if reduce {
				own, err := t.mine(srcOff+mineAt, (e-a)*int(sz), 1)
				if err != nil {
					return err
				}
				combine(op, x, viewAs[T](own))
			}
			if reduce || !t.hostHeap {
				if err := t.writeMine(dstOff+mineAt, asBytes(x)); err != nil {
					return err
				}
			}
		}
		if s < steps {
			if err := t.signal(right, sigReady); err != nil {
				return err
			}
		}
	}
	t.readyRecv = base + uint64(steps-1)
	if err := t.signal(left, sigDone); err != nil {
		return err
	}
	t.doneRecv++
	return t.waitGE(t.sigOff(sigDone), t.doneRecv)
}

// ReduceScatter reduces NPEs() blocks of n elements across the members
// with op and leaves block i of the result in dst on team PE i
// (nvshmem_<op>_reducescatter, MPI_Reduce_scatter_block): dst[k] on PE i
// = op over all members p of src_p[i*n+k]. src needs n*NPEs() elements,
// dst n; they must not overlap. Every member passes the same arguments. It
// returns when dst on this PE holds its block and src may be reused.
//
// When a PE's whole src fits a scratch half (about 2 KiB), it is staged
// there before the entry barrier and each PE folds its block from every
// member's scratch: one barrier. Otherwise each PE folds its block straight
// from every member's src, in blocks (loads when mapped, non-blocking gets
// otherwise), and an exit barrier keeps the sources in place.
func ReduceScatter[T Reducible](t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	if err := t.usable(); err != nil {
		return err
	}
	var d desc
	dataDesc(&d, kReduceScatter, n, dst, src)
	d[dOp] = uint64(op)
	np := len(t.members)
	sz := elemSize[T]()
	nb := uint64(max(n, 0)) * sz
	lerr := checkOp[T](op)
	if lerr == nil && t.onDevice() {
		lerr = checkDevOp[T](op)
	}
	if lerr == nil && n < 0 {
		lerr = errf(ErrInvalid, "ReduceScatter of %d elements", n)
	}
	if lerr == nil {
		if lerr = checkObj(t, src, "ReduceScatter src", min(n, src.n+1)*np); lerr == nil {
			lerr = checkObj(t, dst, "ReduceScatter dst", n)
		}
	}
	if lerr == nil && overlap(dst.off, nb, src.off, nb*uint64(np)) {
		lerr = errf(ErrInvalid, "ReduceScatter dst and src overlap")
	}
	w := t.w
	dev := t.onDevice()
	small := nb*uint64(np) <= t.scrCap()
	par := t.open()
	if lerr == nil && small && nb > 0 && !dev {
		lerr = t.readMine(src.off, w.heap[t.scrData(par):t.scrData(par)+nb*uint64(np)])
	}
	if err := t.agree(&d, lerr); err != nil {
		return err
	}
	if nb == 0 {
		return nil
	}
	if dev {
		return t.blocking(func(s uintptr) error {
			return w.dev.collReduce(s, t.devTeam(), devType[T](), int(op), devSize[T](), dst.off, src.off, devCount[T](n), true)
		})
	}
	from := src.off
	blk := nb
	if small {
		from = t.scrData(par)
	} else {
		blk = min(nb, max(sz, reduceBlock/sz*sz))
	}
	f := t.fetch()
	mine := uint64(t.me) * nb
	ins := make([][]byte, np)
	for b := uint64(0); b < nb; b += blk {
		e := min(nb, b+blk)
		for p := range np {
			var buf []byte
			if t.remote(p) == nil {
				buf = t.buf(p, int(blk))
			}
			v, err := f.view(p, from+mine+b, int(e-b), buf)
			if err != nil {
				return err
			}
			ins[p] = v
		}
		if err := f.wait(); err != nil {
			return err
		}
		var ob []byte
		if t.hostHeap {
			ob = w.heap[dst.off+b : dst.off+e]
		} else {
			ob = t.buf(np, int(e-b))
		}
		o := viewAs[T](ob)
		copy(o, viewAs[T](ins[0]))
		for p := 1; p < np; p++ {
			combine(op, o, viewAs[T](ins[p]))
		}
		if !t.hostHeap {
			if err := t.writeMine(dst.off+b, ob); err != nil {
				return err
			}
		}
	}
	if small {
		return nil
	}
	return t.exitSync()
}

// combine folds in into acc with op: acc[i] = acc[i] op in[i]. It hands
// the slices, as their underlying type, to the loops for ordered or complex
// elements (min and max do not compile for complex ones).
func combine[T Reducible](op ReduceOp, acc, in []T) {
	switch a := any(acc).(type) {
	case []Float16:
		combine2(op, a, any(in).([]Float16), Float16.Float32, Float16From)
		return
	case []BFloat16:
		combine2(op, a, any(in).([]BFloat16), BFloat16.Float32, BFloat16From)
		return
	}
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int:
		combineOrdered(op, recast[int](acc), recast[int](in))
	case reflect.Int8:
		combineOrdered(op, recast[int8](acc), recast[int8](in))
	case reflect.Int16:
		combineOrdered(op, recast[int16](acc), recast[int16](in))
	case reflect.Int32:
		combineOrdered(op, recast[int32](acc), recast[int32](in))
	case reflect.Int64:
		combineOrdered(op, recast[int64](acc), recast[int64](in))
	case reflect.Uint:
		combineOrdered(op, recast[uint](acc), recast[uint](in))
	case reflect.Uint8:
		combineOrdered(op, recast[uint8](acc), recast[uint8](in))
	case reflect.Uint16:
		combineOrdered(op, recast[uint16](acc), recast[uint16](in))
	case reflect.Uint32:
		combineOrdered(op, recast[uint32](acc), recast[uint32](in))
	case reflect.Uint64:
		combineOrdered(op, recast[uint64](acc), recast[uint64](in))
	case reflect.Uintptr:
		combineOrdered(op, recast[uintptr](acc), recast[uintptr](in))
	case reflect.Float32:
		combineOrdered(op, recast[float32](acc), recast[float32](in))
	case reflect.Float64:
		combineOrdered(op, recast[float64](acc), recast[float64](in))
	case reflect.Complex64:
		combineComplex(op, recast[complex64](acc), recast[complex64](in))
	case reflect.Complex128:
		combineComplex(op, recast[complex128](acc), recast[complex128](in))
	}
}

// recast views s as elements of U, T's underlying type.
func recast[U, T any](s []T) []U {
	return unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// combineComplex is combine for complex elements: sum and prod, the only
// ops checkOp lets through. Products use Go's complex multiplication, the
// same on every PE, so every member still gets bitwise the same result.
func combineComplex[T ~complex64 | ~complex128](op ReduceOp, acc, in []T) {
	in = in[:len(acc)]
	if op == ReduceProd {
		for i := range acc {
			acc[i] *= in[i]
		}
		return
	}
	for i := range acc {
		acc[i] += in[i]
	}
}

// combineOrdered is combine for integer and float elements. The loops are
// unrolled by eight: Go does not vectorize, and the independent operations
// let the CPU overlap them (several times faster than the plain loop on
// large reductions).
func combineOrdered[T ordered](op ReduceOp, acc, in []T) {
	in = in[:len(acc)]
	switch op {
	case ReduceSum:
		i := 0
		for ; i+8 <= len(acc); i += 8 {
			a, b := acc[i:i+8:i+8], in[i:i+8:i+8]
			a[0] += b[0]
			a[1] += b[1]
			a[2] += b[2]
			a[3] += b[3]
			a[4] += b[4]
			a[5] += b[5]
			a[6] += b[6]
			a[7] += b[7]
		}
		for ; i < len(acc); i++ {
			acc[i] += in[i]
		}
	case ReduceProd:
		i := 0
		for ; i+8 <= len(acc); i += 8 {
			a, b := acc[i:i+8:i+8], in[i:i+8:i+8]
			a[0] *= b[0]
			a[1] *= b[1]
			a[2] *= b[2]
			a[3] *= b[3]
			a[4] *= b[4]
			a[5] *= b[5]
			a[6] *= b[6]
			a[7] *= b[7]
		}
		for ; i < len(acc); i++ {
			acc[i] *= in[i]
		}
	case ReduceMin:
		i := 0
		for ; i+8 <= len(acc); i += 8 {
			a, b := acc[i:i+8:i+8], in[i:i+8:i+8]
			a[0] = min(a[0], b[0])
			a[1] = min(a[1], b[1])
			a[2] = min(a[2], b[2])
			a[3] = min(a[3], b[3])
			a[4] = min(a[4], b[4])
			a[5] = min(a[5], b[5])
			a[6] = min(a[6], b[6])
			a[7] = min(a[7], b[7])
		}
		for ; i < len(acc); i++ {
			acc[i] = min(acc[i], in[i])
		}
	case ReduceMax:
		i := 0
		for ; i+8 <= len(acc); i += 8 {
			a, b := acc[i:i+8:i+8], in[i:i+8:i+8]
			a[0] = max(a[0], b[0])
			a[1] = max(a[1], b[1])
			a[2] = max(a[2], b[2])
			a[3] = max(a[3], b[3])
			a[4] = max(a[4], b[4])
			a[5] = max(a[5], b[5])
			a[6] = max(a[6], b[6])
			a[7] = max(a[7], b[7])
		}
		for ; i < len(acc); i++ {
			acc[i] = max(acc[i], in[i])
		}
	default:
		bitwise(op, asBytes(acc), asBytes(in))
	}
}

// bitwise applies and, or or xor byte for byte (they do not care about
// element boundaries), eight bytes at a time where both are aligned.
func bitwise(op ReduceOp, acc, in []byte) {
	i := 0
	if uintptr(unsafe.Pointer(unsafe.SliceData(acc)))%8 == 0 && uintptr(unsafe.Pointer(unsafe.SliceData(in)))%8 == 0 && len(acc) >= 8 {
		k := len(acc) / 8
		a := unsafe.Slice((*uint64)(unsafe.Pointer(&acc[0])), k)
		b := unsafe.Slice((*uint64)(unsafe.Pointer(&in[0])), k)
		switch op {
		case ReduceAnd:
			for j := range a {
				a[j] &= b[j]
			}
		case ReduceOr:
			for j := range a {
				a[j] |= b[j]
			}
		default:
			for j := range a {
				a[j] ^= b[j]
			}
		}
		i = 8 * k
	}
	for ; i < len(acc); i++ {
		switch op {
		case ReduceAnd:
			acc[i] &= in[i]
		case ReduceOr:
			acc[i] |= in[i]
		default:
			acc[i] ^= in[i]
		}
	}
}
