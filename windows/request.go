package windows

// Request is the handle of a request-based operation (Rput, Rget,
// Raccumulate, RgetAccumulate). Wait or Test completes it: for Rput and
// Raccumulate the origin buffer may then be reused, for Rget and
// RgetAccumulate the result buffer holds the data. Completion at the
// target still needs Flush, Unlock or UnlockAll.
//
// On the host transports every operation completes at the origin as it
// is issued, so requests are complete from the start.
type Request struct {
	err error
}

// Wait blocks until the request completes and returns its error
// (MPI_Wait).
func (r *Request) Wait() error {
	if r == nil {
		return errorf(ClassArg, "nil request")
	}
	return r.err
}

// Test reports whether the request is complete (MPI_Test), and its error.
func (r *Request) Test() (bool, error) {
	if r == nil {
		return false, errorf(ClassArg, "nil request")
	}
	return true, r.err
}

// WaitAll waits for every request and returns the first error.
func WaitAll(reqs ...*Request) error {
	var first error
	for _, r := range reqs {
		if err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Request-based operations are only allowed in passive-target epochs.
func (win *Win) requestEpoch(target int, call string) error {
	if err := win.check(); err != nil {
		return err
	}
	if target == ProcNull {
		return nil
	}
	if target < 0 || target >= win.n {
		return errorf(ClassRank, "%s to rank %d of %d", call, target, win.n)
	}
	if win.locks[target] == 0 && win.lockAll == 0 {
		return errorf(ClassRMASync, "%s to rank %d outside a Lock or LockAll epoch on it", call, target)
	}
	return nil
}

func request(err error) (*Request, error) {
	if err != nil {
		return nil, err
	}
	return &Request{}, nil
}

// Rput is Put returning a request (MPI_Rput); only in a Lock or LockAll
// epoch (ErrRMASync otherwise).
func Rput[T Elem](win *Win, origin []T, target, disp int) (*Request, error) {
	if err := win.requestEpoch(target, "Rput"); err != nil {
		return nil, err
	}
	return request(Put(win, origin, target, disp))
}

// Rget is Get returning a request (MPI_Rget).
func Rget[T Elem](win *Win, result []T, target, disp int) (*Request, error) {
	if err := win.requestEpoch(target, "Rget"); err != nil {
		return nil, err
	}
	return request(Get(win, result, target, disp))
}

// Raccumulate is Accumulate returning a request (MPI_Raccumulate).
func Raccumulate[T Elem](win *Win, origin []T, target, disp int, op Op) (*Request, error) {
	if err := win.requestEpoch(target, "Raccumulate"); err != nil {
		return nil, err
	}
	return request(Accumulate(win, origin, target, disp, op))
}

// RgetAccumulate is GetAccumulate returning a request
// (MPI_Rget_accumulate).
func RgetAccumulate[T Elem](win *Win, origin, result []T, target, disp int, op Op) (*Request, error) {
	if err := win.requestEpoch(target, "RgetAccumulate"); err != nil {
		return nil, err
	}
	return request(GetAccumulate(win, origin, result, target, disp, op))
}

// RputTyped is PutTyped returning a request.
func RputTyped[T Elem](win *Win, origin []T, ocount int, otype Datatype, target, disp, tcount int, ttype Datatype) (*Request, error) {
	if err := win.requestEpoch(target, "Rput"); err != nil {
		return nil, err
	}
	return request(PutTyped(win, origin, ocount, otype, target, disp, tcount, ttype))
}

// RgetTyped is GetTyped returning a request.
func RgetTyped[T Elem](win *Win, result []T, ocount int, otype Datatype, target, disp, tcount int, ttype Datatype) (*Request, error) {
	if err := win.requestEpoch(target, "Rget"); err != nil {
		return nil, err
	}
	return request(GetTyped(win, result, ocount, otype, target, disp, tcount, ttype))
}

// RaccumulateTyped is AccumulateTyped returning a request.
func RaccumulateTyped[T Elem](win *Win, origin []T, ocount int, otype Datatype, target, disp, tcount int, ttype Datatype, op Op) (*Request, error) {
	if err := win.requestEpoch(target, "Raccumulate"); err != nil {
		return nil, err
	}
	return request(AccumulateTyped(win, origin, ocount, otype, target, disp, tcount, ttype, op))
}

// RgetAccumulateTyped is GetAccumulateTyped returning a request.
func RgetAccumulateTyped[T Elem](win *Win, origin []T, ocount int, otype Datatype, result []T, rcount int, rtype Datatype,
	target, disp, tcount int, ttype Datatype, op Op) (*Request, error) {
	if err := win.requestEpoch(target, "RgetAccumulate"); err != nil {
		return nil, err
	}
	return request(GetAccumulateTyped(win, origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op))
}
