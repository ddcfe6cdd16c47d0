//go:build ucx && cgo

package transport

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/sirupsen/logrus"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// UCXBuilt says whether this program can reach remote peers over UCX.
const UCXBuilt = true

// UCX reaches the heaps of PEs on other nodes through UCP: the heap is
// registered with ucp_mem_map, puts, gets and 4- and 8-byte atomics are
// one-sided UCP operations on the peer's heap, and what UCP lacks (1- and
// 2-byte atomics, atomic load and store) is built from its 4-byte
// compare-and-swap and fetching or. UCP runs in its CPU atomic mode, so
// that a remote atomic is atomic with the CPU atomics of the target's own
// node: the same guarantee the TCP transport gives by applying atomics at
// the target.
//
// One-sided writes do not involve the target's CPU, so nothing there would
// ring its doorbell. After a put the issuer flushes the endpoint (at most
// one flush per peer in flight, coalescing the puts behind it) and, once
// the flush says the data landed, sends the peer a small active message
// that makes the peer's progress goroutine ring its doorbell; after an
// atomic (which has completed at the target when its old value returns)
// the message goes at once. A waiter asleep on its bell is therefore woken
// after every remote write that lands, one round trip later.
//
// Every call into UCP holds mu (the worker is single-threaded). One
// progress goroutine per PE sleeps in poll(2) on the worker's event fd
// when idle; an operation's issuer drives progress itself for a short
// spin, then sleeps until the progress goroutine completes its request.
// Liveness is UCP's peer error handling (an endpoint error callback) plus
// a heartbeat message, as on tcp.
type UCX struct {
	me      int
	heap    []byte
	h       *health
	logp    atomic.Pointer[logrus.FieldLogger]
	timeout time.Duration
	lib     *ucxLib
	mem     ucxMem
	efd     int // the worker's event fd
	wake    int // an eventfd that interrupts the progress goroutine's poll

	mu       sync.Mutex // every call into lib, and the fields below
	peers    []*ucxPeer // by PE; nil for PEs reached otherwise
	sleepers map[*ucxOp]struct{}
	orphans  []*ucxOp // requests whose issuer gave up on a lost peer
	events   []ucxEvent
	down     bool

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

type ucxPeer struct {
	pe    int
	e     *ucxEp
	lanes string
	// Guarded by UCX.mu:
	dirty     bool           // puts or non-blocking gets since the last Quiet
	ringReq   unsafe.Pointer // the flush a doorbell message waits for
	ringAgain bool           // puts behind ringReq that need another message
	failed    bool           // UCP reported the endpoint failed
	bye       bool
	lastSeen  time.Time
	nbi       []*ucxOp
}

// ucxOp is a UCP request someone waits for.
type ucxOp struct {
	req      unsafe.Pointer
	pe       int
	st       int
	pin      runtime.Pinner // the Go buffer UCP reads or writes
	amo      amoBuf         // C memory for an atomic's operand and result
	done     chan struct{}
	finished bool
	orphan   bool // freed by progress when it completes
}

// ucxSpin is how long an issuer drives progress itself before it sleeps:
// a round trip on a fast network, so that latency does not pay for a
// wake-up.
var ucxSpin = 200 * time.Microsecond

// startUCX exchanges worker addresses and heap keys through the bootstrap
// (every PE of the job takes part, also one without remote peers, which
// returns a nil transport) and connects to every remote peer. lanes[pe]
// summarizes UCP's lanes to each remote PE.
func startUCX(ctx context.Context, c ucxConfig) (rt remote, lanes []string, err error) {
	need := false
	for _, r := range c.Remote {
		need = need || r
	}
	var u *UCX
	var record []byte
	if need {
		if u, record, err = openUCXPE(c); err != nil {
			return nil, nil, err
		}
		defer func() {
			if err != nil {
				u.shutdown()
			}
		}()
	}
	raw, err := c.Allgather(ctx, record)
	if err != nil {
		return nil, nil, err
	}
	if !need {
		return nil, nil, nil
	}
	lanes = make([]string, c.N)
	for pe, r := range c.Remote {
		if !r {
			continue
		}
		rec, err := openRecord(c.Secret, pe, raw[pe])
		if err != nil {
			return nil, nil, err
		}
		if rec.size != uint64(len(c.Heap)) {
			return nil, nil, fmt.Errorf("transport: PE %d has a %d-byte heap, PE %d one of %d bytes: %w", pe, rec.size, c.Me, len(c.Heap), errHeapSize)
		}
		e, err := u.lib.connect(pe, rec.addr, rec.rkey, rec.base)
		if err != nil {
			return nil, nil, err
		}
		p := &ucxPeer{pe: pe, e: e, lastSeen: time.Now()}
		p.lanes = summarizeLanes(u.lib.info(e))
		lanes[pe] = p.lanes
		u.mu.Lock()
		u.peers[pe] = p
		u.mu.Unlock()
	}
	u.wg.Add(2)
	go u.progressLoop()
	go u.heartbeat()
	// Finish every endpoint's wire-up now (a flush waits for it), so
	// that a failure to reach a peer shows at setup and no endpoint is
	// left half wired when the job ends.
	if err := u.flushAll(ctx); err != nil {
		return nil, nil, err
	}
	return u, lanes, nil
}

func openUCXPE(c ucxConfig) (*UCX, []byte, error) {
	lib, err := openUCX(fmt.Sprintf("gshmem-pe%d", c.Me))
	if err != nil {
		return nil, nil, err
	}
	u := &UCX{me: c.Me, heap: c.Heap, h: c.Health, timeout: c.Timeout, lib: lib, efd: -1, wake: -1,
		peers: make([]*ucxPeer, c.N), sleepers: map[*ucxOp]struct{}{}, stop: make(chan struct{})}
	u.setLog(c.Log)
	fail := func(err error) (*UCX, []byte, error) {
		u.shutdown()
		return nil, nil, err
	}
	if u.mem, err = lib.memMap(c.Heap); err != nil {
		lib.close()
		u.down = true
		return nil, nil, err
	}
	if u.efd, err = lib.eventFd(); err != nil {
		return fail(err)
	}
	if u.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fail(fmt.Errorf("transport: ucx: eventfd: %w", err))
	}
	addr, err := lib.address()
	if err != nil {
		return fail(err)
	}
	rkey, err := lib.rkeyPack(u.mem)
	if err != nil {
		return fail(err)
	}
	rec := ucxRecord{addr: addr, rkey: rkey, base: uint64(uintptr(unsafe.Pointer(&c.Heap[0]))), size: uint64(len(c.Heap))}
	return u, rec.seal(c.Secret, c.Me), nil
}

