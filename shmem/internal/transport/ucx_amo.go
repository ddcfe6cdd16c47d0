//go:build ucx && cgo

package transport

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/internal/accops"
	"github.com/gshmem/gshmem/internal/atomicop"
	"github.com/gshmem/gshmem/shmem/internal/doorbell"
)

// Atomics and accumulates are executed by the target, as on tcp: the
// issuer sends a UCP active message (GS_AM_OP), the target's progress
// applies it to its heap with the runtime's own atomics (atomicop, and
// ApplyAcc with its stripe locks), rings its doorbell and answers with the
// old values. So every AMO of the core, at every width, and every
// accumulate op is atomic with the target node's CPU atomics, its tcp
// transport and the layers' direct updates, and a remote atomic costs one
// message each way: UCP's own atomics are AM-emulated in its CPU atomic
// mode anyway (what that mode needs to be coherent with the target's CPU),
// and needed a separate doorbell message after them.
//
// A 4- or 8-byte atomic is applied and answered inside the AM callback
// (gs_amo_fast in ucx_shim.c), as UCP answers its own emulated atomics: the
// answer then waits for no return to Go, and the Go side only rings the
// bell when waiters are registered (GS_EV_RANG). The C switch applies the
// sequentially consistent atomics sync/atomic applies, so it stays atomic
// with atomicop's; TestUCXAtomicsEveryOpAndWidth checks every op against
// atomicop.Apply. The issuer's poll likewise takes the reply it waits for
// in the callback (gs_reply_fast).

// A GS_AM_OP message starts with opHdrSize bytes (little endian):
//
//	 0 kind u32     opAMO, opAcc or opReply
//	 4 from u32     the sender's PE (the C callback reads it too)
//	 8 id u64       the issuer's call, echoed by the reply
//	16 token u64    the job's op token: a message without it is dropped
//	24 off u64      heap offset (reply: the old value of an atomic)
//	32 a u64        atomic: operand; accumulate: stripe locks' offset
//	40 b u64        atomic: compare; accumulate: count, phase and flags as tcp's frame
//	48 op u8        AtomicOp (with OpRuntime) or the accumulate op
//	49 width u8     atomic: bytes; accumulate: element type
//	52 status i32   reply: opOK, opRejected or opFailed
//
// followed by the payload: an accumulate's source elements and compare
// element, a reply's fetched elements.
const (
	opHdrSize = 64
	opAMO     = 1
	opAcc     = 2
	opReply   = 3

	opOK       = 0
	opRejected = 1 // the target found the request invalid
	opFailed   = 2 // the target could not apply it (a stripe lock stayed taken, or none was named)

	// ucxAccChunk bounds an accumulate message's payload, so that one
	// message is sent eagerly and applied in one bounded step.
	ucxAccChunk = 32 << 10
)

type opHeader struct {
	kind, from     uint32
	id, token, off uint64
	a, b           uint64
	op, width      uint8
	status         int32
}

func (h *opHeader) encode(p []byte) {
	binary.LittleEndian.PutUint32(p[0:], h.kind)
	binary.LittleEndian.PutUint32(p[4:], h.from)
	binary.LittleEndian.PutUint64(p[8:], h.id)
	binary.LittleEndian.PutUint64(p[16:], h.token)
	binary.LittleEndian.PutUint64(p[24:], h.off)
	binary.LittleEndian.PutUint64(p[32:], h.a)
	binary.LittleEndian.PutUint64(p[40:], h.b)
	p[48], p[49] = h.op, h.width
	binary.LittleEndian.PutUint32(p[52:], uint32(h.status))
}

func decodeOpHeader(p []byte) opHeader {
	return opHeader{
		kind: binary.LittleEndian.Uint32(p[0:]), from: binary.LittleEndian.Uint32(p[4:]),
		id: binary.LittleEndian.Uint64(p[8:]), token: binary.LittleEndian.Uint64(p[16:]),
		off: binary.LittleEndian.Uint64(p[24:]), a: binary.LittleEndian.Uint64(p[32:]), b: binary.LittleEndian.Uint64(p[40:]),
		op: p[48], width: p[49], status: int32(binary.LittleEndian.Uint32(p[52:])),
	}
}

// opToken is the job's token for operation messages. UCP does not
// authenticate who connects to a worker; the token, derived from the job
// secret that also seals the exchanged records, keeps a stranger that
// reached the worker from writing to the heap through these messages.
func opToken(secret []byte) uint64 {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("gshmem ucx operations"))
	return binary.LittleEndian.Uint64(m.Sum(nil))
}

