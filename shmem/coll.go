package shmem

import (
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gshmem/gshmem/internal/memcopy"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Machinery shared by the collectives.
//
// Every collective starts with the team's barrier (sync: recursive doubling,
// or dissemination when the team's size is not a power of two),
// which also checks the arguments: each PE hashes a descriptor of its call
// (kind, element type, counts, root, op, the symmetric objects) and the
// barrier's rounds carry the minimum and maximum hash seen so far. After
// ceil(log2 n) rounds every PE knows the team's minimum and maximum, so all
// members learn together whether they agree, and all fail together when they
// do not. Under GSHMEM_DEBUG each PE also publishes its full descriptor and
// compares everyone's, which names the PE that differs.
//
// Because every collective begins with that barrier, a PE that has finished
// collective c knows that every member has entered c, hence finished c-1.
// Scratch space is therefore split in two halves used by alternate
// collectives (parity of the team's collective count): nobody can still be
// reading a half when it is reused.
//
// Counters that a known peer increments (ring and tree signals) only grow;
// each PE keeps the total it expects, which advances identically on every
// member, so nothing is ever reset while the team lives. Every signal sent
// in a collective is consumed in it, so a destroyed team's slot is quiet.

type collKind uint8

const (
	kSync collKind = iota + 1
	kBroadcast
	kFCollect
	kCollect
	kAlltoall
	kAlltoalls
	kReduce
	kReduceScatter
	kSplitStrided
	kSplit2D
	kSplitList
	kDestroy
	kAlloc // the barrier of Alloc, Calloc, Align and Free (alloc.go)
)

func (k collKind) String() string {
	names := [...]string{"?", "Sync", "Broadcast", "FCollect", "Collect", "Alltoall", "Alltoalls",
		"Reduce", "ReduceScatter", "SplitStrided", "Split2D", "SplitList", "Destroy", "an allocation call (Alloc, Calloc, Align or Free)"}
	if int(k) < len(names) {
		return names[k]
	}
	return "?"
}

// Descriptor words.
const (
	dKind = iota
	dType
	dN
	dRoot
	dOp
	dDstOff
	dDstLen
	dSrcOff
	dSrcLen
	dArgs     // three kind-specific words
	dBad      = dArgs + 3
	dSeq      = dBad + 1 // the team's collective count; compared under GSHMEM_DEBUG only
	descWords = dSeq + 1
)

type desc [descWords]uint64

func newDesc(k collKind) desc {
	var d desc
	d[dKind] = uint64(k)
	return d
}

// dataDesc fills d (zero) for collective k on dst and src; in place, for
// the copies of a 112-byte array cost more than the rest of a small
// collective's checks.
func dataDesc[T any](d *desc, k collKind, n int, dst, src Sym[T]) {
	d[dKind] = uint64(k)
	d[dType] = typeCode[T]()
	d[dN] = uint64(n)
	d[dDstOff], d[dDstLen] = dst.off, uint64(dst.n)
	d[dSrcOff], d[dSrcLen] = src.off, uint64(src.n)
}

func typeCode[T any]() uint64 {
	return uint64(reflect.TypeFor[T]().Kind())<<32 | elemSize[T]()
}

func (d *desc) hash() uint32 {
	h := newHasher()
	for _, v := range d[:dSeq] {
		h.add(v)
	}
	s := h.sum64()
	return uint32(s ^ s>>32)
}

func (d *desc) String() string {
	k := collKind(d[dKind])
	if d[dBad] != 0 {
		return k.String() + " with invalid arguments"
	}
	a := func(i int) int64 { return int64(d[dArgs+i]) }
	switch k {
	case kSync, kDestroy, kAlloc:
		return k.String()
	case kSplitStrided:
		return fmt.Sprintf("SplitStrided(%d, %d, %d)", a(0), a(1), a(2))
	case kSplit2D:
		return fmt.Sprintf("Split2D(%d)", a(0))
	case kSplitList:
		return fmt.Sprintf("SplitList(a list of %d PEs with hash %#x)", a(0), d[dArgs+1])
	}
	// The kind's name carries its width (float64, int32); only composite
	// types need their size.
	kind, size := reflect.Kind(d[dType]>>32), d[dType]&0xffffffff
	s := fmt.Sprintf("%s[%s]", k, kind)
	if kind == reflect.Struct || kind == reflect.Array {
		s = fmt.Sprintf("%s[%s of %d bytes]", k, kind, size)
	}
	s += "("
	switch k {
	case kReduce, kReduceScatter:
		s += ReduceOp(d[dOp]).String() + ", "
	}
	s += fmt.Sprintf("dst of %d elements, src of %d", int64(d[dDstLen]), int64(d[dSrcLen]))
	switch k {
	case kAlltoalls:
		s += fmt.Sprintf(", strides %d, %d", a(0), a(1))
	}
	if k != kCollect {
		s += fmt.Sprintf(", n=%d", int64(d[dN]))
	}
	if k == kBroadcast {
		s += fmt.Sprintf(", root %d", int64(d[dRoot]))
	}
	// Offsets tell apart calls on different symmetric objects of one shape.
	return s + fmt.Sprintf(") on the objects at heap offsets %d and %d", d[dDstOff], d[dSrcOff])
}

// hasher mixes 64-bit words (a multiply-xorshift per word).
type hasher struct{ h uint64 }

func newHasher() hasher { return hasher{0x9E3779B97F4A7C15} }

func (h *hasher) add(v uint64) {
	x := (h.h ^ v) * 0xBF58476D1CE4E5B9
	h.h = x ^ x>>31
}

func (h *hasher) sum64() uint64 {
	x := h.h * 0x94D049BB133111EB
	return x ^ x>>29
}

// sameDesc compares the hashed words of d with h inline: the array
// comparison calls memequal, which costs more than the dozen words.
func sameDesc(d *desc, h *[dSeq]uint64) bool {
	for i := range h {
		if d[i] != h[i] {
			return false
		}
	}
	return true
}

// syncHash is the hash of every barrier's descriptor, which barrier sends
// without building one.
var syncHash = func() uint32 { d := newDesc(kSync); return d.hash() }()

// hash returns d's hash, remembering the last one: loops call the same
// collective with the same arguments, and hashing costs more than comparing.
func (t *Team) hash(d *desc) uint32 {
	if t.hashOK && sameDesc(d, &t.hashedDesc) {
		return t.hashed
	}
	t.hashedDesc, t.hashed, t.hashOK = [dSeq]uint64(d[:dSeq]), d.hash(), true
	return t.hashed
}

// open starts a collective on t and returns the scratch half it uses.
func (t *Team) open() uint64 {
	t.cseq++
	return t.cseq & 1
}

// setTransport changes the World's transport (the heap moves to a GPU) and
// retargets the predefined teams, the only ones made by then: a team stays
// direct only if the new transport maps every member, and this PE's
// objects are reached through it unless it maps this PE's heap. Every PE
// changes transport at the same point (collectively), so all members agree.
func (w *World) setTransport(tr transport.Transport) {
	w.tr = tr
	for _, t := range []*Team{w.teams.world, w.teams.shared} {
		if t != nil {
			t.retarget()
		}
	}
}

func (t *Team) retarget() {
	w := t.w
	mapped := true
	for _, pe := range t.members {
		if !w.local(pe) {
			mapped = false
		}
	}
	t.mapped = t.mapped && mapped
	t.direct = t.direct && mapped
	t.hostHeap = w.tr.Mapped(w.pe) != nil
	t.mapHeaps()
}

// agree runs the entry barrier of the collective described by d and
// returns nil when every member called the same collective with the same
// arguments and none had a local error (lerr). All members get an error or
// none does. Callers may prepare their scratch half between open and agree:
// peers read it only after the barrier.
func (t *Team) agree(d *desc, lerr error) error { return t.agreeFold(d, lerr, nil, nil) }

// agreeFold is agree whose barrier also reduces acc (see exchange).
func (t *Team) agreeFold(d *desc, lerr error, acc []byte, fold lineFold) error {
	w := t.w
	if lerr != nil {
		k := d[dKind]
		*d = desc{}
		d[dKind], d[dBad] = k, 1
	}
	d[dSeq] = t.cseq
	debug := w.opts.Debug != ""
	dbg := t.slotOff + w.teams.dbgOff() + (t.cseq&1)*dbgSize
	if debug {
		for i, v := range d {
			storeLocal(w.heap, dbg+uint64(8*i), v)
		}
	}
	same, err := t.exchange(t.hash(d), acc, fold)
	if err != nil {
		return errors.Join(lerr, err)
	}
	var detail string
	differs := -1
	if debug {
		if detail, differs, err = t.compareDescs(*d, dbg); err != nil {
			return errors.Join(lerr, err)
		}
	}
	if !same || detail != "" {
		return errors.Join(lerr, t.mismatch(*d, detail, differs))
	}
	return lerr
}

// compareDescs reads every member's full descriptor and describes the
// first that differs from d ("" when none does) and its world PE (-1).
func (t *Team) compareDescs(d desc, dbg uint64) (string, int, error) {
	var got desc
	f := t.fetch()
	for p := range len(t.members) {
		if err := f.into(p, dbg, asBytes(got[:])); err != nil {
			return "", -1, err
		}
		if err := f.wait(); err != nil {
			return "", -1, err
		}
		if got != d {
			return fmt.Sprintf("team PE %d (world PE %d) called %s as collective #%d; this PE called %s as collective #%d",
				p, t.members[p], &got, got[dSeq], &d, d[dSeq]), t.members[p], nil
		}
	}
	return "", -1, nil
}

// CollectiveMismatchError is a collective whose team members called
// different collectives or passed different arguments (an erroneous
// program: every member gets it, none waits for the others). It wraps
// ErrSizeMismatch. Layers above the core (compat) describe it in their own
// terms from its fields.
type CollectiveMismatchError struct {
	// Collective is this PE's call, in the core's terms ("Reduce[int64](...)").
	Collective string
	// WorldPE is the world PE of the first member whose call differs, -1
	// when it is not known (it is compared only under GSHMEM_DEBUG).
	WorldPE int
	msg     string
}

func (e *CollectiveMismatchError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrSizeMismatch) hold.
func (e *CollectiveMismatchError) Unwrap() error { return ErrSizeMismatch }

func (t *Team) mismatch(d desc, detail string, worldPE int) error {
	if detail == "" {
		detail = fmt.Sprintf("this PE called %s; set GSHMEM_DEBUG=warn to learn which PE differs", &d)
	}
	err := &CollectiveMismatchError{Collective: d.String(), WorldPE: worldPE,
		msg: fmt.Sprintf("%v: %s on %s: the members called different collectives or passed different arguments: %s",
			ErrSizeMismatch, collKind(d[dKind]), t, detail)}
	if t.w.opts.Debug != "" {
		t.w.log.Warn(err)
	}
	return err
}

// spin returns how many times a collective polls its word before it falls
// back to the World's wait (which yields every few polls, then sleeps on the
// futex). Pure polling is fastest when every PE has a CPU: yielding makes
// the runtime wake idle threads to steal the yielding goroutine, which costs
// microseconds. Yielding is what helps when the CPUs are oversubscribed or
// loaded: a goroutine PE stuck behind a descheduled thread can then run on
// another. So the budget adapts, between 16 polls and half the wait
// policy's spin, at most 2048 (32 for goroutine PEs and 16 for process PEs
// when PEs outnumber CPUs; a barrier's wait on a pinned crowded node takes
// its count from where its partner runs instead, Team.spinFor): it grows after waits
// that polling served, or that the fallback served within a few
// microseconds (more polling would have caught them), and drops to the
// minimum after a long wait, when the peer was not running. Only goroutine
// PEs adapt: a process PE gains nothing by yielding (no other PE can run on
// its threads), so it always polls the whole budget before it sleeps.
func (t *Team) spin() int {
	if t.spinMax == 0 {
		t.spinMax = max(16, min(t.w.waiter.Spin, spinGoroutine)/2)
		t.spinCur = t.spinMax
		t.adapt = t.w.boot.Name() == "inproc"
	}
	return t.spinCur
}

// slowWait is the wait beyond which more polling would not have helped.
const slowWait = 20 * time.Microsecond

// fallback runs the World's wait for cond after polling did not suffice,
// and adapts the polling budget to how long it took.
func (t *Team) fallback(cond func() bool) error {
	if !t.adapt {
		return t.waitFor(cond)
	}
	start := time.Now()
	err := t.waitFor(cond)
	if time.Since(start) < slowWait {
		t.spinCur = min(t.spinMax, 2*t.spinCur)
	} else {
		t.spinCur = 16
	}
	return err
}

// SetInterrupt gives the team's collectives a check from a layer above:
// f is called where their waits check the World (every few thousand polls
// and around every sleep, never on the fast path), and an error from it
// ends the wait, and the collective, with that error. compat ends the
// collectives of a revoked communicator so (MPIX_Comm_revoke). f may be
// nil (none); it must be set before the team's collectives run, by the
// goroutine that calls them.
func (t *Team) SetInterrupt(f func() error) { t.interrupt = f }

// waitFor is the World's runtime wait (World.waitFor) with the team's
// check (waitCheck) instead of the World's.
func (t *Team) waitFor(cond func() bool) error {
	if cond() {
		return nil
	}
	if t.checkFn == nil {
		t.checkFn = t.waitCheck // allocated once, not per wait
		t.down = t.w.DownWord()
	}
	return t.w.waiter.Wait(doorbell.At(t.w.heap), doorbell.Ctrl, func() (bool, error) { return cond(), nil }, t.checkFn)
}

// waitCheck is the check of a team collective's waits, run every few
// thousand polls and around every sleep: the World's (World.check), and a
// lost member of the team that a layer above excused (World.ExcuseLost),
// whose loss World.check no longer reports: a collective over a team that
// holds a lost PE can never complete, and the lost PE's partners wait for
// a word it will never write. The one load of the down word keeps it
// cheap while no peer is lost.
func (t *Team) waitCheck() error {
	w := t.w
	if err := w.check(); err != nil {
		return err
	}
	if f := t.interrupt; f != nil {
		if err := f(); err != nil {
			return err
		}
	}
	if w.live == nil || t.down == nil || atomic.LoadUint32(t.down) == 0 {
		return nil
	}
	for _, pe := range w.live.LostPEs() {
		if t.rank(pe) >= 0 && w.live.Excused(pe) {
			return fmt.Errorf("%s: %w", t.name, w.live.PeerErr(pe))
		}
	}
	return nil
}

// polled records a wait that polling served.
func (t *Team) polled() {
	if t.adapt {
		t.spinCur = min(t.spinMax, t.spinCur+16)
	}
}

// waitGE waits until the word at off of this PE's heap is at least v.
func (t *Team) waitGE(off, v uint64) error {
	h := t.w.heap
	for range t.spin() {
		if loadLocal[uint64](h, off) >= v {
			t.polled()
			return nil
		}
	}
	return t.fallback(func() bool { return loadLocal[uint64](h, off) >= v })
}

// waitEQ waits until the word at off of this PE's heap equals v.
func (t *Team) waitEQ(off, v uint64) error {
	h := t.w.heap
	for range t.spin() {
		if loadLocal[uint64](h, off) == v {
			t.polled()
			return nil
		}
	}
	return t.fallback(func() bool { return loadLocal[uint64](h, off) == v })
}

func storeLocal(mem []byte, off, v uint64) {
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&mem[off])), v)
}