func (u *UCX) setLog(l logrus.FieldLogger) { u.logp.Store(&l) }

func (u *UCX) log() logrus.FieldLogger { return *u.logp.Load() }

// ---- progress ----------------------------------------------------------------

func (u *UCX) kick() {
	if u.wake >= 0 {
		var one [8]byte
		one[0] = 1
		_, _ = unix.Write(u.wake, one[:])
	}
}

// progressLoop is the PE's one progress goroutine: it serves the peers'
// messages, UCP's emulated operations aimed at this heap, and the issuers
// asleep on their requests; idle, it sleeps in poll(2).
func (u *UCX) progressLoop() {
	defer u.wg.Done()
	fds := []unix.PollFd{{Fd: int32(u.efd), Events: unix.POLLIN}, {Fd: int32(u.wake), Events: unix.POLLIN}}
	var buf [8]byte
	armErr := false
	for {
		select {
		case <-u.stop:
			return
		default:
		}
		u.mu.Lock()
		u.progressLocked()
		armed, err := u.lib.arm()
		u.mu.Unlock()
		if err != nil {
			if !armErr {
				u.log().Errorf("ucx transport: %v; progressing every 100 ms", err)
				armErr = true
			}
			armed = true // poll with the timeout rather than spin
		}
		if !armed {
			continue
		}
		// The timeout only bounds how late a missed event is served.
		if _, err := unix.Poll(fds, 100); err != nil && err != unix.EINTR {
			u.log().Errorf("ucx transport: poll: %v", err)
			time.Sleep(10 * time.Millisecond)
		}
		if fds[1].Revents != 0 {
			_, _ = unix.Read(u.wake, buf[:])
		}
	}
}

