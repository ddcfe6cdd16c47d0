package compat

import (
	"errors"
	"sync/atomic"
)

// Status describes a received message (MPI_Status): its source rank in
// the communicator, its tag and its size. Err is set by Waitall and
// Testall for a request that failed.
type Status struct {
	Source    int
	Tag       int
	Err       error
	bytes     int
	cancelled bool
}

// Bytes returns the number of bytes received.
func (s Status) Bytes() int { return s.bytes }

// Cancelled reports whether the operation was cancelled (Cancel,
// MPI_Test_cancelled).
func (s Status) Cancelled() bool { return s.cancelled }

// Count returns the number of whole instances of dt received, or Undefined
// when the bytes are not a whole number of them (MPI_Get_count).
func (s Status) Count(dt Datatype) int {
	if dt.Err() != nil {
		return Undefined
	}
	sz := mapOf(dt).Size()
	if sz == 0 {
		if s.bytes == 0 {
			return 0
		}
		return Undefined
	}
	if s.bytes%sz != 0 {
		return Undefined
	}
	return s.bytes / sz
}

func nullStatus() Status { return Status{Source: ProcNull, Tag: AnyTag} }

// Request is a nonblocking operation in progress (MPI_Request). Complete
// it with Wait, Test or one of the Wait*/Test* calls; a completed request
// keeps its Status, and waiting on it again returns that Status again.
// Until a send completes its buffer must not change; until a receive
// completes its buffer must not be read.
type Request struct {
	env    *Env
	done   atomic.Bool
	status Status
	err    error

	// Receive side.
	comm   *Comm
	ctx    uint32
	src    int // world rank, or AnySource
	tag    int
	buf    []byte       // where the bytes go: the user's buffer, or a temporary
	unpack func([]byte) // scatters a temporary into a non-contiguous buffer
	devBuf bool         // buf is device memory (p2p_device.go)
	fin    func() error // after unpack: moves a device buffer's host copy back
	rdv    rdvState

	// A blocking Recv's request, read only by its caller and only under
	// mu: complete sets finished instead of done, and wakes the PE's other
	// waiters only when the caller is parked outside mu (when it is not,
	// it completes the request itself and nobody else waits on it).
	blocking, parked, finished bool

	// Send side.
	data    []byte
	dest    int    // world rank
	regID   uint64 // registry entry of an in-process rendezvous
	poolOff int    // pool block holding packed data, or -1
	staged  bool   // a staged rendezvous send in progress
	devData bool   // data is device memory (p2p_device.go)
	devStg  bool   // staged through the device staging area
	// withdrawing: Cancel sent a kWithdraw for this send (cancel.go).
	withdrawing bool
	// sctx is a send's context; revoked: its communicator was revoked
	// while it waited, and its withdrawal completes it with ClassRevoked
	// (revoke.go).
	sctx    uint32
	revoked bool

	// A generalized request (GrequestStart): its Status comes from query
	// when GrequestComplete is called.
	generalized bool
	gcompleted  atomic.Bool
	query       func(*Status) error
	cancel      func(completed bool) error
	drive       *driver // a driven request's work (request_drive.go), or nil
}

// rdvState is a rendezvous in progress.
type rdvState struct {
	peer    int
	id      uint64 // the other side's request id
	size    int
	staged  int // sender: bytes copied into staging
	acked   int // sender: bytes the receiver took
	got     int // receiver: bytes taken
	held    int // sender: staging chunks in use
	stalled bool
}

// Done reports whether the request has completed, without making
// progress.
func (r *Request) Done() bool { return r != nil && r.done.Load() }

// Wait blocks until the request completes and returns its Status and error
// (MPI_Wait). After a loss, a receive from AnySource stays pending and
// returns ClassProcFailedPending until FailureAck (anysource.go).
func (r *Request) Wait() (Status, error) {
	if r == nil {
		return Status{}, errorf(ClassRequest, "Wait on a nil request")
	}
	if r.drive != nil {
		if err := driveUntil(r.env, []*Request{r}, r.done.Load); err != nil {
			return Status{}, err
		}
	} else if !r.done.Load() {
		if r.anySource() {
			return r.waitAnySource() // anysource.go
		}
		if err := r.env.waitFor(r.done.Load); err != nil {
			return r.status, r.lossEnded(err)
		}
	}
	return r.status, r.err
}

