package compat

import (
	"sync"
	"sync/atomic"
)

// Partitioned communication (MPI-4.1 chapter 4): a persistent send whose
// buffer is filled in partitions, each marked ready with Pready (from any
// thread), and a persistent receive whose partitions Parrived reports.
//
// Each round (Start to Wait) moves the whole buffer as one message, sent
// when the last partition is marked ready, by the call that marks it: a
// partition has arrived when the message has. Sender and receiver may
// therefore partition the buffer differently, as MPI-4.1 allows, as long
// as the totals agree; a receiver that finds a different total fails the
// round (ErrTruncate for a longer message, ErrCount for a shorter one).
// The messages travel in the communicator's collective context with tags
// no collective uses (partTag), so they never match an ordinary receive;
// a pair's rounds match in order, as the pair of requests was matched at
// initialization (MPI matches Psend_init to Precv_init by communicator,
// source and tag, in order).

// Prequest is a partitioned send or receive (MPI_Psend_init,
// MPI_Precv_init). Start begins a round, Wait and Test complete it; Free
// releases an inactive request.
type Prequest struct {
	c     *Comm
	send  bool
	buf   []byte
	dt    Datatype
	total int // instances of dt in all partitions
	parts int
	peer  int // rank
	tag   int

	ready  []atomic.Bool
	nready atomic.Int64

	// mu orders Start and end; the state waits read is atomic, as a wait's
	// condition runs under the engine's lock, which launch takes.
	mu     sync.Mutex
	active atomic.Bool
	r      atomic.Pointer[Request] // the round's message, once started
}

// partTag is a partitioned message's tag in the collective context:
// negative, where no collective's tag is.
func partTag(tag int) int { return -2 - tag }

// PsendInit makes a partitioned send of partitions partitions of count
// instances of dt each, from buf to rank dest with tag (MPI_Psend_init).
// dest may be ProcNull.
func PsendInit[T Elem](c *Comm, buf []T, partitions, count int, dt Datatype, dest, tag int) (*Prequest, error) {
	return pinit(c, buf, partitions, count, dt, dest, tag, true, "PsendInit")
}

// PrecvInit makes a partitioned receive into buf from rank src (no
// wildcard) with tag (MPI_Precv_init).
func PrecvInit[T Elem](c *Comm, buf []T, partitions, count int, dt Datatype, src, tag int) (*Prequest, error) {
	return pinit(c, buf, partitions, count, dt, src, tag, false, "PrecvInit")
}

func pinit[T Elem](c *Comm, buf []T, partitions, count int, dt Datatype, peer, tag int, send bool, what string) (*Prequest, error) {
	if err := c.check(what); err != nil {
		return nil, err
	}
	if partitions < 1 || count < 0 {
		return nil, errorf(ClassCount, "%s: %d partitions of %d", what, partitions, count)
	}
	if _, err := c.peerArg(peer, false, what); err != nil {
		return nil, err
	}
	if err := tagArg(tag, false, what); err != nil {
		return nil, err
	}
	b, _, err := view(buf, partitions*count, dt, what)
	if err != nil {
		return nil, err
	}
	p := &Prequest{c: c, send: send, buf: b, dt: dt, total: partitions * count, parts: partitions, peer: peer, tag: tag}
	p.ready = make([]atomic.Bool, partitions)
	return p, nil
}

// Partitions returns the number of partitions.
func (p *Prequest) Partitions() int { return p.parts }

// Active reports whether a round is in progress (started, not completed).
func (p *Prequest) Active() bool { return p.active.Load() }

// Start begins a round (MPI_Start): a receive posts its receive; a send
// waits for its partitions to be marked ready.
func (p *Prequest) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.active.Load() {
		return errorf(ClassRequest, "Start on an active partitioned request")
	}
	for i := range p.ready {
		p.ready[i].Store(false)
	}
	p.nready.Store(0)
	p.r.Store(nil)
	p.active.Store(true)
	if p.send {
		return nil
	}
	if p.peer == ProcNull {
		p.r.Store(p.c.env.doneRequest(nullStatus(), nil))
		return nil
	}
	c := p.c
	dst, unpack := recvBuffer(p.buf, p.total*p.dt.Size(), p.total, mapOf(p.dt))
	p.r.Store(c.env.irecvx(c, dst, unpack, c.group.world[p.peer], partTag(p.tag), c.cctx(), devRecv{}))
	return nil
}

