package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// Requests: user handles over a compat request. A persistent request
// (MPI_Send_init, ...) keeps a start function and is inactive (r nil)
// between a completion and the next MPI_Start.

type reqObj struct {
	r     *compat.Request
	owner C.uintptr_t // the communicator or window whose error handler reports its errors
	kind  int         // the owner's kind
	start func() (*compat.Request, C.int)
}

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

func reqOf(h C.uintptr_t) (*reqObj, bool) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_REQUEST)
	if !ok {
		return nil, false
	}
	return o.val.(*reqObj), true
}

// finish retires a completed request: a nonblocking one's handle is freed
// and set to MPI_REQUEST_NULL, a persistent one becomes inactive.
func finish(h *C.uintptr_t, q *reqObj) {
	if q.start != nil {
		q.r = nil
		return
	}
	release(uintptr(*h))
	*h = 0x180
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
	if q.r == nil { // inactive persistent request
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	s, err := q.r.Wait()
	setStatus(st, s)
	finish(h, q)
	if err != nil {
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		return q.fail("MPI_Wait", err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Test
func abigo_Test(h *C.uintptr_t, flag *C.int, st *C.MPI_Status) C.int {
	if h == nil || flag == nil {
		return failCode(0, "MPI_Test", C.MPI_ERR_ARG, "request or flag is NULL")
	}
	if *h == 0x180 {
		*flag = 1
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	q, ok := reqOf(*h)
	if !ok {
		return failCode(0, "MPI_Test", C.MPI_ERR_REQUEST, "invalid request")
	}
	if q.r == nil {
		*flag = 1
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	done, s, err := q.r.Test()
	if !done {
		*flag = 0
		return C.MPI_SUCCESS
	}
	*flag = 1
	setStatus(st, s)
	finish(h, q)
	if err != nil {
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		return q.fail("MPI_Test", err)
	}
	return C.MPI_SUCCESS
}

// reqArray is the C array of count request handles.
func reqArray(count C.int, reqs *C.uintptr_t) []C.uintptr_t {
	if count <= 0 || reqs == nil {
		return nil
	}
	return unsafe.Slice(reqs, int(count))
}

// active returns the compat request of each handle (nil for null and
// inactive ones) or the index of an invalid handle.
func active(hs []C.uintptr_t) ([]*compat.Request, []*reqObj, int) {
	rs := make([]*compat.Request, len(hs))
	qs := make([]*reqObj, len(hs))
	for i, h := range hs {
		if h == 0x180 {
			continue
		}
		q, ok := reqOf(h)
		if !ok {
			return nil, nil, i
		}
		rs[i], qs[i] = q.r, q
	}
	return rs, qs, -1
}

// completeAll waits for (or, when test, tests) every request; with errors
// each status's MPI_ERROR says which, and the call returns
// MPI_ERR_IN_STATUS.
func completeAll(call string, count C.int, reqs *C.uintptr_t, sts *C.MPI_Status, flag *C.int, test bool) C.int {
	if count < 0 || (count > 0 && reqs == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "count %d", int(count))
	}
	hs := reqArray(count, reqs)
	rs, qs, bad := active(hs)
	if bad >= 0 {
		return failCode(0, call, C.MPI_ERR_REQUEST, "request %d is invalid", bad)
	}
	if test {
		for _, r := range rs {
			if r == nil {
				continue
			}
			if done, _, _ := r.Test(); !done {
				*flag = 0
				return C.MPI_SUCCESS
			}
		}
		*flag = 1
	}
	var failed *reqObj
	for i, r := range rs {
		st := statusAt(sts, i)
		if r == nil {
			setEmpty(st)
			continue
		}
		s, err := r.Wait()
		setStatus(st, s)
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		if err != nil && failed == nil {
			failed = qs[i]
		}
		finish(&hs[i], qs[i])
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

// completeAny waits (or tests) for one request of the array.
func completeAny(call string, count C.int, reqs *C.uintptr_t, index, flag *C.int, st *C.MPI_Status, test bool) C.int {
	if index == nil || count < 0 || (count > 0 && reqs == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL index or bad count %d", int(count))
	}
	hs := reqArray(count, reqs)
	rs, qs, bad := active(hs)
	if bad >= 0 {
		return failCode(0, call, C.MPI_ERR_REQUEST, "request %d is invalid", bad)
	}
	none := true
	for _, r := range rs {
		none = none && r == nil
	}
	if none {
		*index = C.MPI_UNDEFINED
		if flag != nil {
			*flag = 1
		}
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	var i int
	var s compat.Status
	var err error
	if test {
		var ok bool
		i, ok, s, err = compat.Testany(rs)
		*flag = 0
		if !ok {
			*index = C.MPI_UNDEFINED
			return C.MPI_SUCCESS
		}
		*flag = 1
	} else {
		i, s, err = compat.Waitany(rs)
	}
	if i < 0 || i >= len(rs) { // the wait itself failed (job aborted)
		return fail(0, call, err)
	}
	*index = C.int(i)
	setStatus(st, s)
	q := qs[i]
	finish(&hs[i], q)
	if err != nil {
		return q.fail(call, err)
	}
	return C.MPI_SUCCESS
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
	if outcount == nil || count < 0 || (count > 0 && (reqs == nil || indices == nil)) {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument or bad count %d", int(count))
	}
	hs := reqArray(count, reqs)
	rs, qs, bad := active(hs)
	if bad >= 0 {
		return failCode(0, call, C.MPI_ERR_REQUEST, "request %d is invalid", bad)
	}
	none := true
	for _, r := range rs {
		none = none && r == nil
	}
	if none {
		*outcount = C.MPI_UNDEFINED
		return C.MPI_SUCCESS
	}
	if wait {
		if _, _, err := compat.Waitany(rs); err != nil && compat.ClassOf(err) == compat.ClassOther {
			return fail(0, call, err)
		}
	}
	idx := unsafe.Slice(indices, int(count))
	n := 0
	var failed *reqObj
	for i, r := range rs {
		if r == nil {
			continue
		}
		done, s, err := r.Test()
		if !done {
			continue
		}
		idx[n] = C.int(i)
		st := statusAt(sts, n)
		setStatus(st, s)
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		if err != nil && failed == nil {
			failed = qs[i]
		}
		finish(&hs[i], qs[i])
		n++
	}
	*outcount = C.int(n)
	if failed != nil {
		return raise(failed.kind, uintptr(failed.owner), C.MPI_ERR_IN_STATUS, call, nil)
	}
	return C.MPI_SUCCESS
}

//export abigo_Waitsome
func abigo_Waitsome(count C.int, reqs *C.uintptr_t, outcount, indices *C.int, sts *C.MPI_Status) C.int {
	return completeSome("MPI_Waitsome", count, reqs, outcount, indices, sts, true)
}

//export abigo_Testsome
func abigo_Testsome(count C.int, reqs *C.uintptr_t, outcount, indices *C.int, sts *C.MPI_Status) C.int {
	return completeSome("MPI_Testsome", count, reqs, outcount, indices, sts, false)
}

//export abigo_Request_free
func abigo_Request_free(h *C.uintptr_t) C.int {
	if h == nil {
		return failCode(0, "MPI_Request_free", C.MPI_ERR_ARG, "request is NULL")
	}
	if _, ok := reqOf(*h); !ok {
		return failCode(0, "MPI_Request_free", C.MPI_ERR_REQUEST, "invalid request")
	}
	// An operation in flight goes on and completes in a later progress
	// call; only the handle goes, as MPI allows.
	release(uintptr(*h))
	*h = 0x180
	return C.MPI_SUCCESS
}

//export abigo_Request_get_status
func abigo_Request_get_status(h C.uintptr_t, flag *C.int, st *C.MPI_Status) C.int {
	if flag == nil {
		return failCode(0, "MPI_Request_get_status", C.MPI_ERR_ARG, "flag is NULL")
	}
	if h == 0x180 {
		*flag = 1
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	q, ok := reqOf(h)
	if !ok {
		return failCode(0, "MPI_Request_get_status", C.MPI_ERR_REQUEST, "invalid request")
	}
	if q.r == nil {
		*flag = 1
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	done, s, err := q.r.Test()
	*flag = 0
	if done {
		*flag = 1
		setStatus(st, s)
		if err != nil {
			return q.fail("MPI_Request_get_status", err)
		}
	}
	return C.MPI_SUCCESS
}

func start(call string, h C.uintptr_t) C.int {
	q, ok := reqOf(h)
	if !ok || q.start == nil {
		return failCode(0, call, C.MPI_ERR_REQUEST, "not a persistent request")
	}
	if q.r != nil {
		return raise(q.kind, uintptr(q.owner), C.MPI_ERR_REQUEST, call, nil)
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
