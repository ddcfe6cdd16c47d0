package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// Requests: user handles over a compat request (point-to-point, RMA) or
// a schedule (a nonblocking collective, nbc.go). A persistent request
// (MPI_Send_init, ...) keeps a start function and is inactive between a
// completion and the next MPI_Start.

type reqObj struct {
	r     *compat.Request // a compat operation in flight, or nil
	sched *schedule       // a nonblocking collective in flight, or nil
	owner C.uintptr_t     // the communicator or window whose error handler reports its errors
	kind  int             // the owner's kind

	// A persistent request's start: a point-to-point operation, or a
	// collective's schedule (MPI_Allreduce_init, ...).
	start      func() (*compat.Request, C.int)
	startSched func() (*schedule, C.int)

	greq *greqFns         // a generalized request's user functions (grequest.go), or nil
	part *compat.Prequest // a partitioned request (partitioned.go), or nil
}

func (q *reqObj) persistent() bool { return q.start != nil || q.startSched != nil || q.part != nil }

func newRequest(r *compat.Request, comm C.uintptr_t, start func() (*compat.Request, C.int)) C.uintptr_t {
	return newOwnedRequest(r, comm, C.ABI_KIND_COMM, start)
}

func newOwnedRequest(r *compat.Request, owner C.uintptr_t, kind int, start func() (*compat.Request, C.int)) C.uintptr_t {
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{r: r, owner: owner, kind: kind, start: start})
	return C.uintptr_t(h)
}

// fail raises a request's error on its owner.
func (q *reqObj) fail(call string, err error) C.int {
	return raise(q.kind, uintptr(q.owner), codeOf(err), call, err)
}

// active reports whether an operation is in flight (not a null or an
// inactive persistent request).
func (q *reqObj) active() bool {
	return q != nil && (q.r != nil || q.sched != nil || (q.part != nil && q.part.Active()))
}

// test makes progress and reports completion.
func (q *reqObj) test() (bool, compat.Status, error) {
	if q.part != nil {
		return q.part.Test()
	}
	if q.sched != nil {
		return q.sched.test()
	}
	return q.r.Test()
}

// wait blocks until the operation completes.
func (q *reqObj) wait() (compat.Status, error) {
	if q.part != nil {
		return q.part.Wait()
	}
	if q.sched != nil {
		return q.sched.wait()
	}
	return q.r.Wait()
}

// inner is what the operation now waits on, for a wait over several.
func (q *reqObj) inner() []*compat.Request {
	if q.part != nil {
		if r := q.part.Current(); r != nil {
			return []*compat.Request{r}
		}
		return nil // a send waiting for its partitions: its test moves it on
	}
	if q.sched != nil {
		return q.sched.cur
	}
	return []*compat.Request{q.r}
}

func reqOf(h C.uintptr_t) (*reqObj, bool) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_REQUEST)
	if !ok {
		return nil, false
	}
	return o.val.(*reqObj), true
}

// finish retires a completed request: a nonblocking one's handle is freed
// and set to MPI_REQUEST_NULL (a generalized one's free_fn runs), a
// persistent one becomes inactive.
func finish(h *C.uintptr_t, q *reqObj) error {
	if q.persistent() {
		q.r, q.sched = nil, nil
		return nil
	}
	release(uintptr(*h))
	*h = 0x180
	if q.greq != nil {
		return q.greq.release()
	}
	return nil
}

// report fills a completed request's status: from the operation, or for
// a generalized request from its query_fn, whose error it returns.
func (q *reqObj) report(st *C.MPI_Status, s compat.Status, err error) error {
	if q.greq != nil {
		return q.greq.queryInto(st)
	}
	setStatus(st, s)
	return err
}

// retire reports a completed request's status and retires it; the error
// is the operation's, query_fn's or free_fn's.
func retire(h *C.uintptr_t, q *reqObj, st *C.MPI_Status, s compat.Status, err error) error {
	err = q.report(st, s, err)
	if ferr := finish(h, q); err == nil {
		err = ferr
	}
	return err
}

// pending reports whether a wait or test of q that returned err left its
// operation in flight: a receive from MPI_ANY_SOURCE after a loss
// (MPIX_ERR_PROC_FAILED_PENDING), or one whose wait a loss ended while it
// waited for a live peer. Its handle stays valid, for another wait, a
// cancel or a free; retiring it would leave a posted receive behind a
// freed handle.
func (q *reqObj) pending(err error) bool {
	return err != nil && q.r != nil && q.sched == nil && q.part == nil && q.greq == nil && !q.r.Done()
}