// sigOff is the offset of signal counter line (same on every PE).
func (t *Team) sigOff(line int) uint64 {
	return t.slotOff + t.w.teams.sigOff() + uint64(line)*64
}

// signal adds one to signal counter line of team PE p.
func (t *Team) signal(p, line int) error {
	_, err := t.w.tr.Atomic(t.members[p], t.sigOff(line), 8, transport.OpAdd|transport.OpRuntime, 1, 0)
	return err
}

func (t *Team) scrHdr(par uint64) uint64 {
	return t.slotOff + t.w.teams.scrOff() + par*t.w.teams.scrSize
}

func (t *Team) scrData(par uint64) uint64 { return t.scrHdr(par) + 64 }

// scrCap is the data capacity of a scratch half: the size up to which the
// one-barrier "small" algorithms are used.
func (t *Team) scrCap() uint64 { return t.w.teams.scrSize - 64 }

// buf returns private staging buffer k, 8-byte aligned, of n bytes.
func (t *Team) buf(k, n int) []byte {
	for len(t.bufs) <= k {
		t.bufs = append(t.bufs, nil)
	}
	words := (n + 7) / 8
	if cap(t.bufs[k]) < words {
		t.bufs[k] = make([]uint64, words)
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&t.bufs[k][0])), n)
}

