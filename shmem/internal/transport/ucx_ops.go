//go:build ucx && cgo

package transport

import (
	"context"
	"fmt"
	"unsafe"
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
	now := monoNow()
	u.issuerTick(now)
	op := &ucxOp{pe: pe}
	if len(buf) > 0 {
		op.pin.Pin(&buf[0])
	}
	u.lock()
	if u.down {
		u.mu.Unlock()
		op.pin.Unpin()
		return nil, fmt.Errorf("%w: transport closed", ErrPeerLost)
	}
	r := issue()
	u.mu.Unlock()
	u.took(now)
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
	u.lock()
	defer u.mu.Unlock()
	if len(p.nbi) >= 256 {
		keep := p.nbi[:0]
		for _, o := range p.nbi {
			if !u.poll(o) {
				keep = append(keep, o)
			} else if o.st != stOK || o.err != nil {
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

// Fence orders this PE's earlier puts before its later ones, and (by a
// flush before the next operation message to each target written since
// the last Quiet) before its later atomics and accumulates.
func (u *UCX) Fence() error {
	u.lock()
	defer u.mu.Unlock()
	if u.down {
		return nil
	}
	for _, p := range u.peers {
		if p != nil && p.dirty {
			p.fenced = true
		}
	}
	return u.lib.fence()
}

// Quiet returns when every put and non-blocking get this PE issued has
// completed at its target.
func (u *UCX) Quiet() error {
	var flushes []*ucxOp
	var nbi []*ucxOp
	var first error
	u.lock()
	for _, p := range u.peers {
		if p == nil || !p.dirty {
			continue
		}
		p.dirty, p.fenced = false, false
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
	u.lock()
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
