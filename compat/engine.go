package compat

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gshmem/gshmem/compat/internal/p2pstate"
	"github.com/gshmem/gshmem/shmem"
)

// The mailbox transport.
//
// Every PE holds, in its symmetric heap, one ring per peer: ring s receives
// the messages PE s sends it, in order. A ring is a sequence of 64-byte
// cells; a message is a 32-byte header followed by its payload, rounded up
// to whole cells, and may wrap around the end of the ring. The first word
// of the header is the stamp: the message's absolute cell position plus
// one, stored last with an atomic store, so a receiver that loads the
// stamp it expects at its read position sees the whole message (a
// put-with-signal whose signal is in the data's own cache line: one line
// crosses between the cores for a small message). Stamps only grow, so an
// old header never passes for a new one; the receiver clears the first word
// of every payload cell it consumes, so no stale data can either.
//
// Flow control is by credit: the receiver writes how many cells it has
// consumed into the sender's control words when a quarter of the ring has
// been consumed. A message is at most half a ring, so a sender that lacks
// room always finds credit once the receiver drains.
//
// A receiver drains every ring whenever it makes progress (inside any
// call), matching messages against posted receives or keeping them in the
// unexpected queue, so rings never stay full while a peer waits.
//
// Waiting: a waiter watches its rings' next stamps through the World's one
// wait policy (shmem.World.Await: polls, then a futex sleep on its heap's
// doorbell). A writer publishes the stamp or the credit with the core's
// store-and-wake (shmem.Mapped.StoreUint64 into a mapped peer, shmem.Store
// otherwise), which wakes the peer if it sleeps, as every other write into
// its heap does.

const (
	cell    = p2pstate.Cell
	hdrSize = p2pstate.HdrSize

	// Control words (uint64 indices into ctrl).
	tokenIdx   = 0                   // procToken of the PE's process
	creditBase = p2pstate.CreditBase // creditBase+p: cells of this PE's ring at p that p consumed
)

func ctrlWords(n int) int { return (creditBase + n + 7) &^ 7 }

// Message kinds.
const (
	kEager     = p2pstate.KindEager + iota // payload: the data
	kRTS                                   // rendezvous request: size, mode, sender request id, location
	kCTS                                   // staged rendezvous matched: aux sender id, w0 receiver id
	kChunk                                 // staged chunk ready: aux receiver id, w0 chunk, w1 bytes, w2 data offset, w3 area
	kCAck                                  // staged chunk consumed: aux sender id, w0 chunk, w1 bytes, w2 area
	kFin                                   // rendezvous complete: aux sender id
	kWithdraw                              // a cancelled send takes back its rendezvous request: aux sender id
	kWithdrawn                             // kWithdraw's answer: aux sender id, w0 1 when taken back, 0 when already matched
	kRevoke                                // the communicator of context ctx was revoked (revoke.go)
)

func ncells(plen int) uint64 { return uint64(hdrSize+plen+cell-1) / cell }

// peer is the state of this PE's two rings with one peer. The cursors
// (cells written and the credit seen, cells read and the credit returned)
// are in cur, in the published state (p2pstate), where the C ABI's fast
// path advances them too.
type peer struct {
	// Outbound: our ring in the peer's heap.
	ring []byte       // mapped, or nil: use shmem.Put
	ctrl []uint64     // the peer's control words, mapped, or nil
	mem  shmem.Mapped // the peer's heap, when ring and ctrl are mapped
	outq []*outMsg

	cur      *p2pstate.Peer
	sameProc bool
}

// outMsg is a message waiting for ring space.
type outMsg struct {
	kind uint8
	nw   uint8 // control payload words
	tag  int32
	ctx  uint32
	aux  uint64
	w    [4]uint64
	data []byte
	req  *Request // an eager send completed by the write
}

// payload returns the bytes m carries: its control words or its data.
func (m *outMsg) payload() []byte {
	if m.nw > 0 {
		return unsafe.Slice((*byte)(unsafe.Pointer(&m.w[0])), int(m.nw)*8)
	}
	return m.data
}

func word(b []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&b[off])) }

