package compat

import "github.com/gshmem/gshmem/internal/mpitype"

// Point-to-point calls. A message is count instances of dt taken from buf;
// its envelope is the communicator, the sender's rank and the tag. Messages
// between one pair of ranks on one communicator are received in the order
// they were sent when both match a receive (MPI's non-overtaking rule).

// sendArgs checks a send and returns its bytes (packed when dt is not
// contiguous) and the destination's world rank.
func sendArgs[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, tag int, what string) (data []byte, pe, poolOff int, dev bool, err error) {
	poolOff = -1
	if err = c.check(what); err != nil {
		return
	}
	if pe, err = c.peerArg(dest, false, what); err != nil {
		return
	}
	if err = c.ftCheck(what, pe, false); err != nil {
		return
	}
	if err = tagArg(tag, false, what); err != nil {
		return
	}
	b, size, err := srcView(buf, count, dt, what)
	if err != nil {
		return
	}
	if c.env.dev && pe != ProcNull {
		if data, dev, err = c.env.deviceSend(b, size, count, dt); err != nil || data != nil {
			return
		}
	}
	data, poolOff = c.env.packSend(b, size, count, dt)
	return
}

// packSend returns the bytes of count instances of dt in b, packed into
// AllocMem memory (so the receiver can Get them) or a new slice when dt is
// not contiguous.
func (e *Env) packSend(b []byte, size, count int, dt Datatype) ([]byte, int) {
	d := mapOf(dt)
	if d.Contiguous() {
		return b[:size], -1
	}
	if size > e.cfg.eagerLimit {
		e.mu.Lock()
		off, ok := e.poolAlloc.alloc(size)
		e.mu.Unlock()
		if ok {
			out := e.poolMine[off : off+size : off+size]
			d.Pack(out, b, count)
			return out, off
		}
	}
	out := make([]byte, size)
	d.Pack(out, b, count)
	return out, -1
}

// recvArgs checks a receive and returns where its bytes go, the unpacking
// step for a non-contiguous dt, and the source's world rank (or AnySource).
func recvArgs[T Elem](c *Comm, buf []T, count int, dt Datatype, src, tag int, what string) (dst []byte, unpack func([]byte), pe int, dr devRecv, err error) {
	if err = c.check(what); err != nil {
		return
	}
	if pe, err = c.peerArg(src, true, what); err != nil {
		return
	}
	if err = c.ftCheck(what, pe, false); err != nil {
		return
	}
	if err = tagArg(tag, true, what); err != nil {
		return
	}
	b, size, err := view(buf, count, dt, what)
	if err != nil {
		return
	}
	if c.env.dev && pe != ProcNull {
		if dst, unpack, dr, err = c.env.deviceRecv(b, size, count, dt); err != nil || dst != nil {
			return
		}
	}
	dst, unpack = recvBuffer(b, size, count, mapOf(dt))
	return
}

func recvBuffer(b []byte, size, count int, d *mpitype.Map) ([]byte, func([]byte)) {
	if d.Contiguous() {
		return b[:size], nil
	}
	tmp := make([]byte, size)
	return tmp, func(got []byte) { d.Unpack(b, got, count) }
}

// isend starts sending data to world rank pe; it returns nil when the send
// completed at once (an eager message written into the peer's ring).
func (e *Env) isend(data []byte, pe int, tag int32, ctx uint32, sync bool, poolOff int) *Request {
	return e.isendx(data, pe, tag, ctx, sync, poolOff, false)
}

// isendx is isend whose data may be device memory (dev): such data is
// larger than the eager limit (deviceSend copies smaller messages to the
// host) and goes by rendezvous.
func (e *Env) isendx(data []byte, pe int, tag int32, ctx uint32, sync bool, poolOff int, dev bool) *Request {
	if pe >= e.n {
		return e.linkSend(data, pe, tag, ctx, sync, poolOff)
	}
	e.mu.Lock()
	e.count.sent(len(data))
	if !sync && !dev && len(data) <= e.cfg.eagerLimit {
		if len(e.peers[pe].outq) == 0 && e.write(pe, kEager, tag, ctx, 0, data) {
			e.mu.Unlock()
			return nil
		}
		r := &Request{env: e, poolOff: -1, sctx: ctx}
		e.enqueue(pe, &outMsg{kind: kEager, tag: tag, ctx: ctx, data: data, req: r})
		e.mu.Unlock()
		return r
	}
	r := &Request{env: e, data: data, dest: pe, poolOff: poolOff, devData: dev, sctx: ctx}
	e.sendRdv(r, pe, tag, ctx)
	e.mu.Unlock()
	return r
}

// irecv posts a receive into dst from world rank pe (or AnySource).
func (e *Env) irecv(c *Comm, dst []byte, unpack func([]byte), pe, tag int, ctx uint32) *Request {
	return e.irecvx(c, dst, unpack, pe, tag, ctx, devRecv{})
}