// call sends an operation to p and returns the op its reply completes.
// res receives the reply's payload (nil: none expected). After a Fence
// with puts to p before it, the puts are flushed first: they travel as
// RMA, the operation as a message, and UCP orders the two only by a flush.
//
// An atomic's message (no payload) is built and sent in C (sendAMO): with
// the lazily made done channel (doneCh), a call then costs the issuer one
// allocation, its op.
func (u *UCX) call(p *ucxPeer, h opHeader, payload, res []byte) (*ucxOp, error) {
	var msg []byte
	if h.kind != opAMO || len(payload) > 0 {
		msg = make([]byte, opHdrSize+len(payload))
		copy(msg[opHdrSize:], payload)
	}
	op := &ucxOp{pe: p.pe, call: true, res: res}
	u.lock()
	for p.fenced && !u.down {
		u.mu.Unlock()
		if err := u.fenceFlush(p); err != nil {
			return nil, err
		}
		u.lock()
	}
	defer u.mu.Unlock()
	if u.down {
		return nil, fmt.Errorf("%w: transport closed", ErrPeerLost)
	}
	u.nextID++
	op.id = u.nextID
	var err error
	if msg == nil {
		err = u.lib.sendAMO(p.e, op.id, &h)
	} else {
		h.from, h.id, h.token = uint32(u.me), op.id, u.token
		h.encode(msg)
		err = u.lib.sendOp(p.e, msg)
	}
	if err != nil {
		if herr := u.h.check(p.pe); herr != nil {
			return nil, herr
		}
		return nil, fmt.Errorf("transport: PE %d: %w", p.pe, err)
	}
	u.calls[op.id] = op
	u.took(monoNow())
	return op, nil
}

// fenceFlush flushes p's endpoint when a Fence came after puts to p.
func (u *UCX) fenceFlush(p *ucxPeer) error {
	u.lock()
	if !p.fenced || u.down {
		u.mu.Unlock()
		return nil
	}
	p.fenced = false
	r := u.lib.flush(p.e)
	u.mu.Unlock()
	if r.req == nil {
		if r.st != stOK {
			return opError(fmt.Sprintf("flushing PE %d", p.pe), r.st)
		}
		return nil
	}
	return u.wait(&ucxOp{pe: p.pe, req: r.req}, "flush of")
}

// handleOp serves an operation message from p, or completes the call a
// reply answers. Called under mu, from progress.
func (u *UCX) handleOp(p *ucxPeer, msg []byte) {
	if len(msg) < opHdrSize {
		return
	}
	h := decodeOpHeader(msg)
	if h.token != u.token || int(h.from) != p.pe {
		u.log().Errorf("ucx transport: dropped an operation message that claims to come from PE %d without the job's token", h.from)
		return
	}
	switch h.kind {
	case opReply:
		u.completeCall(p, h, msg[opHdrSize:])
	case opAMO:
		old, st := u.applyAMO(h)
		u.reply(p, h.id, old, st, nil)
	case opAcc:
		res, st := u.applyAcc(p, h, msg[opHdrSize:])
		u.reply(p, h.id, 0, st, res)
	}
}

func (u *UCX) applyAMO(h opHeader) (uint64, int32) {
	base, rt := AtomicOp(h.op).Split()
	w := int(h.width)
	if !atomicop.Op(base).Valid() || !atomicop.Width(w) || h.off%uint64(w) != 0 || h.off > uint64(len(u.heap)-w) {
		u.log().Errorf("ucx transport: refused atomic op %d of width %d at offset %d", h.op, w, h.off)
		return 0, opRejected
	}
	old := apply(unsafe.Pointer(&u.heap[h.off]), w, base, h.a, h.b)
	if base != OpLoad {
		ringAtomic(u.heap, rt)
	}
	return old, opOK
}

func (u *UCX) applyAcc(p *ucxPeer, h opHeader, payload []byte) ([]byte, int32) {
	f := frame{typ: fAcc, op: h.op, width: h.width, n: uint32(len(payload)), off: h.off, a: h.a, b: h.b}
	res, err := applyAccFrame(u.heap, &f, payload, u.timeout, u.stop)
	switch {
	case errors.Is(err, errBadAcc):
		u.log().Errorf("ucx transport: PE %d sent %v", p.pe, err)
		return nil, opRejected
	case err != nil:
		u.log().Errorf("ucx transport: accumulate from PE %d: %v", p.pe, err)
		return nil, opFailed
	}
	return res, opOK
}

