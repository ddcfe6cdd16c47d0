package compat

// GrequestStart starts a generalized request (MPI_Grequest_start): a
// Request for work this package does not do itself, which Wait, Test and
// the Wait*/Test* calls complete like any other once GrequestComplete has
// been called on it. query, if not nil, fills the Status that completing
// calls return (MPI's query_fn; Source and Tag start as ProcNull and
// AnyTag, as for an empty Status) and may fail the request with its error.
// Other layers of gshmem (windows' request-based RMA) hand their requests
// out through it, so that one Waitall can complete a mix.
func (e *Env) GrequestStart(query func(*Status) error) (*Request, error) {
	return e.GrequestStartCancel(query, nil)
}

// GrequestStartCancel is GrequestStart with a cancel function (MPI's
// cancel_fn), which Cancel calls with whether GrequestComplete has been
// called; its error is Cancel's.
func (e *Env) GrequestStartCancel(query func(*Status) error, cancel func(completed bool) error) (*Request, error) {
	if e == nil || e.closed.Load() {
		return nil, errorf(ClassOther, "GrequestStart on a finalized or nil Env")
	}
	return &Request{env: e, query: query, cancel: cancel, poolOff: -1, generalized: true}, nil
}

// GrequestComplete tells the runtime that a generalized request's work is
// done (MPI_Grequest_complete). Its store of completion happens before any
// Wait or Test that returns the request as complete. Calling it on a
// request GrequestStart did not make, or twice, is ErrRequest.
func (r *Request) GrequestComplete() error {
	if r == nil || !r.generalized {
		return errorf(ClassRequest, "GrequestComplete on a request that is not a generalized request")
	}
	if !r.gcompleted.CompareAndSwap(false, true) {
		return errorf(ClassRequest, "GrequestComplete called twice")
	}
	st := nullStatus()
	var err error
	if r.query != nil {
		err = r.query(&st)
	}
	r.status, r.err = st, err
	r.done.Store(true)
	r.env.wake()
	return nil
}
