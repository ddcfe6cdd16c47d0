package compat

// Cancel marks a nonblocking operation for cancellation (MPI_Cancel) and
// returns at once; completing the request (Wait, Test, ...) then either
// finds it cancelled, Status.Cancelled true, or finds that it completed
// normally. Which one happens:
//
//   - A receive that no message has matched yet is cancelled: it leaves
//     the posted queue, so no later message matches it, and it completes
//     with a Status whose only meaning is Cancelled (no bytes). One that a
//     message already matched completes normally.
//   - A send whose message no receive has matched yet is cancelled: a
//     rendezvous or synchronous one (larger than the eager limit, or
//     Ssend/Issend) sends its receiver a withdraw message, and the receiver
//     takes its request-to-send out of the unexpected queue, so no receive
//     ever sees the message; an eager one still queued for ring space
//     leaves the queue. Its Status is then Cancelled. A send already
//     matched (or an eager one already in the receiver's ring) completes
//     normally. The withdrawal's answer comes from the receiver's next
//     progress, which any MPI call there makes.
//   - A generalized request runs its cancel function (GrequestStartCancel)
//     with whether GrequestComplete was called; it completes as always,
//     when GrequestComplete is called.
//
// Cancelling a completed request does nothing.
func (r *Request) Cancel() error {
	if r == nil {
		return errorf(ClassRequest, "Cancel on a nil request")
	}
	if r.generalized {
		if r.cancel != nil {
			return r.cancel(r.gcompleted.Load())
		}
		return nil
	}
	if r.done.Load() || r.env == nil {
		return nil
	}
	e := r.env
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.done.Load() {
		return nil
	}
	for i, p := range e.posted {
		if p == r {
			e.posted = remove(e.posted, i)
			e.pub.Posted = uint64(len(e.posted))
			r.status = Status{Source: ProcNull, Tag: AnyTag, cancelled: true}
			e.complete(r)
			return nil
		}
	}
	if r.comm == nil {
		e.cancelSend(r)
	}
	return nil
}

// cancelSend withdraws the send r if no receive has matched it. Called
// with mu held.
func (e *Env) cancelSend(r *Request) {
	if r.withdrawing {
		return
	}
	for id, s := range e.sends {
		if s == r {
			r.withdrawing = true
			e.ctl(r.rdv.peer, kWithdraw, id)
			return
		}
	}
	for p := range e.peers {
		pr := &e.peers[p]
		for i, m := range pr.outq {
			if m.req == r && m.kind == kEager {
				pr.outq = remove(pr.outq, i)
				pr.cur.Queued--
				e.pub.Queued--
				r.status = Status{Source: ProcNull, Tag: AnyTag, cancelled: true}
				e.complete(r)
				return
			}
		}
	}
}

// onWithdraw answers world rank p's withdrawal of its send sid: the
// request-to-send leaves the unexpected queue when no receive (or matched
// probe) has taken it yet.
func (e *Env) onWithdraw(p int, sid uint64) {
	for i, m := range e.unexpected {
		if m.rdv && m.src == p && m.rts.sreq == sid {
			e.unexpected = remove(e.unexpected, i)
			e.pub.Unexpected = uint64(len(e.unexpected))
			e.ctl(p, kWithdrawn, sid, 1)
			return
		}
	}
	// Matched already: its CTS or Fin went before this answer, and the
	// send completes normally.
	e.ctl(p, kWithdrawn, sid, 0)
}

// onWithdrawn completes a send its receiver gave back as cancelled.
func (e *Env) onWithdrawn(sid uint64, taken bool) {
	r := e.sends[sid]
	if r == nil || !taken {
		return
	}
	delete(e.sends, sid)
	if r.revoked {
		r.err = errorf(ClassRevoked, "send: its communicator was revoked before the message was received")
	} else {
		r.status = Status{Source: ProcNull, Tag: AnyTag, cancelled: true}
	}
	e.finishSend(r)
}