// Pready marks partition i of an active send ready (MPI_Pready); the call
// that marks the last one starts the message. It may be called from
// several goroutines (threads) at once, for different partitions.
func (p *Prequest) Pready(i int) error {
	if !p.send {
		return errorf(ClassRequest, "Pready on a partitioned receive")
	}
	if i < 0 || i >= p.parts {
		return errorf(ClassArg, "Pready: partition %d of %d", i, p.parts)
	}
	if !p.Active() {
		return errorf(ClassRequest, "Pready on an inactive partitioned request")
	}
	if p.ready[i].Swap(true) {
		return errorf(ClassArg, "Pready: partition %d is already ready", i)
	}
	if p.nready.Add(1) == int64(p.parts) {
		p.launch()
	}
	return nil
}

// PreadyRange marks partitions lo to hi, both included, ready
// (MPI_Pready_range).
func (p *Prequest) PreadyRange(lo, hi int) error {
	if lo < 0 || hi >= p.parts || lo > hi {
		return errorf(ClassArg, "PreadyRange: partitions %d to %d of %d", lo, hi, p.parts)
	}
	for i := lo; i <= hi; i++ {
		if err := p.Pready(i); err != nil {
			return err
		}
	}
	return nil
}

// PreadyList marks the listed partitions ready (MPI_Pready_list).
func (p *Prequest) PreadyList(parts []int) error {
	for _, i := range parts {
		if err := p.Pready(i); err != nil {
			return err
		}
	}
	return nil
}

// launch sends the whole buffer once every partition is ready.
func (p *Prequest) launch() {
	c := p.c
	if p.peer == ProcNull {
		p.r.Store(c.env.doneRequest(Status{}, nil))
	} else {
		data, poolOff := c.env.packSend(p.buf, p.total*p.dt.Size(), p.total, p.dt)
		r := c.env.isendx(data, c.group.world[p.peer], int32(partTag(p.tag)), c.cctx(), false, poolOff, false)
		if r == nil { // an eager message written at once
			r = c.env.doneRequest(Status{}, nil)
		}
		p.r.Store(r)
	}
	c.env.wake() // a Wait on another thread may be waiting for the message to start
}

// Parrived reports whether partition i of an active receive has arrived
// (MPI_Parrived), making progress first.
func (p *Prequest) Parrived(i int) (bool, error) {
	if p.send {
		return false, errorf(ClassRequest, "Parrived on a partitioned send")
	}
	if i < 0 || i >= p.parts {
		return false, errorf(ClassArg, "Parrived: partition %d of %d", i, p.parts)
	}
	r := p.r.Load()
	if !p.active.Load() {
		return true, nil // an inactive request's partitions are all there
	}
	done, _, err := r.Test()
	return done, err
}

// current is the round's message, or nil while a send waits for its
// partitions.
func (p *Prequest) current() *Request { return p.r.Load() }

// Current is the request of the round's message, nil while a send waits
// for partitions to be marked ready: for a wait over several requests.
func (p *Prequest) Current() *Request { return p.current() }

// Test reports whether the round has completed (MPI_Test), and makes the
// request inactive if so.
func (p *Prequest) Test() (bool, Status, error) {
	r := p.current()
	if r == nil {
		if !p.Active() {
			return true, nullStatus(), nil
		}
		return false, Status{}, nil
	}
	done, st, err := r.Test()
	if !done {
		return false, st, nil
	}
	return true, p.status(st), p.end(st, err)
}

// Wait completes the round (MPI_Wait): a send once its partitions are all
// ready and its message has left, a receive once the message is in.
func (p *Prequest) Wait() (Status, error) {
	if !p.Active() {
		return nullStatus(), nil
	}
	if err := p.c.env.waitFor(func() bool { return p.current() != nil }); err != nil {
		return Status{}, err
	}
	st, err := p.current().Wait()
	return p.status(st), p.end(st, err)
}

// status is what a round reports: a receive's tag as the user gave it.
func (p *Prequest) status(st Status) Status {
	if !p.send && p.peer != ProcNull {
		st.Tag = p.tag
	}
	return st
}

// end makes the request inactive after its round and checks a receive's
// size.
func (p *Prequest) end(st Status, err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active.Store(false)
	if err == nil && !p.send && p.peer != ProcNull && !st.Cancelled() && st.Bytes() != p.total*p.dt.Size() {
		err = errorf(ClassCount, "a partitioned message of %d bytes for a receive of %d", st.Bytes(), p.total*p.dt.Size())
	}
	return err
}