// write puts a message into p's ring if there is room. It takes the
// envelope as arguments, not an outMsg, so that an eager send that finds
// room builds nothing.
func (e *Env) write(p int, kind uint8, tag int32, ctx uint32, aux uint64, payload []byte) bool {
	pr := &e.peers[p]
	cur := pr.cur
	plen := len(payload)
	cells := ncells(plen)
	if cur.Wpos+cells-cur.Credit > e.ringCells {
		cur.Credit = atomic.LoadUint64(&e.ctrlMine[creditBase+p])
		if cur.Wpos+cells-cur.Credit > e.ringCells {
			e.creditWatch[p].Store(cur.Credit + 1)
			return false
		}
	}
	pos := cur.Wpos
	off := int(pos&(e.ringCells-1)) * cell
	w1 := uint64(kind) | uint64(plen)<<8
	w2 := uint64(uint32(tag)) | uint64(ctx)<<32
	if ring := pr.ring; ring != nil {
		// A payload of up to 32 bytes shares the header's cell, so the stamp
		// stored last publishes one cache line holding the whole message.
		*word(ring, off+8), *word(ring, off+16), *word(ring, off+24) = w1, w2, aux
		if n := copy(ring[off+hdrSize:], payload); n < plen {
			copy(ring, payload[n:])
		}
		pr.mem.StoreUint64NoYield(word(ring, off), pos+1)
	} else if err := e.writeRemote(p, off, pos, payload, w1, w2, aux); err != nil {
		e.w.Logger().Errorf("compat: writing to PE %d: %v", p, err)
	}
	cur.Wpos = pos + cells
	return true
}

// writeRemote is write for a peer whose heap is not mapped: puts, a fence,
// then the stamp as an atomic.
func (e *Env) writeRemote(p, off int, pos uint64, payload []byte, w1, w2, aux uint64) error {
	rb := e.cfg.ringBytes
	buf := make([]byte, hdrSize-8+len(payload))
	*word(buf, 0), *word(buf, 8), *word(buf, 16) = w1, w2, aux
	copy(buf[hdrSize-8:], payload)
	base := e.me * rb
	first := min(len(buf), rb-off-8)
	if err := shmem.Put(e.rings.Slice(base+off+8, base+off+8+first), buf[:first], p); err != nil {
		return err
	}
	if first < len(buf) {
		if err := shmem.Put(e.rings.Slice(base, base+len(buf)-first), buf[first:], p); err != nil {
			return err
		}
	}
	if err := e.w.Fence(); err != nil {
		return err
	}
	stamp, err := shmem.View[uint64](e.rings.Slice(base+off, base+off+8))
	if err != nil {
		return err
	}
	return shmem.Store(stamp, pos+1, p)
}

// send writes m to p, or queues it behind earlier messages; it reports
// whether m was written now. m is copied when queued.
func (e *Env) send(p int, m *outMsg) bool {
	pr := &e.peers[p]
	if len(pr.outq) == 0 && e.write(p, m.kind, m.tag, m.ctx, m.aux, m.payload()) {
		return true
	}
	c := *m
	e.enqueue(p, &c)
	return false
}

// enqueue queues m for p behind the messages already waiting.
func (e *Env) enqueue(p int, m *outMsg) {
	pr := &e.peers[p]
	pr.outq = append(pr.outq, m)
	pr.cur.Queued++
	e.pub.Queued++
}

// ctl sends a control message.
func (e *Env) ctl(p int, kind uint8, aux uint64, w ...uint64) {
	m := outMsg{kind: kind, aux: aux, nw: uint8(len(w))}
	copy(m.w[:], w)
	e.send(p, &m)
}

func (e *Env) flush(p int) {
	pr := &e.peers[p]
	for len(pr.outq) > 0 {
		m := pr.outq[0]
		if !e.write(p, m.kind, m.tag, m.ctx, m.aux, m.payload()) {
			return
		}
		pr.outq[0] = nil
		pr.outq = pr.outq[1:]
		pr.cur.Queued--
		e.pub.Queued--
		if m.req != nil {
			e.complete(m.req)
		}
	}
	pr.outq = nil
	e.creditWatch[p].Store(0)
}

