package main

/*
#include "abi.h"
*/
import "C"

// MPI_Comm_disconnect (MPI-4.1 11.10.4): collective over comm; once every
// member's communication on it is complete and matched (the caller's
// duty), the members meet in a barrier, so that no message of comm is
// still on its way to a member, then each frees comm and gets
// MPI_COMM_NULL, and the links to other jobs' processes that no
// communicator names any more are shut (compat's CloseIdleLinks). Any
// communicator but the predefined ones may be disconnected, an
// intercommunicator's barrier meeting both groups.

//export abigo_Comm_disconnect
func abigo_Comm_disconnect(comm *C.uintptr_t) C.int {
	const call = "MPI_Comm_disconnect"
	if comm == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "comm is NULL")
	}
	h := *comm
	if h == 0x101 || h == 0x102 {
		return failCode(h, call, C.MPI_ERR_COMM, "a predefined communicator cannot be disconnected")
	}
	o, rc := commOf(h, call)
	if o == nil {
		return rc
	}
	if err := o.c.BarrierP2P(); err != nil {
		return fail(h, call, err)
	}
	e := o.c.Env()
	if rc := abigo_Comm_free(comm); rc != C.MPI_SUCCESS {
		return rc
	}
	e.CloseIdleLinks()
	return C.MPI_SUCCESS
}