// viewAs reinterprets bytes as elements of T.
func viewAs[T any](b []byte) []T {
	sz := elemSize[T]()
	if len(b) == 0 || sz == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), uint64(len(b))/sz)
}

// fetcher reads team members' memory: directly when the team is mapped,
// otherwise with non-blocking gets completed by wait.
type fetcher struct {
	t       *Team
	pending bool
}

func (t *Team) fetch() fetcher { return fetcher{t: t} }

// remote returns the mapped heap of team PE p, or nil when it must be
// reached through the transport: for every peer unless the team is direct,
// and for this PE too when its heap is not host memory (a device heap). A
// direct team's peer is mapped by its first use here (the transport maps
// a node-local peer when first asked), so that a collective maps only the
// partners it talks to.
func (t *Team) remote(p int) []byte {
	if h := t.heaps[p].Load(); h != nil {
		return *h
	}
	var h []byte
	switch {
	case p == t.me && t.hostHeap:
		h = t.w.heap
	case t.direct:
		h = t.w.tr.Mapped(t.members[p])
	}
	if h == nil {
		return nil // a peer that is gone: the transport says why
	}
	t.heaps[p].Store(&h)
	return h
}

// mapHeaps forgets what remote returned, when the team is made or its
// transport changes: remote then asks the transport again, once per peer
// (an interface call per barrier round otherwise).
func (t *Team) mapHeaps() {
	t.heaps = make([]atomic.Pointer[[]byte], len(t.members))
}