func (e *Env) returnCredit(p int) {
	pr := &e.peers[p]
	rpos := pr.cur.Rpos
	pr.cur.Returned = rpos
	if c := pr.ctrl; c != nil {
		pr.mem.StoreUint64NoYield(&c[creditBase+e.me], rpos)
	} else if err := shmem.Store(e.ctrl.At(creditBase+e.me), rpos, p); err != nil {
		e.w.Logger().Errorf("compat: returning credit to PE %d: %v", p, err)
	}
}

// drain handles every message that has arrived from p and reports whether
// there was any.
func (e *Env) drain(p int) bool {
	cur := e.peers[p].cur
	rb := e.cfg.ringBytes
	ring := e.ringMine[p*rb : (p+1)*rb : (p+1)*rb]
	mask := e.ringCells - 1
	start := cur.Rpos
	for {
		pos := cur.Rpos
		off := int(pos&mask) * cell
		if atomic.LoadUint64(word(ring, off)) != pos+1 {
			break
		}
		w1, w2, aux := *word(ring, off+8), *word(ring, off+16), *word(ring, off+24)
		plen := int(w1 >> 8)
		cells := ncells(plen)
		tag, ctx := int32(uint32(w2)), uint32(w2>>32)
		// Eager messages are handled here, without handle's call: the usual
		// small message, on its critical path.
		if uint8(w1) == kEager {
			if r := e.match(p, tag, ctx); r != nil && !r.devBuf {
				e.finishRecv(r, p, tag, ringCopy(r.buf, ring, off, plen), plen)
			} else if r != nil {
				e.finishRecv(r, p, tag, e.ringIntoDevice(r, ring, off, plen), plen)
			} else {
				e.keep(p, tag, ctx, ring, off, plen)
			}
		} else {
			e.handle(p, uint8(w1), tag, ctx, aux, ring, off, plen)
		}
		for c := uint64(1); c < cells; c++ { // payload cells; a stale header stamp never matches
			*word(ring, int((pos+c)&mask)*cell) = 0
		}
		cur.Rpos = pos + cells
	}
	if cur.Rpos-cur.Returned >= e.ringCells/4 {
		e.returnCredit(p)
	}
	return cur.Rpos != start
}

// ringCopy copies up to len(dst) bytes of the payload at off (the header's
// offset) into dst, following the wrap, and returns the count.
func ringCopy(dst, ring []byte, off, plen int) int {
	n := min(len(dst), plen)
	k := copy(dst[:n], ring[off+hdrSize:])
	if k < n {
		copy(dst[k:n], ring)
	}
	return n
}

// handle takes a control message or a rendezvous request (drain takes
// eager messages itself).
func (e *Env) handle(p int, kind uint8, tag int32, ctx uint32, aux uint64, ring []byte, off, plen int) {
	w := func(i int) uint64 { return *word(ring, off+hdrSize+8*i) }
	switch kind {
	case kRTS:
		rts := rtsInfo{size: int(w(0)), mode: w(1), sreq: w(2), loc: w(3)}
		if r := e.match(p, tag, ctx); r != nil {
			e.recvRdv(r, p, tag, rts)
			return
		}
		e.unexpected = append(e.unexpected, &inMsg{src: p, tag: tag, ctx: ctx, size: rts.size, rdv: true, rts: rts})
		e.pub.Unexpected = uint64(len(e.unexpected))
	case kCTS:
		e.onCTS(aux, w(0))
	case kChunk:
		e.onChunk(p, aux, int(w(0)), int(w(1)), int(w(2)), w(3))
	case kCAck:
		e.onCAck(aux, int(w(0)), int(w(1)), w(2))
	case kFin:
		e.onFin(aux)
	case kWithdraw:
		e.onWithdraw(p, aux)
	case kWithdrawn:
		e.onWithdrawn(aux, w(0) != 0)
	case kRevoke:
		e.onRevoke(p, ctx)
	}
}

