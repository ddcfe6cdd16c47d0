package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
)

// Point-to-point calls, over compat's Send/Recv/Isend/Irecv with the
// buffer as bytes (a byte buffer fits every datatype in compat).
//
// MPI_Send and MPI_Recv of eager messages run in C (p2p.c), which calls
// abigo_Send and abigo_Recv for everything else (rendezvous, queued
// sends, unexpected messages, derived datatypes, errors).

// sendMode is how a send completes: standard (Send, and Rsend whose
// ready-mode precondition allows standard semantics) or synchronous.
type sendMode int

const (
	standard sendMode = iota
	synchronous
)

func send(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, mode sendMode) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var err error
	if mode == synchronous {
		err = compat.Ssend(o.c, b, int(count), dt, rankIn(dest), int(tag))
	} else {
		err = compat.Send(o.c, b, int(count), dt, rankIn(dest), int(tag))
	}
	if err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Send
func abigo_Send(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t) C.int {
	return send("MPI_Send", buf, count, dtype, dest, tag, comm, standard)
}

//export abigo_Rsend
func abigo_Rsend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t) C.int {
	return send("MPI_Rsend", buf, count, dtype, dest, tag, comm, standard)
}

//export abigo_Ssend
func abigo_Ssend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t) C.int {
	return send("MPI_Ssend", buf, count, dtype, dest, tag, comm, synchronous)
}

//export abigo_Recv
func abigo_Recv(buf C.uintptr_t, count C.int, dtype C.uintptr_t, src, tag C.int, comm C.uintptr_t, st *C.MPI_Status) C.int {
	const call = "MPI_Recv"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, err := compat.Recv(o.c, b, int(count), dt, rankIn(src), tagIn(tag))
	setStatus(st, s)
	if err != nil {
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

// startSend starts a nonblocking send and returns its compat request.
func startSend(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, mode sendMode) (*compat.Request, C.int) {
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	return sendOn(call, b, count, dt, dest, tag, comm, mode)
}

// sendOn starts a send of a buffer and datatype already resolved: a
// persistent request resolves them once, at its init, because MPI lets a
// program free the datatype (MPI_Type_free) while the request lives.
func sendOn(call string, b []byte, count C.int, dt compat.Datatype, dest, tag C.int, comm C.uintptr_t, mode sendMode) (*compat.Request, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, rc
	}
	var r *compat.Request
	var err error
	if mode == synchronous {
		r, err = compat.Issend(o.c, b, int(count), dt, rankIn(dest), int(tag))
	} else {
		r, err = compat.Isend(o.c, b, int(count), dt, rankIn(dest), int(tag))
	}
	if err != nil {
		return nil, fail(comm, call, err)
	}
	return r, C.MPI_SUCCESS
}

func startRecv(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, src, tag C.int, comm C.uintptr_t) (*compat.Request, C.int) {
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	return recvOn(call, b, count, dt, src, tag, comm)
}

// recvOn is sendOn's receive.
func recvOn(call string, b []byte, count C.int, dt compat.Datatype, src, tag C.int, comm C.uintptr_t) (*compat.Request, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, rc
	}
	r, err := compat.Irecv(o.c, b, int(count), dt, rankIn(src), tagIn(tag))
	if err != nil {
		return nil, fail(comm, call, err)
	}
	return r, C.MPI_SUCCESS
}

func isend(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t, mode sendMode) C.int {
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	r, rc := startSend(call, buf, count, dtype, dest, tag, comm, mode)
	if r == nil {
		return rc
	}
	*req = newRequest(r, comm, nil)
	return C.MPI_SUCCESS
}

//export abigo_Isend
func abigo_Isend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return isend("MPI_Isend", buf, count, dtype, dest, tag, comm, req, standard)
}

//export abigo_Irsend
func abigo_Irsend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return isend("MPI_Irsend", buf, count, dtype, dest, tag, comm, req, standard)
}