// Access to this PE's own symmetric objects. The team's slot (barrier
// words, signals, scratch) is always in the host heap, w.heap; the objects
// the caller passes are there too unless the heap lives on a GPU, in which
// case the transport reaches them (offsets past the runtime's own area go
// to device memory). These helpers take the direct route when they can.

// readMine copies len(dst) bytes at off of this PE's heap into dst.
func (t *Team) readMine(off uint64, dst []byte) error {
	if t.hostHeap {
		memcopy.Copy(dst, t.w.heap[off:off+uint64(len(dst))])
		return nil
	}
	if len(dst) == 0 {
		return nil
	}
	return t.w.tr.Get(t.w.pe, off, dst)
}

// writeMine copies src to off of this PE's heap.
func (t *Team) writeMine(off uint64, src []byte) error {
	if t.hostHeap {
		memcopy.Copy(t.w.heap[off:off+uint64(len(src))], src)
		return nil
	}
	if len(src) == 0 {
		return nil
	}
	if err := t.w.tr.Put(t.w.pe, off, src); err != nil {
		return err
	}
	return t.w.tr.Quiet()
}

// mine returns n bytes at off of this PE's heap: the heap itself when it is
// host memory, else a copy in staging buffer k. Changes to a copy reach the
// heap only through writeMine.
func (t *Team) mine(off uint64, n, k int) ([]byte, error) {
	if t.hostHeap {
		return t.w.heap[off : off+uint64(n)], nil
	}
	b := t.buf(k, n)
	return b, t.readMine(off, b)
}

