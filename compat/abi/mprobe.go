package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
)

// Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv) and
// MPI_Isendrecv. A matched probe takes the message it found out of
// matching in the same hold of compat's engine lock (Comm.Mprobe), so no
// other thread's receive or probe can take it, as MPI says, and receives
// it into memory of the message handle; MPI_Mrecv copies it into the
// user's buffer.

type message struct {
	data []byte
	st   compat.Status
	comm C.uintptr_t // whose error handler reports the receive's errors
}

// matched probes with Probe or Iprobe and takes the message it finds.
func matched(call string, src, tag C.int, comm C.uintptr_t, block bool, flag *C.int, msg *C.uintptr_t, st *C.MPI_Status) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if msg == nil || (!block && flag == nil) {
		return failCode(comm, call, C.MPI_ERR_ARG, "NULL argument")
	}
	if src == C.MPI_PROC_NULL {
		if flag != nil {
			*flag = 1
		}
		*msg = 0x129 // MPI_MESSAGE_NO_PROC
		setStatus(st, compat.Status{Source: compat.ProcNull, Tag: compat.AnyTag})
		return C.MPI_SUCCESS
	}
	var r *compat.Request
	var err error
	if block {
		r, _, err = o.c.Mprobe(rankIn(src), tagIn(tag))
	} else {
		var ok bool
		r, _, ok, err = o.c.Improbe(rankIn(src), tagIn(tag))
		*flag = 0
		if err == nil && !ok {
			return C.MPI_SUCCESS
		}
	}
	if err != nil {
		return fail(comm, call, err)
	}
	got, err := r.Wait()
	if err != nil {
		return fail(comm, call, err)
	}
	m := &message{data: r.Data(), comm: comm}
	m.st = got
	if flag != nil {
		*flag = 1
	}
	h, _ := newHandle(C.ABI_KIND_MESSAGE, m)
	*msg = C.uintptr_t(h)
	setStatus(st, got)
	return C.MPI_SUCCESS
}

//export abigo_Mprobe
func abigo_Mprobe(src, tag C.int, comm C.uintptr_t, msg *C.uintptr_t, st *C.MPI_Status) C.int {
	return matched("MPI_Mprobe", src, tag, comm, true, nil, msg, st)
}

//export abigo_Improbe
func abigo_Improbe(src, tag C.int, comm C.uintptr_t, flag *C.int, msg *C.uintptr_t, st *C.MPI_Status) C.int {
	return matched("MPI_Improbe", src, tag, comm, false, flag, msg, st)
}

// mrecv delivers a matched message into buf and frees its handle.
func mrecv(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, msg *C.uintptr_t) (compat.Status, C.uintptr_t, error, C.int) {
	if msg == nil {
		return compat.Status{}, 0, nil, failCode(0, call, C.MPI_ERR_ARG, "message is NULL")
	}
	if *msg == 0x129 { // MPI_MESSAGE_NO_PROC
		*msg = 0x128
		return compat.Status{Source: compat.ProcNull, Tag: compat.AnyTag}, 0x102, nil, C.MPI_SUCCESS
	}
	o, ok := lookup(uintptr(*msg), C.ABI_KIND_MESSAGE)
	if !ok {
		return compat.Status{}, 0, nil, failCode(0, call, C.MPI_ERR_REQUEST, "invalid message")
	}
	m := o.val.(*message)
	b, dt, rc := msgBuf(m.comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return compat.Status{}, 0, nil, rc
	}
	release(uintptr(*msg))
	*msg = 0x128 // MPI_MESSAGE_NULL
	n := min(len(m.data), int(count)*dt.Size())
	h, err := hostView(b)
	if err == nil {
		unpack(h, dt, n/max(dt.Size(), 1), m.data[:n])
		err = storeBack(b, h)
	}
	if err != nil {
		return m.st, m.comm, err, C.MPI_SUCCESS
	}
	if len(m.data) > int(count)*dt.Size() {
		err = &compat.Error{Class: compat.ClassTruncate, Msg: "a matched message longer than the receive buffer"}
	}
	return m.st, m.comm, err, C.MPI_SUCCESS
}

//export abigo_Mrecv
func abigo_Mrecv(buf C.uintptr_t, count C.int, dtype C.uintptr_t, msg *C.uintptr_t, st *C.MPI_Status) C.int {
	s, comm, err, rc := mrecv("MPI_Mrecv", buf, count, dtype, msg)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	setStatus(st, s)
	if err != nil {
		if st != nil {
			st.MPI_ERROR = codeOf(err)
		}
		return fail(comm, "MPI_Mrecv", err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Imrecv
func abigo_Imrecv(buf C.uintptr_t, count C.int, dtype C.uintptr_t, msg *C.uintptr_t, req *C.uintptr_t) C.int {
	if req == nil {
		return failCode(0, "MPI_Imrecv", C.MPI_ERR_ARG, "request is NULL")
	}
	s, comm, err, rc := mrecv("MPI_Imrecv", buf, count, dtype, msg)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	// The data is already here: a request that is complete.
	sched := &schedule{status: &s, done: true, err: err}
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{sched: sched, owner: comm, kind: C.ABI_KIND_COMM})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Isendrecv
func abigo_Isendrecv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, dest, stag C.int,
	rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, src, rtag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Isendrecv"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	r, rc := startRecv(call, rbuf, rcount, rtype, src, rtag, comm)
	if r == nil {
		return rc
	}
	s, rc := startSend(call, sbuf, scount, stype, dest, stag, comm, standard)
	if s == nil {
		return rc
	}
	return isendrecv(comm, r, s, nil, req)
}

// isendrecv is a request over a receive and a send that completes when
// both have, with the receive's status; then runs after.
func isendrecv(comm C.uintptr_t, r, s *compat.Request, after func() error, req *C.uintptr_t) C.int {
	sched := &schedule{cur: []*compat.Request{r, s}}
	sched.finish = func() error {
		st, err := r.Wait() // complete: read its status
		sched.status = &st
		if err == nil && after != nil {
			err = after()
		}
		return err
	}
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{sched: sched, owner: comm, kind: C.ABI_KIND_COMM})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Isendrecv_replace
func abigo_Isendrecv_replace(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, stag, src, rtag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Isendrecv_replace"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	// The send goes from a copy; the receive lands in a second one that is
	// unpacked into the buffer at completion.
	h, err := hostView(b) // device memory: the copies go through the host
	if err != nil {
		return fail(comm, call, err)
	}
	out := packed(h, dt, int(count))
	in := make([]byte, len(out))
	s, err := compat.Isend(o.c, out, len(out), compat.Byte, rankIn(dest), int(stag))
	if err != nil {
		return fail(comm, call, err)
	}
	r, err := compat.Irecv(o.c, in, len(in), compat.Byte, rankIn(src), tagIn(rtag))
	if err != nil {
		return fail(comm, call, err)
	}
	return isendrecv(comm, r, s, func() error { unpack(h, dt, int(count), in); return storeBack(b, h) }, req)
}
