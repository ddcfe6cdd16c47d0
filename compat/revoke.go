package compat

import "slices"

// Revocation told to every member (MPIX_Comm_revoke). Revoking a
// communicator sends each of its other members that is not lost a kRevoke
// message in the communicator's context over the mailboxes; a member that
// takes one (in whatever call makes progress) revokes the communicator
// too, and sends the message on to every member but the one it came from,
// so that the revocation reaches every member that is alive even when the
// first revoker dies midway (each member forwards it once: n² messages,
// for a call that is rare). Revoking, whether by this PE or on a peer's
// message, ends this PE's pending operations on the communicator:
//
//   - a posted receive (of its point-to-point or collective context)
//     completes with ClassRevoked, so that a PE blocked in Recv, Wait or a
//     point-to-point collective returns;
//   - a send that no receive has matched yet is withdrawn (the receiver
//     gives back its request-to-send, as for Cancel) and completes with
//     ClassRevoked; an eager message still queued for ring space leaves the
//     queue; a send already matched completes normally, as MPI allows;
//   - a collective on the communicator's shmem team ends with ClassRevoked
//     at the next check of its wait (Team.SetInterrupt: every few thousand
//     polls and around every sleep), which makes progress first so that the
//     kRevoke message is taken even by a PE that waits inside shmem;
//   - the C ABI's fast paths stop serving it (OnRevoke).
//
// Every later call on it but Agree, Shrink, FailureAck, FailureGetAcked,
// GetFailed, Revoke, Group and Free fails with ClassRevoked (ftCheck).

// register records c under its context, for the kRevoke messages, and
// revokes it at once when one came before c existed here (a member that
// finished making c first and revoked it). Called where c is made.
func (e *Env) register(c *Comm) {
	e.byCtx.Store(c.ctx, c)
	if c.coll.team != nil {
		c.coll.team.SetInterrupt(c.interrupted)
	}
	if _, early := e.earlyRevokes.Load(c.ctx); early {
		c.ft.revoked.Store(true)
	}
}

// unregister forgets c (Free).
func (e *Env) unregister(c *Comm) { e.byCtx.CompareAndDelete(c.ctx, c) }

// OnRevoke sets f to run once c is revoked, by this PE (Revoke) or by
// another member's message, with the engine's lock held: f must not call
// into compat. When c is revoked already (a member's message came while
// c was being made here), f runs now. The C ABI takes its fast paths away
// from c there.
func (c *Comm) OnRevoke(f func()) {
	e := c.env
	e.mu.Lock()
	defer e.mu.Unlock()
	c.ft.mu.Lock()
	c.ft.onRevoke = f
	c.ft.mu.Unlock()
	if c.ft.revoked.Load() {
		f()
	}
}

// onRevoke takes a kRevoke message from world PE p for context ctx.
// Called with mu held.
func (e *Env) onRevoke(p int, ctx uint32) {
	v, ok := e.byCtx.Load(ctx)
	if !ok {
		e.earlyRevokes.Store(ctx, true)
		return
	}
	e.revoke(v.(*Comm), p)
}

// revoke revokes c at this PE, ends its pending operations and tells the
// members but from (a world PE, -1 for none) that are not lost. Called
// with mu held.
func (e *Env) revoke(c *Comm, from int) {
	if c.ft.revoked.Swap(true) {
		return // told before: every member was told then
	}
	c.ft.mu.Lock()
	hook := c.ft.onRevoke
	c.ft.mu.Unlock()
	if hook != nil {
		hook()
	}
	cc := c.cctx()
	mine := func(ctx uint32) bool { return ctx == c.ctx || ctx == cc }
	// The agreements that work on a revoked communicator (Agree, Shrink,
	// Finalize's) may be under way here when the first kRevoke comes:
	// their messages, in the collective context with tags of their own,
	// are left alone.
	agreeing := func(ctx uint32, tag int) bool { return ctx == cc && tag >= tagFinalize && tag < 2*tagAgree }
	for i := 0; i < len(e.posted); {
		r := e.posted[i]
		if !mine(r.ctx) || agreeing(r.ctx, r.tag) {
			i++
			continue
		}
		e.posted = remove(e.posted, i)
		r.status = Status{Source: ProcNull, Tag: AnyTag}
		r.err = errorf(ClassRevoked, "receive: communicator %s was revoked", c.name)
		e.complete(r)
	}
	e.pub.Posted = uint64(len(e.posted))
	for _, r := range e.sends {
		if mine(r.sctx) && !r.withdrawing {
			r.revoked = true
			e.cancelSend(r)
		}
	}
	for p := range e.peers {
		pr := &e.peers[p]
		for i := 0; i < len(pr.outq); {
			m := pr.outq[i]
			if m.kind != kEager || m.req == nil || !mine(m.ctx) || agreeing(m.ctx, int(m.tag)) {
				i++
				continue
			}
			pr.outq = remove(pr.outq, i)
			pr.cur.Queued--
			e.pub.Queued--
			m.req.err = errorf(ClassRevoked, "send: communicator %s was revoked", c.name)
			e.complete(m.req)
		}
	}
	lost := e.w.LostPEs()
	members := c.group.world
	if c.remote != nil {
		members = append(slices.Clone(members), c.remote.world...)
	}
	for _, pe := range members {
		if pe == e.me || pe == from || slices.Contains(lost, pe) {
			continue
		}
		m := outMsg{kind: kRevoke, ctx: c.ctx}
		e.send(pe, &m)
	}
	e.wake()
}

// interrupted is the check of c's team collectives (Team.SetInterrupt):
// ClassRevoked once c is revoked. It makes progress first, when the
// engine is free, so that a kRevoke message waiting in a ring is taken by
// a PE that waits inside shmem and would make none.
func (c *Comm) interrupted() error {
	e := c.env
	if e.closed.Load() {
		return nil // the rings are gone (Finalize); the team is shmem's again
	}
	if !c.ft.revoked.Load() && e.mu.TryLock() {
		e.progress()
		e.mu.Unlock()
	}
	if c.ft.revoked.Load() {
		return errorf(ClassRevoked, "team collective: communicator %s was revoked", c.name)
	}
	return nil
}