//export abigo_Issend
func abigo_Issend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return isend("MPI_Issend", buf, count, dtype, dest, tag, comm, req, synchronous)
}

//export abigo_Irecv
func abigo_Irecv(buf C.uintptr_t, count C.int, dtype C.uintptr_t, src, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if req == nil {
		return failCode(comm, "MPI_Irecv", C.MPI_ERR_ARG, "request is NULL")
	}
	r, rc := startRecv("MPI_Irecv", buf, count, dtype, src, tag, comm)
	if r == nil {
		return rc
	}
	*req = newRequest(r, comm, nil)
	return C.MPI_SUCCESS
}

// Persistent requests: the arguments are kept, and MPI_Start starts a new
// compat operation with them.

func persistentSend(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t, mode sendMode) C.int {
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	*req = newRequest(nil, comm, func() (*compat.Request, C.int) {
		return sendOn(call, b, count, dt, dest, tag, comm, mode)
	})
	return C.MPI_SUCCESS
}

//export abigo_Send_init
func abigo_Send_init(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentSend("MPI_Send_init", buf, count, dtype, dest, tag, comm, req, standard)
}

//export abigo_Rsend_init
func abigo_Rsend_init(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentSend("MPI_Rsend_init", buf, count, dtype, dest, tag, comm, req, standard)
}

//export abigo_Ssend_init
func abigo_Ssend_init(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return persistentSend("MPI_Ssend_init", buf, count, dtype, dest, tag, comm, req, synchronous)
}

//export abigo_Recv_init
func abigo_Recv_init(buf C.uintptr_t, count C.int, dtype C.uintptr_t, src, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Recv_init"
	if o, rc := commOf(comm, call); o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	*req = newRequest(nil, comm, func() (*compat.Request, C.int) {
		return recvOn(call, b, count, dt, src, tag, comm)
	})
	return C.MPI_SUCCESS
}

//export abigo_Sendrecv
func abigo_Sendrecv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, dest, stag C.int,
	rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, src, rtag C.int, comm C.uintptr_t, st *C.MPI_Status) C.int {
	const call = "MPI_Sendrecv"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	sb, sdt, rc := msgBuf(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	rb, rdt, rc := msgBuf(comm, call, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, err := compat.Sendrecv(o.c, sb, int(scount), sdt, rankIn(dest), int(stag), rb, int(rcount), rdt, rankIn(src), tagIn(rtag))
	setStatus(st, s)
	if err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Sendrecv_replace
func abigo_Sendrecv_replace(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, stag, src, rtag C.int, comm C.uintptr_t, st *C.MPI_Status) C.int {
	const call = "MPI_Sendrecv_replace"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, err := compat.SendrecvReplace(o.c, b, int(count), dt, rankIn(dest), int(stag), rankIn(src), tagIn(rtag))
	setStatus(st, s)
	if err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Probe
func abigo_Probe(src, tag C.int, comm C.uintptr_t, st *C.MPI_Status) C.int {
	o, rc := commOf(comm, "MPI_Probe")
	if o == nil {
		return rc
	}
	s, err := o.c.Probe(rankIn(src), tagIn(tag))
	if err != nil {
		return fail(comm, "MPI_Probe", err)
	}
	setStatus(st, s)
	return C.MPI_SUCCESS
}

//export abigo_Iprobe
func abigo_Iprobe(src, tag C.int, comm C.uintptr_t, flag *C.int, st *C.MPI_Status) C.int {
	o, rc := commOf(comm, "MPI_Iprobe")
	if o == nil {
		return rc
	}
	if flag == nil {
		return failCode(comm, "MPI_Iprobe", C.MPI_ERR_ARG, "flag is NULL")
	}
	ok, s, err := o.c.Iprobe(rankIn(src), tagIn(tag))
	if err != nil {
		return fail(comm, "MPI_Iprobe", err)
	}
	*flag = 0
	if ok {
		*flag = 1
		setStatus(st, s)
	}
	return C.MPI_SUCCESS
}