// copyMine copies n bytes from srcOff to dstOff of this PE's heap (the
// ranges are equal or disjoint).
func (t *Team) copyMine(dstOff, srcOff, n uint64) error {
	if dstOff == srcOff || n == 0 {
		return nil
	}
	if t.hostHeap {
		memcopy.Copy(t.w.heap[dstOff:dstOff+n], t.w.heap[srcOff:srcOff+n])
		return nil
	}
	const chunk = 1 << 20
	for at := uint64(0); at < n; at += chunk {
		b := t.buf(0, int(min(chunk, n-at)))
		if err := t.readMine(srcOff+at, b); err != nil {
			return err
		}
		if err := t.writeMine(dstOff+at, b); err != nil {
			return err
		}
	}
	return nil
}

// piece is a part of a pull: n bytes at offset from of team PE p, for
// offset to of this PE's heap.
type piece struct {
	p           int
	from, to, n uint64
}

// pull fetches every piece into this PE's heap: gets land in place when the
// heap is host memory; otherwise each goes through a staging buffer.
func (t *Team) pull(ps []piece) error {
	f := t.fetch()
	if t.hostHeap {
		for _, c := range ps {
			if err := f.into(c.p, c.from, t.w.heap[c.to:c.to+c.n]); err != nil {
				return err
			}
		}
		return f.wait()
	}
	const chunk = 1 << 20
	for _, c := range ps {
		for at := uint64(0); at < c.n; at += chunk {
			b := t.buf(0, int(min(chunk, c.n-at)))
			if err := f.into(c.p, c.from+at, b); err != nil {
				return err
			}
			if err := f.wait(); err != nil {
				return err
			}
			if err := t.writeMine(c.to+at, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// into copies len(dst) bytes at heap offset off of team PE p into dst
// (complete after wait).
func (f *fetcher) into(p int, off uint64, dst []byte) error {
	if len(dst) == 0 {
		return nil
	}
	if m := f.t.remote(p); m != nil {
		memcopy.Copy(dst, m[off:off+uint64(len(dst))])
		return nil
	}
	f.pending = true
	return f.t.w.tr.GetNBI(f.t.members[p], off, dst)
}

// view returns n bytes at heap offset off of team PE p: its memory itself
// when mapped, else a copy into buf (valid after wait).
func (f *fetcher) view(p int, off uint64, n int, buf []byte) ([]byte, error) {
	if m := f.t.remote(p); m != nil {
		return m[off : off+uint64(n)], nil
	}
	if n == 0 {
		return nil, nil
	}
	f.pending = true
	return buf[:n], f.t.w.tr.GetNBI(f.t.members[p], off, buf[:n])
}

func (f *fetcher) wait() error {
	if !f.pending {
		return nil
	}
	f.pending = false
	return f.t.w.tr.Quiet()
}

// overlap reports whether byte ranges [a, a+an) and [b, b+bn) intersect.
func overlap(a, an, b, bn uint64) bool {
	return an > 0 && bn > 0 && a < b+bn && b < a+an
}

// checkObj checks that s is usable by a collective of team t needing need
// elements.
func checkObj[T any](t *Team, s Sym[T], what string, need int) error {
	if err := s.valid(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if s.w != t.w {
		return errf(ErrNotSymmetric, "%s belongs to another world than the team", what)
	}
	if need > s.n {
		return errf(ErrOutOfBounds, "%s has %d elements, the collective needs %d", what, s.n, need)
	}
	return nil
}

// mod is the non-negative remainder.
func mod(a, n int) int { return ((a % n) + n) % n }
