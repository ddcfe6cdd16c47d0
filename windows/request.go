package windows

import "github.com/gshmem/gshmem/compat"

// Request-based operations (Rput, Rget, Raccumulate, RgetAccumulate)
// return a *compat.Request, which compat.Waitall, Testall, Request.Wait
// and the others complete alongside point-to-point requests. For Rput and
// Raccumulate the origin buffer may be reused once it completes, for Rget
// and RgetAccumulate the result buffer holds the data. Completion at the
// target still needs Flush, Unlock or UnlockAll.
//
// On the host transports every operation completes at the origin as it
// is issued, so the requests are complete from the start.

// Request-based operations are only allowed in passive-target epochs.
func (win *Win) requestEpoch(target int, call string) error {
	if err := win.check(); err != nil {
		return err
	}
	if target == compat.ProcNull {
		return nil
	}
	if target < 0 || target >= win.n {
		return errorf(compat.ClassRank, "%s to rank %d of %d", call, target, win.n)
	}
	if loadByte(&win.locks[target]) == 0 && win.ep.lockAll == 0 {
		return errorf(compat.ClassRMASync, "%s to rank %d outside a Lock or LockAll epoch on it", call, target)
	}
	return nil
}

// request hands out the request of an operation that completed at the
// origin as it was issued (err is nil) or failed (no request).
func (win *Win) request(err error) (*compat.Request, error) {
	if err != nil {
		return nil, err
	}
	r, err := win.comm.Env().GrequestStart(nil)
	if err != nil {
		return nil, wrap(err, "request")
	}
	_ = r.GrequestComplete()
	return r, nil
}

// Rput is Put returning a request (MPI_Rput); only in a Lock or LockAll
// epoch (ErrRMASync otherwise).
func Rput[T compat.Elem](win *Win, origin []T, target, disp int) (*compat.Request, error) {
	if err := win.requestEpoch(target, "Rput"); err != nil {
		return nil, err
	}
	return win.request(Put(win, origin, target, disp))
}

// Rget is Get returning a request (MPI_Rget).
func Rget[T compat.Elem](win *Win, result []T, target, disp int) (*compat.Request, error) {
	if err := win.requestEpoch(target, "Rget"); err != nil {
		return nil, err
	}
	return win.request(Get(win, result, target, disp))
}

// Raccumulate is Accumulate returning a request (MPI_Raccumulate).
func Raccumulate[T compat.Elem](win *Win, origin []T, target, disp int, op compat.Op) (*compat.Request, error) {
	if err := win.requestEpoch(target, "Raccumulate"); err != nil {
		return nil, err
	}
	return win.request(Accumulate(win, origin, target, disp, op))
}

// RgetAccumulate is GetAccumulate returning a request
// (MPI_Rget_accumulate).
func RgetAccumulate[T compat.Elem](win *Win, origin, result []T, target, disp int, op compat.Op) (*compat.Request, error) {
	if err := win.requestEpoch(target, "RgetAccumulate"); err != nil {
		return nil, err
	}
	return win.request(GetAccumulate(win, origin, result, target, disp, op))
}

// RputTyped is PutTyped returning a request.
func RputTyped[T compat.Elem](win *Win, origin []T, ocount int, otype compat.Datatype, target, disp, tcount int, ttype compat.Datatype) (*compat.Request, error) {
	if err := win.requestEpoch(target, "Rput"); err != nil {
		return nil, err
	}
	return win.request(PutTyped(win, origin, ocount, otype, target, disp, tcount, ttype))
}

// RgetTyped is GetTyped returning a request.
func RgetTyped[T compat.Elem](win *Win, result []T, ocount int, otype compat.Datatype, target, disp, tcount int, ttype compat.Datatype) (*compat.Request, error) {
	if err := win.requestEpoch(target, "Rget"); err != nil {
		return nil, err
	}
	return win.request(GetTyped(win, result, ocount, otype, target, disp, tcount, ttype))
}

// RaccumulateTyped is AccumulateTyped returning a request.
func RaccumulateTyped[T compat.Elem](win *Win, origin []T, ocount int, otype compat.Datatype, target, disp, tcount int, ttype compat.Datatype, op compat.Op) (*compat.Request, error) {
	if err := win.requestEpoch(target, "Raccumulate"); err != nil {
		return nil, err
	}
	return win.request(AccumulateTyped(win, origin, ocount, otype, target, disp, tcount, ttype, op))
}

// RgetAccumulateTyped is GetAccumulateTyped returning a request.
func RgetAccumulateTyped[T compat.Elem](win *Win, origin []T, ocount int, otype compat.Datatype, result []T, rcount int, rtype compat.Datatype,
	target, disp, tcount int, ttype compat.Datatype, op compat.Op) (*compat.Request, error) {
	if err := win.requestEpoch(target, "RgetAccumulate"); err != nil {
		return nil, err
	}
	return win.request(GetAccumulateTyped(win, origin, ocount, otype, result, rcount, rtype, target, disp, tcount, ttype, op))
}
