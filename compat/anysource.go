package compat

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem"
)

// Receives from AnySource after a loss, as ULFM specifies: a lost member
// of a communicator that this PE has not acknowledged (FailureAck) may be
// the sender an AnySource receive on it waits for, so such a receive
// cannot be left to wait. A nonblocking one (Irecv) that no message has
// matched stays pending: its Wait (and Test, Waitany, Waitall) returns
// ClassProcFailedPending (MPIX_ERR_PROC_FAILED_PENDING), and it can be
// waited on again, cancelled, or completed by a message that arrives
// later; once FailureAck has acknowledged the losses it waits as before. A
// blocking one (Recv) leaves the posted queue and returns ClassProcFailed.
// A message already there completes either one, losses or not. A receive
// from a named source that is lost completes with ClassProcFailed.

// unackedLoss returns a lost member of c (a world PE) that c's FailureAck
// has not acknowledged, or -1: AnySource receives on c are then disabled.
// One load of the job's loss word while nothing is lost.
func (c *Comm) unackedLoss() int {
	d := c.env.down
	if d == nil || atomic.LoadUint32(d) == 0 {
		return -1
	}
	lost := c.lostMembers()
	if len(lost) == 0 {
		return -1
	}
	c.ft.mu.Lock()
	defer c.ft.mu.Unlock()
	for _, pe := range lost {
		if !slices.Contains(c.ft.acked, pe) {
			return pe
		}
	}
	return -1
}

// lostErr is ClassProcFailed for what, naming the lost world PE pe.
func (c *Comm) lostErr(what string, pe int, cause error) error {
	return &Error{Class: ClassProcFailed, Msg: what + ": world rank " + strconv.Itoa(pe) + " (rank " + strconv.Itoa(c.rankOf(pe)) + " of " + c.name + ") is lost", Err: cause}
}

// pendingErr is ClassProcFailedPending for an AnySource receive on c: pe
// is the unacknowledged lost member (or -1 when the loss that ended the
// wait, cause, is of a PE outside c, which ends every wait until agreed).
func (c *Comm) pendingErr(what string, pe int, cause error) error {
	msg := what + ": the receive from AnySource on " + c.name + " stays pending"
	if pe >= 0 {
		msg += ": world rank " + strconv.Itoa(pe) + " (rank " + strconv.Itoa(c.rankOf(pe)) + ") is lost and not acknowledged (FailureAck)"
	}
	return &Error{Class: ClassProcFailedPending, Msg: msg, Err: cause}
}

// isLoss reports whether err is a lost peer's.
func isLoss(err error) bool {
	return errors.Is(err, shmem.ErrPeerLost) || ClassOf(err) == ClassProcFailed
}

// anySource reports whether r is a nonblocking receive from AnySource.
func (r *Request) anySource() bool {
	return r.comm != nil && r.src == AnySource && !r.blocking && !r.generalized
}

// withdraw takes the receive r out of the posted queue, if no message
// has matched it. Called with mu held.
func (e *Env) withdraw(r *Request) bool {
	for i, p := range e.posted {
		if p == r {
			e.posted = remove(e.posted, i)
			e.pub.Posted = uint64(len(e.posted))
			return true
		}
	}
	return false
}

// waitAnySource is Wait for an AnySource receive (the rules above).
func (r *Request) waitAnySource() (Status, error) {
	e, c := r.env, r.comm
	blocked := -1
	err := e.waitFor(func() bool {
		if r.done.Load() {
			return true
		}
		if c.suspect() {
			blocked = c.unackedLoss()
		}
		return blocked >= 0
	})
	if r.done.Load() {
		return r.status, r.err
	}
	switch {
	case err == nil:
		return Status{}, c.pendingErr("Wait", blocked, nil)
	case isLoss(err):
		return Status{}, c.pendingErr("Wait", c.unackedLoss(), err)
	}
	return Status{}, err
}

// testAnySource is the error Test returns for an AnySource receive that
// has not completed: ClassProcFailedPending while c has a lost member not
// acknowledged.
func (r *Request) testAnySource() error {
	if !r.anySource() || !r.comm.suspect() {
		return nil
	}
	if pe := r.comm.unackedLoss(); pe >= 0 {
		return r.comm.pendingErr("Test", pe, nil)
	}
	return nil
}

// lossEnded is what Wait returns when a loss ended its wait for r: a
// receive from a named source that is lost and that no message matched
// completes with ClassProcFailed naming it; anything else stays as it is.
func (r *Request) lossEnded(err error) error {
	if !isLoss(err) || r.comm == nil || r.src < 0 || r.generalized {
		return err
	}
	e := r.env
	e.mu.Lock()
	defer e.mu.Unlock()
	if r.done.Load() || !slices.Contains(e.w.LostPEs(), r.src) || !e.withdraw(r) {
		return err
	}
	r.err = r.comm.lostErr("Wait", r.src, err)
	r.status = Status{Source: r.comm.rankOf(r.src), Tag: AnyTag}
	e.complete(r)
	return r.err
}

// abandon is what a blocking call that waited on the receive r through
// Wait (Sendrecv) returns for err: r leaves the posted queue if no message
// matched it, as Recv's own does, and a pending receive from AnySource is
// the blocking form's ClassProcFailed.
func (r *Request) abandon(err error) error {
	e := r.env
	e.mu.Lock()
	if !r.done.Load() {
		e.withdraw(r)
	}
	e.mu.Unlock()
	if ClassOf(err) == ClassProcFailedPending {
		var pe *Error
		if errors.As(err, &pe) {
			return &Error{Class: ClassProcFailed, Msg: strings.Replace(pe.Msg, "stays pending", "was withdrawn", 1), Err: pe.Err}
		}
	}
	return err
}
