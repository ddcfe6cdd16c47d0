//go:build ucx && cgo

package transport

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/gshmem/gshmem/internal/atomicop"
)

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
// AtomicNBI is Atomic, complete when it returns (the Stream form).
func (u *UCX) AtomicNBI(pe int, off uint64, width int, op AtomicOp, operand, compare uint64, dst []byte) error {
	old, err := u.Atomic(pe, off, width, op, operand, compare)
	putBits(dst, old)
	return err
}

// Accumulate is not done over ucx: the one-message accumulate is the tcp
// transport's, and an element-wise emulation with UCP's atomics would not
// be atomic with the target's own hardware atomics.
func (u *UCX) Accumulate(pe int, _ *Acc) error {
	return fmt.Errorf("transport: accumulate to PE %d over the ucx transport: %w", pe, errors.ErrUnsupported)
}

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