// progressLocked drives UCP until it is idle (or a while), then handles what the
// callbacks queued, the doorbell messages due and the requests others
// sleep on.
func (u *UCX) progressLocked() {
	if u.down {
		return
	}
	// Bounded: under a steady stream UCP always has more to do, and the
	// messages queued so far (heartbeats among them) must be seen.
	for i := 0; i < 64 && u.lib.progress(); i++ {
	}
	u.events = u.lib.drain(u.events[:0])
	for _, e := range u.events {
		u.handle(e)
	}
	for _, p := range u.peers {
		if p != nil {
			u.serviceRing(p)
		}
	}
	for op := range u.sleepers {
		if u.poll(op) {
			delete(u.sleepers, op)
		}
	}
	if len(u.orphans) > 0 {
		keep := u.orphans[:0]
		for _, op := range u.orphans {
			if !u.poll(op) {
				keep = append(keep, op)
			}
		}
		clear(u.orphans[len(keep):])
		u.orphans = keep
	}
}

func (u *UCX) handle(e ucxEvent) {
	pe := int(e.from)
	if pe < 0 || pe >= len(u.peers) || u.peers[pe] == nil {
		return // not a peer of ours over UCX
	}
	p := u.peers[pe]
	if e.typ != evErr {
		p.lastSeen = time.Now()
	}
	switch e.typ {
	case evRing:
		doorbell.Ring(u.heap, e.arg&ringAll != 0)
	case evBye:
		p.bye = true
		u.h.bye(pe)
	case evLost:
		u.h.peerLost(int(e.arg), fmt.Sprintf("was lost (reported by PE %d)", pe))
	case evErr:
		p.failed = true
		if !u.h.isGone(pe) {
			u.h.peerLost(pe, fmt.Sprintf("is unreachable: UCX failed its endpoint (%s)", statusString(int(int64(e.arg)))))
		}
	}
}

// serviceRing sends p its doorbell message once the flush behind its puts
// is done, and starts the next flush when more puts came meanwhile.
func (u *UCX) serviceRing(p *ucxPeer) {
	if p.ringReq != nil {
		st := status(p.ringReq)
		if st == stInProgress {
			return
		}
		freeReq(p.ringReq)
		p.ringReq = nil
		if st == stOK {
			_ = u.lib.send(p.e, evRing, u.me, 0)
		}
	}
	if p.ringAgain {
		p.ringAgain = false
		u.startRing(p)
	}
}

// startRing flushes p's endpoint, then (in serviceRing) rings its bell.
func (u *UCX) startRing(p *ucxPeer) {
	if p.failed {
		return
	}
	if p.ringReq != nil {
		p.ringAgain = true
		return
	}
	r := u.lib.flush(p.e)
	switch {
	case r.req != nil:
		p.ringReq = r.req
	case r.st == stOK:
		_ = u.lib.send(p.e, evRing, u.me, 0)
	}
}

// poll completes op when its request is done.
func (u *UCX) poll(op *ucxOp) bool {
	if op.finished {
		return true
	}
	st := status(op.req)
	if st == stInProgress {
		return false
	}
	u.finish(op, st)
	return true
}

