package main

/*
#include "abi.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// MPI_Request_free, MPI_Cancel and the status queries that leave a
// request as it is (MPI_Request_get_status and the _all, _any and _some
// forms of MPI-4.1).

//export abigo_Request_free
func abigo_Request_free(h *C.uintptr_t) C.int {
	const call = "MPI_Request_free"
	if h == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "request is NULL")
	}
	q, ok := reqOf(*h)
	if !ok {
		return failCode(0, call, C.MPI_ERR_REQUEST, "invalid request")
	}
	if q.sched != nil || (q.kind == C.ABI_KIND_FILE && q.r != nil && !q.r.Done()) {
		// A collective must still run to its end for the other members
		// (a nonblocking collective file access moves on only inside
		// calls, file_nbcoll.go in compat): finish it here rather than
		// drop it half done.
		if _, err := q.wait(); err != nil {
			return q.fail(call, err)
		}
	}
	if q.greq != nil && q.greq.freed {
		return failCode(0, call, C.MPI_ERR_REQUEST, "invalid request")
	}
	if q.greq != nil && !q.r.Done() {
		// free_fn runs when MPI_Grequest_complete comes, which needs the
		// handle until then.
		q.greq.freed = true
		*h = 0x180
		return C.MPI_SUCCESS
	}
	// A point-to-point operation in flight goes on and completes in a later
	// progress call; only the handle goes, as MPI allows.
	release(uintptr(*h))
	*h = 0x180
	if q.greq != nil {
		if err := q.greq.release(); err != nil {
			return raise(C.ABI_KIND_NONE, 0, codeOf(err), call, err)
		}
	}
	return C.MPI_SUCCESS
}

//export abigo_Cancel
func abigo_Cancel(h *C.uintptr_t) C.int {
	const call = "MPI_Cancel"
	if h == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "request is NULL")
	}
	q, ok := reqOf(*h)
	if !ok || (q.greq != nil && q.greq.freed) {
		return failCode(0, call, C.MPI_ERR_REQUEST, "invalid request")
	}
	if q.sched != nil || q.startSched != nil {
		return raise(q.kind, uintptr(q.owner), C.MPI_ERR_REQUEST, call, errors.New("MPI_ERR_REQUEST: a collective's request cannot be cancelled"))
	}
	r := q.r
	if q.part != nil {
		r = q.part.Current() // a receive's posted message, or nil
	}
	if r == nil { // an inactive persistent request, or a send waiting for partitions
		return C.MPI_SUCCESS
	}
	if err := r.Cancel(); err != nil {
		return q.fail(call, err)
	}
	return C.MPI_SUCCESS
}

// statusOne tests q without retiring it and, when it is complete (or
// null or inactive: an empty status), fills st.
func statusOne(q *reqObj, st *C.MPI_Status) (bool, error) {
	if !q.active() {
		setEmpty(st)
		return true, nil
	}
	done, s, err := q.test()
	if !done {
		return false, nil
	}
	return true, q.report(st, s, err)
}

//export abigo_Request_get_status
func abigo_Request_get_status(h C.uintptr_t, flag *C.int, st *C.MPI_Status) C.int {
	const call = "MPI_Request_get_status"
	if flag == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "flag is NULL")
	}
	var q *reqObj
	if h != 0x180 {
		var ok bool
		if q, ok = reqOf(h); !ok {
			return failCode(0, call, C.MPI_ERR_REQUEST, "invalid request")
		}
	}
	done, err := statusOne(q, st)
	*flag = boolInt(done)
	if err != nil {
		return q.fail(call, err)
	}
	return C.MPI_SUCCESS
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

//export abigo_Request_get_status_all
func abigo_Request_get_status_all(count C.int, reqs *C.uintptr_t, flag *C.int, sts *C.MPI_Status) C.int {
	const call = "MPI_Request_get_status_all"
	if flag == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "flag is NULL")
	}
	_, qs, rc := arrayArgs(call, count, reqs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	for _, q := range qs {
		if q.active() {
			if done, _, _ := q.test(); !done {
				*flag = 0
				return C.MPI_SUCCESS
			}
		}
	}
	*flag = 1
	var failed *reqObj
	for i, q := range qs {
		st := statusAt(sts, i)
		_, err := statusOne(q, st)
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

//export abigo_Request_get_status_any
func abigo_Request_get_status_any(count C.int, reqs *C.uintptr_t, index, flag *C.int, st *C.MPI_Status) C.int {
	const call = "MPI_Request_get_status_any"
	if index == nil || flag == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "index or flag is NULL")
	}
	_, qs, rc := arrayArgs(call, count, reqs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	*index, *flag = C.MPI_UNDEFINED, 1
	if noneActive(qs) {
		setEmpty(st)
		return C.MPI_SUCCESS
	}
	for i, q := range qs {
		if !q.active() {
			continue
		}
		if done, s, err := q.test(); done {
			*index = C.int(i)
			if err = q.report(st, s, err); err != nil {
				return q.fail(call, err)
			}
			return C.MPI_SUCCESS
		}
	}
	*flag = 0
	return C.MPI_SUCCESS
}

//export abigo_Request_get_status_some
func abigo_Request_get_status_some(count C.int, reqs *C.uintptr_t, outcount, indices *C.int, sts *C.MPI_Status) C.int {
	const call = "MPI_Request_get_status_some"
	if outcount == nil || (count > 0 && indices == nil) {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	_, qs, rc := arrayArgs(call, count, reqs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if noneActive(qs) {
		*outcount = C.MPI_UNDEFINED
		return C.MPI_SUCCESS
	}
	idx := unsafe.Slice(indices, int(count))
	n := 0
	var failed *reqObj
	for i, q := range qs {
		if !q.active() {
			continue
		}
		done, s, err := q.test()
		if !done {
			continue
		}
		idx[n] = C.int(i)
		st := statusAt(sts, n)
		err = q.report(st, s, err)
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
	return C.MPI_SUCCESS
}
