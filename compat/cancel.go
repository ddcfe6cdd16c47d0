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
//   - A send is not cancelled: an eager send has been delivered already,
//     and a rendezvous one completes when its receiver takes it, as MPI
//     allows an implementation that cannot recall a delivered message.
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
	if r.done.Load() || r.comm == nil {
		return nil
	}
	e := r.env
	e.mu.Lock()
	defer e.mu.Unlock()
	for i, p := range e.posted {
		if p == r {
			e.posted = remove(e.posted, i)
			e.pub.Posted = uint64(len(e.posted))
			r.status = Status{Source: ProcNull, Tag: AnyTag, cancelled: true}
			e.complete(r)
			return nil
		}
	}
	return nil
}