// complete reports a completed request's status and error and retires it
// (unless the error left it pending).
func complete(call string, h *C.uintptr_t, q *reqObj, st *C.MPI_Status, s compat.Status, err error) C.int {
	if q.pending(err) {
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		return q.fail(call, err)
	}
	err = retire(h, q, st, s, err)
	if err != nil {
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		return q.fail(call, err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Wait
func abigo_Wait(h *C.uintptr_t, st *C.MPI_Status) C.int {
	if h == nil {
		return failCode(0, "MPI_Wait", C.MPI_ERR_ARG, "request is NULL")
	}
	if *h == 0x180 {
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	q, ok := reqOf(*h)
	if !ok {
		return failCode(0, "MPI_Wait", C.MPI_ERR_REQUEST, "invalid request")
	}
	if !q.active() {
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	s, err := q.wait()
	return complete("MPI_Wait", h, q, st, s, err)
}

//export abigo_Test
func abigo_Test(h *C.uintptr_t, flag *C.int, st *C.MPI_Status) C.int {
	if h == nil || flag == nil {
		return failCode(0, "MPI_Test", C.MPI_ERR_ARG, "request or flag is NULL")
	}
	*flag = 1
	if *h == 0x180 {
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	q, ok := reqOf(*h)
	if !ok {
		return failCode(0, "MPI_Test", C.MPI_ERR_REQUEST, "invalid request")
	}
	if !q.active() {
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	done, s, err := q.test()
	if !done {
		*flag = 0
		if err != nil { // MPIX_ERR_PROC_FAILED_PENDING: the request stays
			return q.fail("MPI_Test", err)
		}
		return C.MPI_SUCCESS
	}
	return complete("MPI_Test", h, q, st, s, err)
}

// reqArray is the C array of count request handles.
func reqArray(count C.int, reqs *C.uintptr_t) []C.uintptr_t {
	if count <= 0 || reqs == nil {
		return nil
	}
	return unsafe.Slice(reqs, int(count))
}

// requests returns the object of each handle (nil for null ones) or the
// index of an invalid handle.
func requests(hs []C.uintptr_t) ([]*reqObj, int) {
	qs := make([]*reqObj, len(hs))
	for i, h := range hs {
		if h == 0x180 {
			continue
		}
		q, ok := reqOf(h)
		if !ok {
			return nil, i
		}
		qs[i] = q
	}
	return qs, -1
}

// waitSome blocks until one of the operations in flight moves on; it
// returns an error only when the wait itself fails (the job aborted).
func waitSome(qs []*reqObj) error {
	var in []*compat.Request
	for _, q := range qs {
		if q.active() {
			in = append(in, q.inner()...)
		}
	}
	if len(in) == 0 {
		return nil // a schedule between rounds: its test moves it on
	}
	// A request that completed in error is the callers' to report; a
	// wait that failed (the job aborted, a loss) ends theirs, which would
	// otherwise test and wait again at once, for ever.
	if idx, _, err := compat.Waitany(in); err != nil && idx == compat.Undefined {
		return err
	}
	return nil
}

func arrayArgs(call string, count C.int, reqs *C.uintptr_t) ([]C.uintptr_t, []*reqObj, C.int) {
	if count < 0 || (count > 0 && reqs == nil) {
		return nil, nil, failCode(0, call, C.MPI_ERR_ARG, "count %d", int(count))
	}
	hs := reqArray(count, reqs)
	qs, bad := requests(hs)
	if bad >= 0 {
		return nil, nil, failCode(0, call, C.MPI_ERR_REQUEST, "request %d is invalid", bad)
	}
	return hs, qs, C.MPI_SUCCESS
}

// completeAll waits for (or, when test, tests) every request; with errors
// each status's MPI_ERROR says which, and the call returns
// MPI_ERR_IN_STATUS.
func completeAll(call string, count C.int, reqs *C.uintptr_t, sts *C.MPI_Status, flag *C.int, test bool) C.int {
	hs, qs, rc := arrayArgs(call, count, reqs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if test {
		for _, q := range qs {
			if q.active() {
				if done, _, _ := q.test(); !done {
					*flag = 0
					return C.MPI_SUCCESS
				}
			}
		}
		*flag = 1
	}
	var failed *reqObj
	for i, q := range qs {
		st := statusAt(sts, i)
		if !q.active() {
			setEmpty(st)
			continue
		}
		s, err := q.wait()
		if !q.pending(err) { // a pending one keeps its handle (complete)
			err = retire(&hs[i], q, st, s, err)
		}
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		if err != nil && failed == nil {
			failed = q
		}
	}
	if failed != nil {
		return raise(failed.kind, uintptr(failed.owner), C.MPI_ERR_IN_STATUS, call, nil)
	}
	return C.MPI_SUCCESS
}

//export abigo_Waitall
func abigo_Waitall(count C.int, reqs *C.uintptr_t, sts *C.MPI_Status) C.int {
	return completeAll("MPI_Waitall", count, reqs, sts, nil, false)
}

//export abigo_Testall
func abigo_Testall(count C.int, reqs *C.uintptr_t, flag *C.int, sts *C.MPI_Status) C.int {
	if flag == nil {
		return failCode(0, "MPI_Testall", C.MPI_ERR_ARG, "flag is NULL")
	}
	return completeAll("MPI_Testall", count, reqs, sts, flag, true)
}

func noneActive(qs []*reqObj) bool {
	for _, q := range qs {
		if q.active() {
			return false
		}
	}
	return true
}

// completeAny waits (or tests) for one request of the array.
func completeAny(call string, count C.int, reqs *C.uintptr_t, index, flag *C.int, st *C.MPI_Status, test bool) C.int {
	if index == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "index is NULL")
	}
	hs, qs, rc := arrayArgs(call, count, reqs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if flag != nil {
		*flag = 1
	}
	*index = C.MPI_UNDEFINED
	if noneActive(qs) {
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	for {
		for i, q := range qs {
			if !q.active() {
				continue
			}
			if done, s, err := q.test(); done || err != nil {
				*index = C.int(i) // with an error, it stays pending (complete)
				return complete(call, &hs[i], q, st, s, err)
			}
		}
		if test {
			*flag = 0
			return C.MPI_SUCCESS
		}
		if err := waitSome(qs); err != nil {
			return fail(0, call, err)
		}
	}
}

//export abigo_Waitany
func abigo_Waitany(count C.int, reqs *C.uintptr_t, index *C.int, st *C.MPI_Status) C.int {
	return completeAny("MPI_Waitany", count, reqs, index, nil, st, false)
}

//export abigo_Testany
func abigo_Testany(count C.int, reqs *C.uintptr_t, index, flag *C.int, st *C.MPI_Status) C.int {
	if flag == nil {
		return failCode(0, "MPI_Testany", C.MPI_ERR_ARG, "flag is NULL")
	}
	return completeAny("MPI_Testany", count, reqs, index, flag, st, true)
}

// completeSome completes every request already done, after waiting for
// one when wait is set.
func completeSome(call string, count C.int, reqs *C.uintptr_t, outcount, indices *C.int, sts *C.MPI_Status, wait bool) C.int {
	if outcount == nil || (count > 0 && indices == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	hs, qs, rc := arrayArgs(call, count, reqs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if noneActive(qs) {
		*outcount = C.MPI_UNDEFINED
		return C.MPI_SUCCESS
	}
	idx := unsafe.Slice(indices, int(count))
	for {
		n := 0
		var failed *reqObj
		for i, q := range qs {
			if !q.active() {
				continue
			}
			done, s, err := q.test()
			if !done && err == nil {
				continue
			}
			idx[n] = C.int(i)
			st := statusAt(sts, n)
			if !q.pending(err) { // a pending one keeps its handle
				err = retire(&hs[i], q, st, s, err)
			}
			if st != nil {
				st.MPI_ERROR = codeOf(err)
			}
			if err != nil && failed == nil {
				failed = q
			}
			n++
		}
		*outcount = C.int(n)
		if failed != nil {
			return raise(failed.kind, uintptr(failed.owner), C.MPI_ERR_IN_STATUS, call, nil)
		}
		if n > 0 || !wait {
			return C.MPI_SUCCESS
		}
		if err := waitSome(qs); err != nil {
			return fail(0, call, err)
		}
	}
}

//export abigo_Waitsome
func abigo_Waitsome(count C.int, reqs *C.uintptr_t, outcount, indices *C.int, sts *C.MPI_Status) C.int {
	return completeSome("MPI_Waitsome", count, reqs, outcount, indices, sts, true)
}

//export abigo_Testsome
func abigo_Testsome(count C.int, reqs *C.uintptr_t, outcount, indices *C.int, sts *C.MPI_Status) C.int {
	return completeSome("MPI_Testsome", count, reqs, outcount, indices, sts, false)
}

func start(call string, h C.uintptr_t) C.int {
	q, ok := reqOf(h)
	if !ok || !q.persistent() {
		return failCode(0, call, C.MPI_ERR_REQUEST, "not a persistent request")
	}
	if q.active() {
		return raise(q.kind, uintptr(q.owner), C.MPI_ERR_REQUEST, call, nil)
	}
	if q.part != nil {
		if err := q.part.Start(); err != nil {
			return q.fail(call, err)
		}
		return C.MPI_SUCCESS
	}
	if q.startSched != nil {
		s, rc := q.startSched()
		if s == nil {
			return rc
		}
		q.sched = s
		return C.MPI_SUCCESS
	}
	r, rc := q.start()
	if r == nil {
		return rc
	}
	q.r = r
	return C.MPI_SUCCESS
}

//export abigo_Start
func abigo_Start(h *C.uintptr_t) C.int {
	if h == nil {
		return failCode(0, "MPI_Start", C.MPI_ERR_ARG, "request is NULL")
	}
	return start("MPI_Start", *h)
}

//export abigo_Startall
func abigo_Startall(count C.int, reqs *C.uintptr_t) C.int {
	if count < 0 || (count > 0 && reqs == nil) {
		return failCode(0, "MPI_Startall", C.MPI_ERR_ARG, "count %d", int(count))
	}
	for _, h := range reqArray(count, reqs) {
		if rc := start("MPI_Startall", h); rc != C.MPI_SUCCESS {
			return rc
		}
	}
	return C.MPI_SUCCESS
}