// ringAtomic wakes the waiters an atomic from another node may concern:
// the user waiters, the lock waiters (it may be a window's lock release,
// whose waiters sleep as lock waiters) and, for one of the runtime's own
// atomics, the runtime's (barriers, collectives), as a node-local atomic
// does (atomicOn). A user atomic does not wake a PE asleep in a barrier:
// under a stream of them that PE's thread would wake, recheck and sleep
// once per operation, on the CPUs the target's progress needs.
func ringAtomic(heap []byte, runtime bool) {
	b := doorbell.At(heap)
	if runtime {
		b.Ring(true)
		return
	}
	b.RingUser()
	b.RingLock()
}

// reply answers call id of p; a reply that cannot be sent is the
// issuer's peer-lost error, which the endpoint's failure reports.
func (u *UCX) reply(p *ucxPeer, id, old uint64, st int32, res []byte) {
	if p.failed {
		return
	}
	msg := make([]byte, opHdrSize+len(res))
	h := opHeader{kind: opReply, from: uint32(u.me), id: id, token: u.token, off: old, status: st}
	h.encode(msg)
	copy(msg[opHdrSize:], res)
	if err := u.lib.sendOp(p.e, msg); err != nil {
		u.log().Debugf("ucx transport: replying to PE %d: %v", p.pe, err)
	}
}

func (u *UCX) completeCall(p *ucxPeer, h opHeader, payload []byte) {
	op := u.calls[h.id]
	if op == nil || op.pe != p.pe {
		return // the issuer gave up on it
	}
	delete(u.calls, h.id)
	op.old = h.off
	switch {
	case h.status == opRejected:
		op.err = fmt.Errorf("transport: PE %d rejected an operation over ucx: %w", p.pe, errOpRejected)
	case h.status != opOK:
		op.err = fmt.Errorf("transport: PE %d could not apply an accumulate over ucx (its log says why)", p.pe)
	case len(payload) != len(op.res):
		op.err = fmt.Errorf("transport: PE %d answered with %d bytes, want %d", p.pe, len(payload), len(op.res))
	default:
		copy(op.res, payload)
	}
	u.finishCall(op, stOK)
}

// errOpRejected is wrapped by the error of an operation the target found
// invalid.
var errOpRejected = errors.New("invalid request")

func (u *UCX) finishCall(op *ucxOp, st int) {
	op.st, op.finished = st, true
	op.signal()
	u.wakeLeader(op)
}

// Atomic runs op on pe's word of width bytes and returns its old value
// (0 for a store).
func (u *UCX) Atomic(pe int, off uint64, width int, op AtomicOp, operand, compare uint64) (uint64, error) {
	base, _ := op.Split()
	if !atomicop.Op(base).Valid() || !atomicop.Width(width) || off%uint64(width) != 0 {
		return 0, fmt.Errorf("transport: atomic op %d of width %d at offset %d", op, width, off)
	}
	p, err := u.peer(pe)
	if err != nil {
		return 0, err
	}
	c, err := u.call(p, opHeader{kind: opAMO, off: off, a: operand, b: compare, op: uint8(op), width: uint8(width)}, nil, nil)
	if err != nil {
		return 0, err
	}
	if err := u.wait(c, "atomic on"); err != nil {
		return 0, err
	}
	if base == OpStore {
		return 0, nil
	}
	return c.old, nil
}

// AtomicNBI is Atomic, complete when it returns (the Stream form).
func (u *UCX) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	old, err := u.Atomic(pe, off, width, op, operand, compare)
	putBits(dst, old)
	return err
}

// Accumulate sends a to pe in messages of at most ucxAccChunk payload
// bytes, each applied whole by the target. One that fetches waits for the
// old values; the others complete by Quiet, as puts do.
func (u *UCX) Accumulate(pe int, a *Acc) error {
	tab := accops.Get()
	if tab == nil || tab.Size(a.Type) == 0 {
		return fmt.Errorf("transport: accumulate of element type %d: this program has no such accumulate op", a.Type)
	}
	p, err := u.peer(pe)
	if err != nil {
		return err
	}
	var calls []*ucxOp
	first := accParts(a, tab.Size(a.Type), ucxAccChunk, func(part *Acc, f frame, payload []byte) error {
		c, err := u.call(p, opHeader{kind: opAcc, off: f.off, a: f.a, b: f.b, op: f.op, width: f.width}, payload, part.Res)
		if err == nil {
			calls = append(calls, c)
		}
		return err
	})
	if a.Res == nil && first == nil {
		for _, c := range calls {
			u.pending(p, c)
		}
		u.lock()
		p.dirty = true
		u.mu.Unlock()
		return nil
	}
	for _, c := range calls {
		first = cmpErr(first, u.wait(c, "accumulate on"))
	}
	return first
}