// Test reports whether the request has completed, making progress first
// (MPI_Test). The Status and error are those of a completed request; a
// receive from AnySource that a loss leaves pending returns false and
// ClassProcFailedPending (anysource.go).
func (r *Request) Test() (bool, Status, error) {
	if r == nil {
		return false, Status{}, errorf(ClassRequest, "Test on a nil request")
	}
	if !r.done.Load() {
		e := r.env
		e.mu.Lock()
		e.progress()
		e.mu.Unlock()
		r.advance()
		if !r.done.Load() {
			return false, Status{}, r.testAnySource()
		}
	}
	return true, r.status, r.err
}

func envOf(reqs []*Request) *Env {
	for _, r := range reqs {
		if r != nil {
			return r.env
		}
	}
	return nil
}

// Waitall waits for every request (MPI_Waitall). Nil requests are null
// requests and get an empty Status. statuses may be nil; otherwise it has
// one entry per request. When some requests fail it returns ErrInStatus
// and each failed request's Status.Err says why.
func Waitall(reqs []*Request, statuses []Status) error {
	if statuses != nil && len(statuses) != len(reqs) {
		return errorf(ClassArg, "Waitall: %d statuses for %d requests", len(statuses), len(reqs))
	}
	if e := envOf(reqs); e != nil {
		all := func() bool {
			for _, r := range reqs {
				if r != nil && !r.done.Load() {
					return false
				}
			}
			return true
		}
		wait := e.waitFor
		if anyDriven(reqs) {
			wait = func(cond func() bool) error { return driveUntil(e, reqs, cond) }
		}
		if err := wait(all); err != nil {
			return err
		}
	}
	return collect(reqs, statuses)
}

func collect(reqs []*Request, statuses []Status) error {
	var errs []error
	for i, r := range reqs {
		st := nullStatus()
		if r != nil {
			st = r.status
			st.Err = r.err
			if r.err != nil {
				errs = append(errs, r.err)
			}
		}
		if statuses != nil {
			statuses[i] = st
		}
	}
	if len(errs) > 0 {
		return &Error{Class: ClassInStatus, Msg: "some requests failed", Err: errors.Join(errs...)}
	}
	return nil
}

// Testall reports whether every request has completed (MPI_Testall); if
// so it fills statuses as Waitall does.
func Testall(reqs []*Request, statuses []Status) (bool, error) {
	if statuses != nil && len(statuses) != len(reqs) {
		return false, errorf(ClassArg, "Testall: %d statuses for %d requests", len(statuses), len(reqs))
	}
	if e := envOf(reqs); e != nil {
		e.mu.Lock()
		e.progress()
		e.mu.Unlock()
		for _, r := range reqs {
			r.advance()
		}
	}
	for _, r := range reqs {
		if r != nil && !r.done.Load() {
			return false, nil
		}
	}
	return true, collect(reqs, statuses)
}

func firstDone(reqs []*Request) int {
	for i, r := range reqs {
		if r != nil && r.done.Load() {
			return i
		}
	}
	return -1
}

// Waitany waits until one of the requests completes and returns its index
// and Status (MPI_Waitany), or Undefined when every request is nil.
func Waitany(reqs []*Request) (int, Status, error) {
	e := envOf(reqs)
	if e == nil {
		return Undefined, nullStatus(), nil
	}
	idx := -1
	wait := e.waitFor
	if anyDriven(reqs) {
		wait = func(cond func() bool) error { return driveUntil(e, reqs, cond) }
	}
	if err := wait(func() bool { idx = firstDone(reqs); return idx >= 0 }); err != nil {
		return Undefined, Status{}, err
	}
	return idx, reqs[idx].status, reqs[idx].err
}

// Testany returns the index of a completed request and its Status, or
// ok false when none has completed (MPI_Testany). The index is Undefined
// when every request is nil.
func Testany(reqs []*Request) (idx int, ok bool, st Status, err error) {
	e := envOf(reqs)
	if e == nil {
		return Undefined, true, nullStatus(), nil
	}
	e.mu.Lock()
	e.progress()
	e.mu.Unlock()
	for _, r := range reqs {
		r.advance()
	}
	if i := firstDone(reqs); i >= 0 {
		return i, true, reqs[i].status, reqs[i].err
	}
	return Undefined, false, Status{}, nil
}

// doneRequest returns a request that is already complete.
func (e *Env) doneRequest(st Status, err error) *Request {
	r := &Request{env: e, status: st, err: err, poolOff: -1}
	r.done.Store(true)
	return r
}