func (u *UCX) finish(op *ucxOp, st int) {
	if p := u.peers[op.pe]; st == stOK && p != nil {
		p.lastSeen = time.Now() // a completed request is a sign of life
	}
	freeReq(op.req)
	op.req, op.st, op.finished = nil, st, true
	op.pin.Unpin()
	if op.orphan && op.amo.p != nil {
		op.amo.free()
	}
	close(op.done)
}

// wait returns when op completes, or with ErrPeerLost when its peer is
// lost first (op is then left to the progress goroutine).
func (u *UCX) wait(op *ucxOp, what string) error {
	if op.done == nil {
		op.done = make(chan struct{})
	}
	start := time.Now()
	for i := 0; ; i++ {
		u.mu.Lock()
		u.progressLocked()
		done := u.poll(op)
		spun := !done && time.Since(start) > ucxSpin
		if spun {
			u.sleepers[op] = struct{}{}
		}
		u.mu.Unlock()
		if done {
			return u.opErr(op, what)
		}
		if spun {
			break
		}
		if i&15 == 15 {
			runtime.Gosched()
		}
	}
	u.kick()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-op.done:
			return u.opErr(op, what)
		case <-tick.C:
		}
		err := u.h.check(op.pe)
		if err == nil {
			continue
		}
		u.mu.Lock()
		if !op.finished {
			delete(u.sleepers, op)
			op.orphan = true
			u.orphans = append(u.orphans, op)
			u.mu.Unlock()
			return err
		}
		u.mu.Unlock()
		return u.opErr(op, what)
	}
}

func (u *UCX) opErr(op *ucxOp, what string) error {
	if op.st == stOK {
		return nil
	}
	if err := u.h.check(op.pe); err != nil {
		return err
	}
	return opError(fmt.Sprintf("%s PE %d", what, op.pe), op.st)
}

// ---- operations ----------------------------------------------------------------

func (u *UCX) peer(pe int) (*ucxPeer, error) {
	if pe < 0 || pe >= len(u.peers) || u.peers[pe] == nil {
		return nil, fmt.Errorf("transport: PE %d has no ucx route to PE %d", u.me, pe)
	}
	if err := u.h.check(pe); err != nil {
		return nil, err
	}
	return u.peers[pe], nil
}

// start issues one operation under mu and returns the op to wait for, nil
// when it finished at once.
func (u *UCX) start(pe int, buf []byte, issue func() res) (*ucxOp, error) {
	op := &ucxOp{pe: pe}
	if len(buf) > 0 {
		op.pin.Pin(&buf[0])
	}
	u.mu.Lock()
	if u.down {
		u.mu.Unlock()
		op.pin.Unpin()
		return nil, fmt.Errorf("%w: transport closed", ErrPeerLost)
	}
	r := issue()
	u.mu.Unlock()
	if r.req == nil {
		op.pin.Unpin()
		if r.st != stOK {
			if err := u.h.check(pe); err != nil {
				return nil, err
			}
			return nil, opError(fmt.Sprintf("PE %d", pe), r.st)
		}
		return nil, nil
	}
	op.req = r.req
	return op, nil
}

// Put writes src to pe's heap; it returns when src may be reused.
func (u *UCX) Put(pe int, off uint64, src []byte) error {
	p, err := u.peer(pe)
	if err != nil || len(src) == 0 {
		return err
	}
	op, err := u.start(pe, src, func() res {
		r := u.lib.put(p.e, unsafe.Pointer(&src[0]), len(src), off)
		p.dirty = true
		u.startRing(p)
		return r
	})
	if op == nil {
		return err
	}
	return u.wait(op, "put to")
}

// PutNBI starts a put; src must not change until Quiet returns, which
// waits for it.
func (u *UCX) PutNBI(pe int, off uint64, src []byte) error {
	p, err := u.peer(pe)
	if err != nil || len(src) == 0 {
		return err
	}
	op, err := u.start(pe, src, func() res {
		r := u.lib.put(p.e, unsafe.Pointer(&src[0]), len(src), off)
		p.dirty = true
		u.startRing(p)
		return r
	})
	u.pending(p, op)
	return err
}

