package compat

// Matched probes: MPI_Mprobe and MPI_Improbe, the thread-safe probes. A
// Probe then a Recv is two calls, and another goroutine's receive may
// take the probed message between them; these find the message and take
// it out of matching under one hold of the engine's lock.

// Mprobe blocks until a message from src with tag arrives, takes it out
// of matching and returns the receive of it, in flight (Wait it for the
// data: a rendezvous message may still be on its way), with the message's
// Status (MPI_Mprobe). src may be AnySource and tag AnyTag.
func (c *Comm) Mprobe(src, tag int) (*Request, Status, error) {
	r, st, _, err := c.mprobe(src, tag, true)
	return r, st, err
}

// Improbe is Mprobe that does not block: ok reports whether it found a
// message (MPI_Improbe).
func (c *Comm) Improbe(src, tag int) (r *Request, st Status, ok bool, err error) {
	return c.mprobe(src, tag, false)
}

func (c *Comm) mprobe(src, tag int, block bool) (*Request, Status, bool, error) {
	if err := c.check("Mprobe"); err != nil {
		return nil, Status{}, false, err
	}
	pe, err := c.peerArg(src, true, "Mprobe")
	if err != nil {
		return nil, Status{}, false, err
	}
	if err := errorsOf(tagArg(tag, true, "Mprobe"), c.ftCheck("Mprobe", pe, false)); err != nil {
		return nil, Status{}, false, err
	}
	if pe == ProcNull {
		return nil, nullStatus(), true, nil
	}
	e := c.env
	var r *Request
	var st Status
	var lost error // another job's process that is gone (dynclose.go)
	// take runs with mu held. The message found is the first from its
	// source with its tag, so a receive of exactly that source and tag,
	// posted under the same hold, matches it and no other.
	take := func() bool {
		if c.ft.revoked.Load() {
			return true // revoked meanwhile (revoke.go): below
		}
		i := e.findUnexpected(c.ctx, pe, tag)
		if i < 0 {
			lost = c.linkLostErr(pe, "Mprobe")
			return lost != nil || c.probeLoss("Mprobe", pe, nil) != nil // anysource.go
		}
		m := e.unexpected[i]
		st = Status{Source: c.rankOf(m.src), Tag: int(m.tag), bytes: m.size}
		r = &Request{env: e, comm: c, ctx: c.ctx, src: m.src, tag: int(m.tag), buf: make([]byte, m.size), poolOff: -1}
		e.postRecv(r)
		return true
	}
	if block {
		err := e.waitFor(take)
		switch {
		case c.ft.revoked.Load() && r == nil:
			return nil, Status{}, false, errorf(ClassRevoked, "Mprobe: communicator %s was revoked", c.name)
		case r != nil:
			return r, st, true, nil
		case err == nil && lost != nil:
			return nil, Status{}, false, lost
		}
		return nil, Status{}, false, probeFailed(c, "Mprobe", pe, err)
	}
	e.mu.Lock()
	e.progress()
	take()
	e.mu.Unlock()
	switch {
	case r != nil:
		return r, st, true, nil
	case c.ft.revoked.Load():
		return nil, Status{}, false, errorf(ClassRevoked, "Improbe: communicator %s was revoked", c.name)
	case lost != nil:
		return nil, Status{}, false, lost
	}
	return nil, Status{}, false, c.probeLoss("Improbe", pe, nil)
}

// Data returns the buffer of a receive Mprobe or Improbe made: the
// message's bytes once the request is complete.
func (r *Request) Data() []byte { return r.buf }