// irecvx is irecv into dst that may be device memory (p2p_device.go).
func (e *Env) irecvx(c *Comm, dst []byte, unpack func([]byte), pe, tag int, ctx uint32, dr devRecv) *Request {
	r := &Request{env: e, comm: c, ctx: ctx, src: pe, tag: tag, buf: dst, unpack: unpack, poolOff: -1, devBuf: dr.dev, fin: dr.fin}
	e.mu.Lock()
	e.postRecv(r)
	if pe >= e.n || (pe == AnySource && e.dyn.lost.Load() != 0) {
		e.failLost(r)
	}
	e.mu.Unlock()
	return r
}

func (e *Env) wait(r *Request) (Status, error) {
	if r == nil {
		return Status{}, nil
	}
	return r.Wait()
}

func startSend[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, tag int, sync bool, what string) (*Request, error) {
	data, pe, poolOff, dev, err := sendArgs(c, buf, count, dt, dest, tag, what)
	if err != nil {
		return nil, err
	}
	if pe == ProcNull {
		return nil, nil
	}
	return c.env.isendx(data, pe, int32(tag), c.ctx, sync, poolOff, dev), nil
}

// Send sends count instances of dt from buf to rank dest with tag
// (MPI_Send). It returns when buf may be reused: at once for a message up
// to the eager limit, after the receiver has taken it for a larger one.
func Send[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, tag int) error {
	r, err := startSend(c, buf, count, dt, dest, tag, false, "Send")
	if err != nil || r == nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// Ssend is Send that returns only once the receiver has matched the
// message (MPI_Ssend).
func Ssend[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, tag int) error {
	r, err := startSend(c, buf, count, dt, dest, tag, true, "Ssend")
	if err != nil || r == nil {
		return err
	}
	_, err = r.Wait()
	return err
}

// Isend starts a send and returns its request (MPI_Isend); buf must not
// change until the request completes.
func Isend[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, tag int) (*Request, error) {
	r, err := startSend(c, buf, count, dt, dest, tag, false, "Isend")
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = c.env.doneRequest(Status{}, nil)
	}
	return r, nil
}

// Issend is Isend completing only once the receiver has matched the
// message (MPI_Issend).
func Issend[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, tag int) (*Request, error) {
	r, err := startSend(c, buf, count, dt, dest, tag, true, "Issend")
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = c.env.doneRequest(Status{}, nil)
	}
	return r, nil
}

// Irecv starts a receive of up to count instances of dt into buf from rank
// src (or AnySource) with tag (or AnyTag) and returns its request
// (MPI_Irecv). A longer message completes the request with ErrTruncate.
func Irecv[T Elem](c *Comm, buf []T, count int, dt Datatype, src, tag int) (*Request, error) {
	dst, unpack, pe, dr, err := recvArgs(c, buf, count, dt, src, tag, "Irecv")
	if err != nil {
		return nil, err
	}
	if pe == ProcNull {
		return c.env.doneRequest(nullStatus(), nil), nil
	}
	return c.env.irecvx(c, dst, unpack, pe, tag, c.ctx, dr), nil
}

// Recv receives up to count instances of dt into buf from rank src (or
// AnySource) with tag (or AnyTag) and returns the Status (MPI_Recv). A
// longer message fills buf and returns ErrTruncate.
func Recv[T Elem](c *Comm, buf []T, count int, dt Datatype, src, tag int) (Status, error) {
	dst, unpack, pe, dr, err := recvArgs(c, buf, count, dt, src, tag, "Recv")
	if err != nil {
		return Status{}, err
	}
	if pe == ProcNull {
		return nullStatus(), nil
	}
	if dr.dev || dr.fin != nil {
		// The blocking path's spare request is host-only: a device
		// receive takes a request of its own.
		return c.env.irecvx(c, dst, unpack, pe, tag, c.ctx, dr).Wait()
	}
	source, mtag, n, err := c.env.recv(c, dst, unpack, pe, tag)
	return Status{Source: source, Tag: mtag, bytes: n}, err
}

