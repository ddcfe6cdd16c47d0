//go:build cgo

package main

/*
#include "abi.h"
#include "include/mpi-ext.h"
*/
import "C"

import (
	"os"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/settings"
)

// The fault-tolerance extensions (ulfm.c, mpi-ext.h) over compat's
// ulfm.go. A revoked communicator, by this process or another member,
// loses its C fast paths (p2p.c; OnRevoke in newCommObj), so that every
// call on it reaches compat, which refuses it.

// ulfmClasses reports lost peers with class MPIX_ERR_PROC_FAILED instead
// of MPI_ERR_PROC_ABORTED: GSHMEM_MPI_FT=ulfm (codes written for Open
// MPI's or MPICH's fault tolerance test for the former).
var ulfmClasses = func() bool {
	v, _ := settings.Get("GSHMEM_MPI_FT").Choice(os.Getenv) // a bad value fails MPI_Init (compat's config)
	return v == "ulfm"
}()

// lostClass is the class of the codes that report lost peers (lostCode).
func lostClass() C.int {
	if ulfmClasses {
		return C.MPIX_ERR_PROC_FAILED
	}
	return C.MPI_ERR_PROC_ABORTED
}

func init() {
	abiClass[compat.ClassProcFailedPending] = C.MPIX_ERR_PROC_FAILED_PENDING
	abiClass[compat.ClassRevoked] = C.MPIX_ERR_REVOKED
	classText[C.MPIX_ERR_PROC_FAILED] = "MPIX_ERR_PROC_FAILED: a process of the communicator failed"
	classText[C.MPIX_ERR_PROC_FAILED_PENDING] = "MPIX_ERR_PROC_FAILED_PENDING: a receive from MPI_ANY_SOURCE may be left unmatched by a failed process"
	classText[C.MPIX_ERR_REVOKED] = "MPIX_ERR_REVOKED: the communicator was revoked"
}

//export abiint_comm_revoke
func abiint_comm_revoke(comm C.uintptr_t) C.int {
	const call = "MPIX_Comm_revoke"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if err := o.c.Revoke(); err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS // Revoke took the fast paths away (OnRevoke in newCommObj)
}

//export abiint_comm_is_revoked
func abiint_comm_is_revoked(comm C.uintptr_t, flag *C.int) C.int {
	const call = "MPIX_Comm_is_revoked"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if flag == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "flag is NULL")
	}
	*flag = 0
	if o.c.Revoked() {
		*flag = 1
	}
	return C.MPI_SUCCESS
}

//export abiint_comm_shrink
func abiint_comm_shrink(comm C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPIX_Comm_shrink"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "newcomm is NULL")
	}
	n, err := o.c.Shrink()
	if err != nil {
		return fail(comm, call, err)
	}
	newComm(o, n, out)
	return C.MPI_SUCCESS
}

//export abiint_comm_agree
func abiint_comm_agree(comm C.uintptr_t, flag *C.int) C.int {
	const call = "MPIX_Comm_agree"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if flag == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "flag is NULL")
	}
	v, err := o.c.Agree(int(*flag))
	if compat.ClassOf(err) == compat.ClassProcFailed || err == nil {
		*flag = C.int(v) // the agreed value comes with an unacknowledged loss too
	}
	if err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

//export abiint_comm_failure_ack
func abiint_comm_failure_ack(comm C.uintptr_t) C.int {
	const call = "MPIX_Comm_failure_ack"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if err := o.c.FailureAck(); err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

//export abiint_comm_ack_failed
func abiint_comm_ack_failed(comm C.uintptr_t, n C.int, acked *C.int) C.int {
	const call = "MPIX_Comm_ack_failed"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if acked == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "num_acked is NULL")
	}
	v, err := o.c.AckFailed(int(n))
	if err != nil {
		return fail(comm, call, err)
	}
	*acked = C.int(v)
	return C.MPI_SUCCESS
}

// abiint_comm_failed_group is MPIX_Comm_failure_get_acked (acked 1) and
// MPIX_Comm_get_failed (acked 0).
//
//export abiint_comm_failed_group
func abiint_comm_failed_group(comm C.uintptr_t, acked C.int, out *C.uintptr_t) C.int {
	call := "MPIX_Comm_get_failed"
	if acked != 0 {
		call = "MPIX_Comm_failure_get_acked"
	}
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "failedgrp is NULL")
	}
	get := o.c.GetFailed
	if acked != 0 {
		get = o.c.FailureGetAcked
	}
	g, err := get()
	if err != nil {
		return fail(comm, call, err)
	}
	*out = newGroupHandle(g)
	return C.MPI_SUCCESS
}