// pending keeps a non-blocking operation for Quiet, dropping those that
// already completed once the list grows.
func (u *UCX) pending(p *ucxPeer, op *ucxOp) {
	if op == nil {
		return
	}
	op.done = make(chan struct{})
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(p.nbi) >= 256 {
		keep := p.nbi[:0]
		for _, o := range p.nbi {
			if !u.poll(o) {
				keep = append(keep, o)
			} else if o.st != stOK {
				keep = append(keep, o) // Quiet reports it
			}
		}
		clear(p.nbi[len(keep):])
		p.nbi = keep
	}
	p.nbi = append(p.nbi, op)
}

// Get fills dst from pe's heap.
func (u *UCX) Get(pe int, off uint64, dst []byte) error {
	p, err := u.peer(pe)
	if err != nil || len(dst) == 0 {
		return err
	}
	op, err := u.start(pe, dst, func() res { return u.lib.get(p.e, unsafe.Pointer(&dst[0]), len(dst), off) })
	if op == nil {
		return err
	}
	return u.wait(op, "get from")
}

// GetNBI starts a get; Quiet waits for it.
func (u *UCX) GetNBI(pe int, off uint64, dst []byte) error {
	p, err := u.peer(pe)
	if err != nil || len(dst) == 0 {
		return err
	}
	op, err := u.start(pe, dst, func() res {
		r := u.lib.get(p.e, unsafe.Pointer(&dst[0]), len(dst), off)
		p.dirty = true
		return r
	})
	u.pending(p, op)
	return err
}

// amoFor maps the core's operations to UCP's: Load is a fetching or of
// zero and Store a swap whose old value is dropped, so that both stay
// atomic with the others at the target.
func amoFor(op AtomicOp, v uint64) (amoOp, uint64) {
	switch op {
	case OpLoad:
		return amoOr, 0
	case OpStore, OpSwap:
		return amoSwap, v
	case OpCompareAndSwap:
		return amoCswap, v
	case OpAdd:
		return amoAdd, v
	case OpAnd:
		return amoAnd, v
	case OpOr:
		return amoOr, v
	default:
		return amoXor, v
	}
}

// Atomic runs op on pe's word of width bytes and returns its old value.
// 1- and 2-byte words are updated by a compare-and-swap loop on the aligned
// 4-byte word that holds them, as atomicop does locally, so their
// neighbours are never disturbed.
func (u *UCX) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	base, rt := op.Split()
	if !atomicop.Op(base).Valid() || !atomicop.Width(width) || off%uint64(width) != 0 {
		return 0, fmt.Errorf("transport: atomic op %d of width %d at offset %d", op, width, off)
	}
	p, err := u.peer(pe)
	if err != nil {
		return 0, err
	}
	var old uint64
	if width >= 4 {
		amo, v := amoFor(base, operand)
		old, err = u.amo(p, amo, width, off, v, compare)
	} else {
		old, err = u.smallAtomic(p, off, width, base, operand, compare)
	}
	if err != nil {
		return 0, err
	}
	if base != OpLoad {
		arg := uint64(0)
		if rt {
			arg = ringAll
		}
		u.mu.Lock()
		if !u.down && !p.failed {
			_ = u.lib.send(p.e, evRing, u.me, arg)
		}
		u.mu.Unlock()
	}
	if base == OpStore {
		old = 0
	}
	return old, nil
}

func (u *UCX) smallAtomic(p *ucxPeer, off uint64, width int, op AtomicOp, v, cmp uint64) (uint64, error) {
	word := off &^ 3
	mask := uint64(1)<<(8*width) - 1
	cur, err := u.amo(p, amoOr, 4, word, 0, 0)
	for err == nil {
		w := uint32(cur)
		prev := atomicop.Apply(unsafe.Add(unsafe.Pointer(&w), off&3), width, atomicop.Op(op), v&mask, cmp&mask)
		if uint64(w) == cur {
			return prev, nil // nothing to write: the load was the operation
		}
		var seen uint64
		if seen, err = u.amo(p, amoCswap, 4, word, uint64(w), cur); err == nil && seen == cur {
			return prev, nil
		}
		cur = seen
	}
	return 0, err
}

