package compat

import (
	"errors"
	"io"
	"net"
	"time"
)

// How connections to other jobs end (MPI-4.1 §11.10.4, "Releasing
// Connections").
//
// Disconnect closes what a connection opened: once no communicator
// names a foreign PE any more, and nothing pending waits on it, its link
// is shut: the writer sends what is queued and ends its half, and the
// reader, once the other side has done the same (it disconnects too:
// Disconnect is collective), closes the socket. A Free alone keeps the
// link, as MPI keeps the processes connected until they disconnect.
//
// Finalize is collective over connected processes: before its world
// barrier, a process tells each foreign PE it is still linked to that it
// finalizes (an fFin frame), and after it waits until each has said the
// same or is lost, so that neither closes a link the other may still
// use. A link that ends otherwise is a loss (ClassProcFailed): the
// receives posted for its PE fail, and so do wildcard receives on the
// communicators that name it (a lost job must not leave an
// MPI_ANY_SOURCE receive waiting for ever).

// lost marks l dead and ends every wait on it: the receives posted for
// its PE or from any source of a communicator naming it, and its
// synchronous sends, fail with ClassProcFailed. A link this side shut
// (Disconnect) or whose other side said it finalizes ends quietly.
func (l *link) lost(err error) {
	e := l.e
	e.mu.Lock()
	if l.dead.Load() {
		e.mu.Unlock()
		return
	}
	switch {
	case l.closing.Load():
		err = errors.New("it was disconnected")
	case l.finGot.Load():
		err = errors.New("it finalized")
	case errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed):
		err = errors.New("it ended its connection (finalized or exited without disconnecting)")
	}
	l.err = errorf(ClassProcFailed, "the process of another job (PE %d here) is lost: %v", l.pe, err)
	l.dead.Store(true)
	e.dyn.lost.Add(1)
	for i := 0; i < len(e.posted); i++ {
		if r := e.posted[i]; r.src == l.pe || (r.src == AnySource && r.comm.names(l.pe)) {
			e.posted = remove(e.posted, i)
			i--
			r.err = l.err
			r.status = Status{Source: r.comm.rankOf(l.pe), Tag: AnyTag}
			e.complete(r)
		}
	}
	e.pub.Posted = uint64(len(e.posted))
	for id, r := range l.acks {
		delete(l.acks, id)
		r.err = l.err
		e.complete(r)
	}
	e.mu.Unlock()
	e.wake()
	l.conn.Close()
	l.wmu.Lock()
	l.wdone = true
	l.wmu.Unlock()
	l.wcond.Signal()
}

// names reports whether point-to-point rank of c names world PE pe (a
// member, or of an intercommunicator a member of the remote group).
func (c *Comm) names(pe int) bool {
	return c != nil && pe >= 0 && pe < len(c.fromPE) && c.fromPE[pe] >= 0
}

// deadLink returns the dead link a receive or probe on c from world PE
// pe (or AnySource) can no longer be satisfied for: pe's own, or for a
// wildcard the first dead link of a PE c names; nil when there is none.
func (e *Env) deadLink(c *Comm, pe int) *link {
	if pe != AnySource {
		if l := e.linkOf(pe); l != nil && l.dead.Load() {
			return l
		}
		return nil
	}
	if e.dyn.lost.Load() == 0 {
		return nil
	}
	if all := e.dyn.links.Load(); all != nil {
		for _, l := range *all {
			if l.dead.Load() && c.names(l.pe) {
				return l
			}
		}
	}
	return nil
}

// linkLostErr is the error of a probe on c from pe that no message matched,
// when a link it waits on is dead (deadLink); nil otherwise.
func (c *Comm) linkLostErr(pe int, what string) error {
	if pe < c.env.n && pe != AnySource {
		return nil
	}
	if l := c.env.deadLink(c, pe); l != nil {
		return errorf(ClassProcFailed, "%s on %s: %v", what, c.name, l.err)
	}
	return nil
}

// failLost fails r, a receive just posted from foreign PE r.src or from
// any source, when deadLink finds a dead link it waits on. Called with mu
// held.
func (e *Env) failLost(r *Request) {
	if r.done.Load() || r.finished {
		return
	}
	l := e.deadLink(r.comm, r.src)
	if l == nil {
		return
	}
	for i, p := range e.posted {
		if p == r {
			e.posted = remove(e.posted, i)
			e.pub.Posted = uint64(len(e.posted))
			r.err = l.err
			r.status = Status{Source: r.comm.rankOf(l.pe), Tag: AnyTag}
			e.complete(r)
			return
		}
	}
}

// Disconnect is MPI_Comm_disconnect on communicators of compat's Go API:
// collective over c (both groups of an intercommunicator); every
// communication on c must be complete and matched. The members meet in a
// barrier, so that no message of c is still on its way, then each frees c
// and shuts the links to other jobs' processes that no communicator
// names any more (CloseIdleLinks).
func (c *Comm) Disconnect() error {
	if err := c.check("Disconnect"); err != nil {
		return err
	}
	if c == c.env.world || c == c.env.self {
		return errorf(ClassComm, "Disconnect: %s cannot be disconnected", c.name)
	}
	if err := c.BarrierP2P(); err != nil {
		return err
	}
	if err := c.Free(); err != nil {
		return err
	}
	c.env.CloseIdleLinks()
	return nil
}

