package compat

import (
	"slices"
	"sync"
	"sync/atomic"
)

// A driven request is a generalized request whose work runs inside the
// calls that test or wait on it, as compat's own progress does: its step
// does what can be done now (tests the operations it started, starts the
// next ones, does local work) and says what it waits on, so that a
// waiter sleeps on those. Nonblocking collective file accesses use it
// (file_nbcoll.go): their start is local, and their messages move when
// the program tests or waits, whatever else it does between. Blocking
// waits on anything else (a Recv, a Wait on another request) step them
// too each time they wake, as MPICH's progress engine advances its
// schedules, so that a member blocked elsewhere still serves the others.

// drivenSet is an Env's driven requests in flight: those a blocking wait
// steps when it wakes.
type drivenSet struct {
	n  atomic.Int32 // len(rs), read without mu
	mu sync.Mutex
	rs []*Request
}

func (s *drivenSet) add(r *Request) {
	s.mu.Lock()
	s.rs = append(s.rs, r)
	s.n.Store(int32(len(s.rs)))
	s.mu.Unlock()
}

func (s *drivenSet) remove(r *Request) {
	s.mu.Lock()
	s.rs = slices.DeleteFunc(s.rs, func(x *Request) bool { return x == r })
	s.n.Store(int32(len(s.rs)))
	s.mu.Unlock()
}

// stepDriven steps every driven request in flight that no other
// goroutine is stepping. Blocking waits call it without the engine's lock
// each time they wake.
func (e *Env) stepDriven() {
	s := &e.drive
	if s.n.Load() == 0 {
		return
	}
	s.mu.Lock()
	rs := slices.Clone(s.rs)
	s.mu.Unlock()
	for _, r := range rs {
		if r.drive.mu.TryLock() {
			r.stepLocked()
			r.drive.mu.Unlock()
		}
	}
}

// driver is a driven request's work.
type driver struct {
	mu   sync.Mutex
	step func() []*Request // runs the work on; returns what it waits on, none once it has completed the request
	cur  []*Request        // what the last step returned
}

// drivenRequest starts a driven request: query fills its Status at
// completion (GrequestComplete, which step calls), step moves it on.
func (e *Env) drivenRequest(query func(*Status) error, step func() []*Request) (*Request, error) {
	r, err := e.GrequestStart(query)
	if err != nil {
		return nil, err
	}
	r.drive = &driver{step: step}
	e.drive.add(r)
	return r, nil
}

// advance runs a driven request's step once (nothing for other requests
// or a completed one). Called without the engine's lock: the step makes
// calls that take it.
func (r *Request) advance() {
	if r == nil || r.drive == nil || r.done.Load() {
		return
	}
	d := r.drive
	d.mu.Lock()
	r.stepLocked()
	d.mu.Unlock()
}

// stepLocked steps r with its driver's lock held.
func (r *Request) stepLocked() {
	if r.done.Load() {
		return
	}
	r.drive.cur = r.drive.step()
	if r.done.Load() {
		r.drive.cur = nil
		r.env.drive.remove(r)
	}
}

// waitingOn appends what a waiter for r sleeps on: r itself, or a driven
// request's pending operations. ready reports a driven request whose
// operations have all completed since its last step (another request's
// progress completed them): it must step again rather than sleep.
func (r *Request) waitingOn(in []*Request) (_ []*Request, ready bool) {
	if r == nil || r.done.Load() {
		return in, false
	}
	d := r.drive
	if d == nil {
		return append(in, r), false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	k := len(in)
	for _, x := range d.cur {
		if !x.done.Load() {
			in = append(in, x)
		}
	}
	return in, len(in) == k
}

func anyDriven(reqs []*Request) bool {
	for _, r := range reqs {
		if r != nil && r.drive != nil {
			return true
		}
	}
	return false
}

// driveUntil steps the driven requests among reqs, and sleeps on what
// they and the others wait on, until cond holds.
func driveUntil(e *Env, reqs []*Request, cond func() bool) error {
	for {
		for _, r := range reqs {
			r.advance()
		}
		if cond() {
			return nil
		}
		var in []*Request
		ready := false
		for _, r := range reqs {
			var rd bool
			in, rd = r.waitingOn(in)
			ready = ready || rd
		}
		if ready {
			continue
		}
		moved := func() bool {
			if cond() {
				return true
			}
			for _, x := range in {
				if x.done.Load() {
					return true
				}
			}
			return false
		}
		if err := e.waitFor(moved); err != nil {
			return err
		}
	}
}