// amo runs one UCP atomic on p's 4- or 8-byte word and returns the old
// value.
func (u *UCX) amo(p *ucxPeer, amo amoOp, width int, off uint64, v, cmp uint64) (uint64, error) {
	b := newAmoBuf()
	op, err := u.start(p.pe, nil, func() res { return u.lib.atomic(p.e, amo, width, off, b, v, cmp) })
	if op != nil {
		op.amo = b
		err = u.wait(op, "atomic on")
		if op.orphan {
			return 0, err // b is freed when the request ends
		}
	}
	old := b.words()[1]
	b.free()
	if width == 4 {
		old &= 0xffffffff
	}
	return old, err
}

// Fence orders this PE's earlier puts and atomics before its later ones.
func (u *UCX) Fence() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.down {
		return nil
	}
	return u.lib.fence()
}

// Quiet returns when every put and non-blocking get this PE issued has
// completed at its target.
func (u *UCX) Quiet() error {
	var flushes []*ucxOp
	var nbi []*ucxOp
	var first error
	u.mu.Lock()
	for _, p := range u.peers {
		if p == nil || !p.dirty {
			continue
		}
		p.dirty = false
		nbi = append(nbi, p.nbi...)
		p.nbi = nil
		if err := u.h.check(p.pe); err != nil {
			first = cmpErr(first, err)
			continue
		}
		r := u.lib.flush(p.e)
		switch {
		case r.req != nil:
			flushes = append(flushes, &ucxOp{pe: p.pe, req: r.req})
		case r.st != stOK:
			first = cmpErr(first, opError(fmt.Sprintf("flushing PE %d", p.pe), r.st))
		}
	}
	u.mu.Unlock()
	for _, op := range append(flushes, nbi...) {
		if err := u.wait(op, "flush of"); err != nil {
			first = cmpErr(first, err)
		}
	}
	return first
}

// flushAll flushes every endpoint, within ctx.
func (u *UCX) flushAll(ctx context.Context) error {
	var ops []*ucxOp
	var first error
	u.mu.Lock()
	for _, p := range u.peers {
		if p == nil {
			continue
		}
		switch r := u.lib.flush(p.e); {
		case r.req != nil:
			ops = append(ops, &ucxOp{pe: p.pe, req: r.req})
		case r.st != stOK:
			first = cmpErr(first, opError(fmt.Sprintf("connecting to PE %d", p.pe), r.st))
		}
	}
	u.mu.Unlock()
	waited := make(chan error, 1)
	go func() {
		var first error
		for _, op := range ops {
			first = cmpErr(first, u.wait(op, "connecting to"))
		}
		waited <- first
	}()
	select {
	case err := <-waited:
		return cmpErr(first, err)
	case <-ctx.Done():
		// The caller shuts the transport down, which ends the waits.
		return fmt.Errorf("transport: ucx: PE %d connecting to its remote peers: %w", u.me, ctx.Err())
	}
}

// ---- liveness and teardown ---------------------------------------------------

func (u *UCX) heartbeat() {
	defer u.wg.Done()
	every := max(u.timeout/5, 50*time.Millisecond)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-u.stop:
			return
		case <-tick.C:
		}
		var silent []int
		u.mu.Lock()
		// Serve what arrived first: after this process was descheduled,
		// the peers' heartbeats wait in its sockets.
		u.progressLocked()
		now := time.Now()
		for _, p := range u.peers {
			if p == nil || p.failed || p.bye || u.h.check(p.pe) != nil {
				continue
			}
			_ = u.lib.send(p.e, evPing, u.me, 0)
			if now.Sub(p.lastSeen) > u.timeout {
				silent = append(silent, p.pe)
			}
		}
		u.mu.Unlock()
		for _, pe := range silent {
			if !u.h.isGone(pe) {
				u.h.peerLost(pe, "stopped answering over ucx (no heartbeat within the peer timeout)")
			}
		}
	}
}