// CloseIdleLinks shuts every link to another job's process that no
// communicator names and nothing pending waits on (a receive from it, a
// synchronous send to it), dropping what it sent that nobody can receive
// any more. MPI_Comm_disconnect calls it once it has freed the
// communicator; the other side's disconnect shuts its end.
func (e *Env) CloseIdleLinks() {
	all := e.dyn.links.Load()
	if all == nil {
		return
	}
	named := map[int]bool{}
	e.byCtx.Range(func(_, v any) bool {
		c := v.(*Comm)
		for _, pe := range c.group.world {
			if pe >= e.n {
				named[pe] = true
			}
		}
		if c.remote != nil {
			for _, pe := range c.remote.world {
				if pe >= e.n {
					named[pe] = true
				}
			}
		}
		return true
	})
	if e.parent != nil && !e.parent.freed.Load() {
		for _, pe := range e.parent.remote.world {
			named[pe] = true
		}
	}
	e.mu.Lock()
	var idle []*link
	for _, l := range *all {
		if l.dead.Load() || l.closing.Load() || named[l.pe] || len(l.acks) > 0 {
			continue
		}
		busy := false
		for _, r := range e.posted {
			if r.src == l.pe || (r.src == AnySource && r.comm.names(l.pe)) {
				busy = true
				break
			}
		}
		if busy {
			continue
		}
		l.closing.Store(true)
		e.unexpected = dropFrom(e.unexpected, l.pe)
		e.pub.Unexpected = uint64(len(e.unexpected))
		idle = append(idle, l)
	}
	e.mu.Unlock()
	for _, l := range idle {
		l.wmu.Lock()
		l.wdone = true
		l.wmu.Unlock()
		l.wcond.Signal()
	}
}

// dropFrom removes the messages of world PE pe from q.
func dropFrom(q []*inMsg, pe int) []*inMsg {
	out := q[:0]
	for _, m := range q {
		if m.src != pe {
			out = append(out, m)
		}
	}
	clear(q[len(out):])
	return out
}

// announceFinalize tells every foreign PE this process is still linked
// to that it finalizes, and returns those links (Finalize waits for their
// answer in awaitFinalize).
func (e *Env) announceFinalize() []*link {
	all := e.dyn.links.Load()
	if all == nil {
		return nil
	}
	var live []*link
	for _, l := range *all {
		if l.dead.Load() || l.closing.Load() {
			continue
		}
		f := make([]byte, frameHdr)
		putHdr(f, fFin, 0, 0, 0, 0)
		l.post(f)
		live = append(live, l)
	}
	return live
}

// awaitFinalize waits until every link of ls has said its process
// finalizes too, or is lost. It has no deadline of its own, as a
// barrier has none: a connected job that never finalizes keeps this one
// waiting, which a warning says after a while.
func (e *Env) awaitFinalize(ls []*link) error {
	if len(ls) == 0 {
		return nil
	}
	warn := time.AfterFunc(10*time.Second, func() {
		n := 0
		for _, l := range ls {
			if !l.finGot.Load() && !l.dead.Load() {
				n++
			}
		}
		if n > 0 {
			e.w.Logger().Warnf("compat: Finalize waits for %d processes of other jobs still connected to this one to call it too "+
				"(MPI_Finalize is collective over connected processes; MPI_Comm_disconnect lets jobs finalize apart)", n)
		}
	})
	defer warn.Stop()
	return e.waitFor(func() bool {
		for _, l := range ls {
			if !l.finGot.Load() && !l.dead.Load() {
				return false
			}
		}
		return true
	})
}

// closeLinks ends the listener and every link (Finalize): the frames
// queued are sent (for at most a few seconds), then the connections
// close, which ends the readers and tells the other jobs' processes.
func (e *Env) closeLinks() {
	d := &e.dyn
	d.mu.Lock()
	d.closed = true
	ln := d.ln
	var links []*link
	if l := d.links.Load(); l != nil {
		links = *l
	}
	d.mu.Unlock()
	if ln != nil {
		ln.Close()
		d.gate.Close()
	}
	for _, l := range links {
		l.wmu.Lock()
		l.wdone = true
		l.wmu.Unlock()
		l.wcond.Signal()
	}
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	for _, l := range links {
		l.dead.Store(true) // a loss from here on is the closing, not news
		l.conn.Close()
	}
	// A reader wakes the Env after each frame: it must be gone before
	// Finalize unmaps the heap its doorbell is in.
	rdone := make(chan struct{})
	go func() { d.rwg.Wait(); close(rdone) }()
	select {
	case <-rdone:
	case <-time.After(5 * time.Second):
		e.w.Logger().Warnf("compat: Finalize: a reader of another job's link did not end within 5 s")
	}
}
