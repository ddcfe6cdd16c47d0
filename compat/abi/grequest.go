package main

/*
#include "abi.h"
int abi_call_grequest_query(uintptr_t fn, uintptr_t extra, MPI_Status *status);
int abi_call_grequest_free(uintptr_t fn, uintptr_t extra);
int abi_call_grequest_cancel(uintptr_t fn, uintptr_t extra, int complete);
*/
import "C"

import (
	"fmt"
)

// Generalized requests (MPI_Grequest_start): a compat generalized request
// carries the waiting (so that Waitany and Waitall mix them with any
// other request), and the user's three functions run where MPI says:
// query_fn fills the status when a wait, test or MPI_Request_get_status
// finds the request complete, free_fn runs when the request is freed (by
// the call that completes it, by MPI_Request_free of a completed one, or
// by MPI_Grequest_complete after an MPI_Request_free), cancel_fn runs in
// MPI_Cancel with whether MPI_Grequest_complete was called.

// greqFns are a generalized request's user functions and state.
type greqFns struct {
	query, free, cancel C.uintptr_t
	extra               C.uintptr_t
	freed               bool // MPI_Request_free came before MPI_Grequest_complete
}

// codeErr is an error code a user function returned.
type codeErr C.int

func (c codeErr) Error() string { return fmt.Sprintf("a user function returned error code %d", int(c)) }

// query runs query_fn into st (a scratch status for MPI_STATUS_IGNORE).
func (g *greqFns) queryInto(st *C.MPI_Status) error {
	var tmp C.MPI_Status
	if st == nil {
		st = &tmp
	}
	if rc := C.abi_call_grequest_query(g.query, g.extra, st); rc != C.MPI_SUCCESS {
		return codeErr(rc)
	}
	return nil
}

func (g *greqFns) release() error {
	if rc := C.abi_call_grequest_free(g.free, g.extra); rc != C.MPI_SUCCESS {
		return codeErr(rc)
	}
	return nil
}

//export abigo_Grequest_start
func abigo_Grequest_start(query, free, cancel, extra C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Grequest_start"
	if req == nil || query == 0 || free == 0 || cancel == 0 {
		return failCode(0, call, C.MPI_ERR_ARG, "a NULL function or request")
	}
	if env.e == nil {
		return failCode(0, call, C.MPI_ERR_OTHER, "MPI is not initialized")
	}
	g := &greqFns{query: query, free: free, cancel: cancel, extra: extra}
	r, err := env.e.GrequestStartCancel(nil, func(completed bool) error {
		c := C.int(0)
		if completed {
			c = 1
		}
		if rc := C.abi_call_grequest_cancel(g.cancel, g.extra, c); rc != C.MPI_SUCCESS {
			return codeErr(rc)
		}
		return nil
	})
	if err != nil {
		return fail(0, call, err)
	}
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{r: r, greq: g, owner: 0, kind: C.ABI_KIND_NONE})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Grequest_complete
func abigo_Grequest_complete(h C.uintptr_t) C.int {
	const call = "MPI_Grequest_complete"
	q, ok := reqOf(h)
	if !ok || q.greq == nil {
		return failCode(0, call, C.MPI_ERR_REQUEST, "not a generalized request")
	}
	if err := q.r.GrequestComplete(); err != nil {
		return fail(0, call, err)
	}
	if q.greq.freed { // its handle was kept for this call only
		release(uintptr(h))
		if err := q.greq.release(); err != nil {
			return raise(C.ABI_KIND_NONE, 0, codeOf(err), call, err)
		}
	}
	return C.MPI_SUCCESS
}