// tellLost tells every other peer that pe is lost.
func (u *UCX) tellLost(pe int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.down {
		return
	}
	for _, p := range u.peers {
		if p != nil && p.pe != pe && !p.failed {
			_ = u.lib.send(p.e, evLost, u.me, uint64(pe))
		}
	}
}

// close says goodbye to every peer, waits (a bounded time) until its
// goodbye has landed and every live peer has said goodbye too, then shuts
// down.
func (u *UCX) close(grace time.Duration) {
	deadline := time.Now().Add(grace)
	var flushes []unsafe.Pointer
	u.mu.Lock()
	if u.down {
		u.mu.Unlock()
		return
	}
	for _, p := range u.peers {
		if p != nil && !p.failed {
			_ = u.lib.send(p.e, evBye, u.me, 0)
			if r := u.lib.flush(p.e); r.req != nil {
				flushes = append(flushes, r.req)
			}
		}
	}
	u.mu.Unlock()
	for {
		u.mu.Lock()
		u.progressLocked()
		done := true
		for i, r := range flushes {
			if r != nil && status(r) == stInProgress {
				done = false
			} else if r != nil {
				freeReq(r)
				flushes[i] = nil
			}
		}
		for _, p := range u.peers {
			if p != nil && !p.bye && !p.failed && u.h.check(p.pe) == nil {
				done = false
			}
		}
		if done || time.Now().After(deadline) {
			for _, r := range flushes {
				if r != nil {
					freeReq(r)
				}
			}
			u.mu.Unlock()
			break
		}
		u.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	u.shutdown()
}

// shutdown stops the goroutines, closes the endpoints and releases UCP.
// Requests still pending fail, and their issuers return.
func (u *UCX) shutdown() {
	u.stopOnce.Do(func() {
		close(u.stop)
		u.kick()
		u.wg.Wait()
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.down {
			return
		}
		var closing []unsafe.Pointer
		for _, p := range u.peers {
			if p == nil {
				continue
			}
			if p.ringReq != nil {
				freeReq(p.ringReq)
				p.ringReq = nil
			}
			if r := u.lib.release(p.e); r != nil {
				closing = append(closing, r)
			}
		}
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			u.progressLocked()
			pending := false
			for _, r := range closing {
				pending = pending || status(r) == stInProgress
			}
			if !pending {
				break
			}
			time.Sleep(time.Millisecond)
		}
		for _, r := range closing {
			freeReq(r)
		}
		var left []*ucxOp
		for op := range u.sleepers {
			left = append(left, op)
		}
		left = append(left, u.orphans...)
		for _, p := range u.peers {
			if p != nil {
				left = append(left, p.nbi...)
				p.nbi = nil
			}
		}
		for _, op := range left {
			if !op.finished {
				st := status(op.req)
				if st == stInProgress {
					st = int(errCanceled)
				}
				op.orphan = true
				u.finish(op, st)
			}
		}
		clear(u.sleepers)
		u.orphans = nil
		if u.mem.h != nil {
			if err := u.lib.memUnmap(u.mem); err != nil {
				u.log().Errorf("ucx transport: %v", err)
			}
		}
		u.lib.close()
		for _, p := range u.peers {
			if p != nil {
				u.lib.forget(p.e)
			}
		}
		u.down = true
		if u.wake >= 0 {
			_ = unix.Close(u.wake)
			u.wake = -1
		}
	})
}

// ---- the exchanged record ------------------------------------------------------