// keep queues an unmatched eager message as unexpected.
func (e *Env) keep(p int, tag int32, ctx uint32, ring []byte, off, plen int) {
	data := make([]byte, plen)
	ringCopy(data, ring, off, plen)
	e.unexpected = append(e.unexpected, &inMsg{src: p, tag: tag, ctx: ctx, size: plen, data: data})
	e.pub.Unexpected = uint64(len(e.unexpected))
}

// progress drains every ring and flushes every queue. Called with mu held.
func (e *Env) progress() {
	moved := false
	for p := range e.n {
		moved = e.drain(p) || moved
	}
	if moved && e.parked > 0 {
		// A goroutine idle outside mu watches the ring positions it took
		// before this drain: tell it to take them again.
		e.wake()
	}
	for p := range e.n {
		if len(e.peers[p].outq) > 0 {
			e.flush(p)
		}
	}
}

// complete marks r done and wakes this PE's other sleeping goroutines.
func (e *Env) complete(r *Request) {
	if r.blocking {
		r.finished = true
		if r.parked {
			e.wake()
		}
		return
	}
	r.done.Store(true)
	e.wake()
}

// wake tells this PE's waiting goroutines that something completed. The
// engine's rings (this one, and the stores into peers' rings and credit
// words) are made with mu held, so they keep the thread's P
// (enginelock.go says why).
func (e *Env) wake() {
	e.completions.Add(1)
	e.mine.WakeNoYield()
}

// waitFor makes progress until cond, evaluated with mu held after each
// round of progress, holds.
func (e *Env) waitFor(cond func() bool) error {
	var buf [8]uint64
	next := buf[:0]
	e.mu.Lock()
	for {
		e.progress()
		if cond() {
			e.mu.Unlock()
			return nil
		}
		compl := e.seen()
		next = e.expected(next)
		e.parked++
		e.mu.Unlock()
		t0 := time.Now()
		err := e.idle(compl, next)
		e.count.waitNanos.Add(uint64(time.Since(t0)))
		e.stepDriven() // request_drive.go
		e.mu.Lock()
		e.parked--
		if err != nil {
			e.mu.Unlock()
			return err
		}
	}
}

// expected returns, in next's array, the stamp each ring's next message
// will carry: what a waiter polls for. Waiters take it under mu rather than
// the drain publishing it, which would cost an atomic store per message.
// Called with mu held.
func (e *Env) expected(next []uint64) []uint64 {
	next = next[:0]
	for p := range e.peers {
		next = append(next, e.peers[p].cur.Rpos+1)
	}
	return next
}

// pending reports whether anything arrived since the waiter's last
// progress: a stamp in next, a credit a blocked send waits for, a
// completion made by another goroutine. It reads only atomics. A goroutine
// that drains while this one is parked bumps the completions (progress),
// so a stale next never hides a message.
func (e *Env) pending(compl uint64, next []uint64) bool {
	if e.seen() != compl {
		return true
	}
	rb, mask := e.cfg.ringBytes, e.ringCells-1
	for p, want := range next {
		if atomic.LoadUint64(word(e.ringMine, p*rb+int((want-1)&mask)*cell)) == want {
			return true
		}
		if cw := e.creditWatch[p].Load(); cw != 0 && atomic.LoadUint64(&e.ctrlMine[creditBase+p]) != cw-1 {
			return true
		}
	}
	return false
}

// seen sums what tells a waiter idle outside mu that the rings moved
// under it: the completions of Go's goroutines and the messages the C
// ABI's fast path took under the lock (p2pstate.Engine.Taken). Both only
// grow, so the sum changes when either does.
func (e *Env) seen() uint64 {
	return e.completions.Load() + atomic.LoadUint64(&e.pub.Taken)
}

// idle returns when something may have arrived since the caller took next
// and compl, by the World's wait policy. The caller counts itself in
// e.parked while it idles.
func (e *Env) idle(compl uint64, next []uint64) error {
	err := e.w.Await(shmem.AnyPE, func() (bool, error) {
		if e.closed.Load() {
			return false, errorf(ClassOther, "Env finalized while waiting")
		}
		return e.pending(compl, next), nil
	})
	return wrap(err, "waiting for messages")
}