// recv is a blocking receive. Its request never leaves the call, so the
// Env keeps one for the next call, and only this goroutine waits on it: it
// waits here, taking mu once per round, rather than through Request.Wait.
// It returns the Status's fields, not a Status: a struct returned through
// two calls is copied through the stack in pieces that stall the loads
// (store forwarding fails), a tenth of a small message's cost.
func (e *Env) recv(c *Comm, dst []byte, unpack func([]byte), pe, tag int) (source, mtag, n int, err error) {
	e.mu.Lock()
	r := e.spareRecv
	e.spareRecv = nil
	if r == nil {
		r = &Request{env: e, poolOff: -1, blocking: true}
	}
	r.comm, r.ctx, r.src, r.tag, r.buf, r.unpack = c, c.ctx, pe, tag, dst, unpack
	e.postRecv(r)
	if pe >= e.n || (pe == AnySource && e.dyn.lost.Load() != 0) {
		e.failLost(r)
	}
	var buf [8]uint64
	next := buf[:0]
	for !r.finished {
		if pe == AnySource && c.suspect() {
			// A lost member not acknowledged may be the sender
			// (anysource.go): the receive leaves the queue and fails.
			if lp := c.unackedLoss(); lp >= 0 && e.withdraw(r) {
				e.spareRecv = r.reset()
				e.mu.Unlock()
				return 0, 0, 0, c.lostErr("Recv from AnySource", lp, nil)
			}
		}
		compl := e.seen()
		next = e.expected(next)
		r.parked = true
		e.parked++
		e.mu.Unlock()
		werr := e.idle(compl, next)
		e.stepDriven() // request_drive.go
		e.mu.Lock()
		r.parked = false
		e.parked--
		if werr != nil && !r.finished {
			// Unmatched, r leaves the queue, so that no later message
			// lands in a buffer this call has given back; matched (a
			// rendezvous under way), it is left to the engine.
			if e.withdraw(r) {
				e.spareRecv = r.reset()
			}
			e.mu.Unlock()
			return 0, 0, 0, werr
		}
		// The ring r waits on first: when its message is what woke us, the
		// receive completes without a round over every ring and queue
		// (postRecv made one in this call already).
		if pe >= 0 && pe < e.n && e.drain(pe) && e.parked > 0 {
			e.wake() // as progress does
		}
		if !r.finished {
			e.progress()
		}
	}
	source, mtag, n, err = r.status.Source, r.status.Tag, r.status.bytes, r.err
	e.spareRecv = r.reset()
	e.mu.Unlock()
	return source, mtag, n, err
}

// reset readies a blocking receive's request for the next call: every
// other field is set again before the engine reads it.
func (r *Request) reset() *Request {
	r.finished, r.err, r.buf, r.unpack = false, nil, nil, nil
	return r
}

// Sendrecv sends to dest and receives from src at the same time, so that a
// ring of Sendrecv calls cannot deadlock (MPI_Sendrecv).
func Sendrecv[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, dest, stag int,
	rbuf []R, rcount int, rdt Datatype, src, rtag int) (Status, error) {
	if err := checkTypedAlias(sbuf, scount, sdt, rbuf, rcount, rdt, "Sendrecv"); err != nil {
		return Status{}, err
	}
	data, spe, poolOff, sdev, err := sendArgs(c, sbuf, scount, sdt, dest, stag, "Sendrecv")
	if err != nil {
		return Status{}, err
	}
	dst, unpack, rpe, rdr, err := recvArgs(c, rbuf, rcount, rdt, src, rtag, "Sendrecv")
	if err != nil {
		return Status{}, err
	}
	return c.env.sendrecv(c, data, spe, stag, poolOff, sdev, dst, unpack, rpe, rtag, rdr)
}

func (e *Env) sendrecv(c *Comm, data []byte, spe, stag, poolOff int, sdev bool, dst []byte, unpack func([]byte), rpe, rtag int, rdr devRecv) (Status, error) {
	st := nullStatus()
	var rr *Request
	if rpe != ProcNull {
		rr = e.irecvx(c, dst, unpack, rpe, rtag, c.ctx, rdr)
	}
	var sr *Request
	if spe != ProcNull {
		sr = e.isendx(data, spe, int32(stag), c.ctx, false, poolOff, sdev)
	}
	_, serr := e.wait(sr)
	if rr != nil {
		var err error
		st, err = rr.Wait()
		if err != nil {
			return st, rr.abandon(err)
		}
	}
	return st, serr
}

// SendrecvReplace is Sendrecv with one buffer: its contents are sent and
// then replaced by the message received (MPI_Sendrecv_replace).
func SendrecvReplace[T Elem](c *Comm, buf []T, count int, dt Datatype, dest, stag, src, rtag int) (Status, error) {
	data, spe, poolOff, sdev, err := sendArgs(c, buf, count, dt, dest, stag, "SendrecvReplace")
	if err != nil {
		return Status{}, err
	}
	switch {
	case sdev:
		// The message leaves from a copy, as below. A device buffer's copy
		// is in host memory: a device temporary would have to be freed,
		// and cuMemFree waits for the whole GPU (peers' kernels too).
		if data, err = c.env.toHost(data); err != nil {
			return Status{}, err
		}
		sdev = false
	case poolOff < 0 && mapOf(dt).Contiguous():
		data = append([]byte(nil), data...)
	}
	dst, unpack, rpe, rdr, err := recvArgs(c, buf, count, dt, src, rtag, "SendrecvReplace")
	if err != nil {
		return Status{}, err
	}
	return c.env.sendrecv(c, data, spe, stag, poolOff, sdev, dst, unpack, rpe, rtag, rdr)
}