// ucxRecord is what a PE publishes through the bootstrap: its worker
// address and its heap's address, size and remote key, sealed with an
// HMAC under the job secret. UCP does not authenticate peers; the MAC
// keeps a record that did not come from a holder of the secret from
// steering this PE's puts.
type ucxRecord struct {
	addr, rkey []byte
	base, size uint64
}

const ucxMagic = "GSUX"

func (r ucxRecord) seal(secret []byte, pe int) []byte {
	b := []byte(ucxMagic)
	b = binary.LittleEndian.AppendUint64(b, r.base)
	b = binary.LittleEndian.AppendUint64(b, r.size)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.addr)))
	b = append(b, r.addr...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(r.rkey)))
	b = append(b, r.rkey...)
	return append(b, recordMAC(secret, pe, b)...)
}

func openRecord(secret []byte, pe int, b []byte) (ucxRecord, error) {
	var r ucxRecord
	bad := func(why string) (ucxRecord, error) {
		return r, fmt.Errorf("transport: PE %d published a bad ucx record (%s): does it run with GSHMEM_REMOTE_TRANSPORT=ucx and the same job secret?", pe, why)
	}
	if len(b) < len(ucxMagic)+16+4+4+32 {
		return bad(fmt.Sprintf("%d bytes", len(b)))
	}
	body, mac := b[:len(b)-32], b[len(b)-32:]
	if !hmac.Equal(mac, recordMAC(secret, pe, body)) {
		return bad("its MAC does not match the job secret")
	}
	if string(body[:4]) != ucxMagic {
		return bad("wrong magic")
	}
	p := body[4:]
	r.base, r.size = binary.LittleEndian.Uint64(p), binary.LittleEndian.Uint64(p[8:])
	p = p[16:]
	for _, f := range []*[]byte{&r.addr, &r.rkey} {
		if len(p) < 4 {
			return bad("truncated")
		}
		n := int(binary.LittleEndian.Uint32(p))
		p = p[4:]
		if n > len(p) {
			return bad("truncated")
		}
		*f, p = p[:n:n], p[n:]
	}
	if len(r.addr) == 0 || len(r.rkey) == 0 {
		return bad("empty address or key")
	}
	return r, nil
}

// String is for logs: the record without its key.
func (r ucxRecord) String() string {
	return fmt.Sprintf("worker address %s..., heap %#x+%d", hex.EncodeToString(r.addr[:min(8, len(r.addr))]), r.base, r.size)
}

func recordMAC(secret []byte, pe int, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(pe))
	m.Write(b[:])
	m.Write(body)
	return m.Sum(nil)
}

// summarizeLanes condenses ucp_ep_print_info's lane lines
// ("lane[0]:  0:tcp/lo.0 md[0] -> md[0]/tcp/sysdev[255] am am_bw#0 ...")
// into "tcp/lo.0 (am am_bw ...)" entries, and says when UCP emulates
// RMA or atomics over active messages for want of a lane for them.
func summarizeLanes(info string) string {
	var lanes []string
	rma, amo := false, false
	for _, line := range strings.Split(info, "\n") {
		_, rest, ok := strings.Cut(line, "lane[")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			continue
		}
		_, tl, _ := strings.Cut(f[1], ":")
		var roles []string
		if _, after, ok := strings.Cut(rest, "->"); ok {
			for _, r := range strings.Fields(after)[1:] {
				r, _, _ = strings.Cut(r, "#")
				roles = append(roles, r)
				rma = rma || strings.HasPrefix(r, "rma")
				amo = amo || strings.HasPrefix(r, "amo")
			}
		}
		lanes = append(lanes, fmt.Sprintf("%s (%s)", tl, strings.Join(roles, " ")))
	}
	if len(lanes) == 0 {
		return ""
	}
	if !rma {
		lanes = append(lanes, "rma emulated over am")
	}
	if !amo {
		lanes = append(lanes, "amo emulated over am")
	}
	return strings.Join(lanes, "; ")
}
