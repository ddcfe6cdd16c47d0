package main

/*
#include "abi.h"
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/gshmem/gshmem/compat"
)

// Buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Bsend_init) through an
// attached buffer: the process's (MPI_Buffer_attach) or a communicator's
// (MPI_Comm_attach_buffer, MPI-4.1), which a buffered send on that
// communicator uses first. A buffered send completes locally whatever
// the receiver does: the message is copied and sent from the copy. The
// attached buffer's size is what bounds the copies in flight (each takes
// its packed bytes plus MPI_BSEND_OVERHEAD, as MPI accounts: a send that
// does not fit fails with MPI_ERR_BUFFER); the copies live in Go memory
// rather than in the buffer itself, which a program cannot tell apart.
// MPI_BUFFER_AUTOMATIC attaches a buffer without a bound.
//
// A buffer is an object keyed by what it is attached to: nil for the
// process, a *commObj for a communicator, a *sessionObj for a session
// (MPI_Session_attach_buffer). A buffered send uses its communicator's
// buffer, else the buffer of the session the communicator derives from,
// else the process's (MPI-4.1 3.6).

// bsendBuf is an attached buffer and the messages sent through it.
type bsendBuf struct {
	addr    C.uintptr_t // as attached (MPI_BUFFER_AUTOMATIC is 2)
	size    int
	used    int
	pending []bsendMsg
}

type bsendMsg struct {
	r     *compat.Request
	bytes int
}

const bufferAutomatic = 2 // MPI_BUFFER_AUTOMATIC

// buffers are the attached buffers by owner.
var buffers = map[any]*bsendBuf{}

// bufferFor is the buffer a buffered send on o goes through: o's own,
// else its session's, else the process's; nil when none is attached.
func bufferFor(o *commObj) *bsendBuf {
	if b := buffers[o]; b != nil {
		return b
	}
	if o.session != nil {
		if b := buffers[o.session]; b != nil {
			return b
		}
	}
	return buffers[nil]
}

// reclaim frees the space of buffered sends that have completed; with
// wait it waits for all of them (detach, flush).
func (b *bsendBuf) reclaim(wait bool) error {
	var first error
	kept := b.pending[:0]
	for _, m := range b.pending {
		var done bool
		var err error
		if wait {
			_, err = m.r.Wait()
			done = true
		} else {
			done, _, err = m.r.Test()
		}
		if err != nil && first == nil {
			first = err
		}
		if done {
			b.used -= m.bytes
		} else {
			kept = append(kept, m)
		}
	}
	clear(b.pending[len(kept):])
	b.pending = kept
	return first
}

// errAt is the object a buffer call raises its errors on: a
// communicator, a session, or none (the process's buffer).
type errAt struct {
	kind C.int
	h    C.uintptr_t
}

func commAt(comm C.uintptr_t) errAt { return errAt{C.ABI_KIND_COMM, comm} }

func (a errAt) fail(call string, err error) C.int {
	return raise(int(a.kind), uintptr(a.h), codeOf(err), call, err)
}

func (a errAt) failCode(call string, code C.int, format string, args ...any) C.int {
	return raise(int(a.kind), uintptr(a.h), code, call, errors.New(classText[code]+": "+fmt.Sprintf(format, args...)))
}

// attach attaches a buffer to owner (nil: the process).
func attach(owner any, at errAt, call string, buf C.uintptr_t, size C.int) C.int {
	if buffers[owner] != nil {
		return at.failCode(call, C.MPI_ERR_BUFFER, "a buffer is already attached")
	}
	if buf != bufferAutomatic && (size < 0 || (size > 0 && buf < minAddr)) {
		return at.failCode(call, C.MPI_ERR_BUFFER, "buffer %#x of %d bytes", uintptr(buf), int(size))
	}
	b := &bsendBuf{addr: buf, size: int(size)}
	if buf == bufferAutomatic {
		b.size = -1
	}
	buffers[owner] = b
	return C.MPI_SUCCESS
}

// detach waits until every message sent through owner's buffer has left
// it, then detaches it and returns its address and size.
func detach(owner any, at errAt, call string, addr C.uintptr_t, size *C.int) C.int {
	if addr < minAddr || size == nil {
		return at.failCode(call, C.MPI_ERR_ARG, "NULL argument")
	}
	b := buffers[owner]
	if b == nil {
		return at.failCode(call, C.MPI_ERR_BUFFER, "no buffer is attached")
	}
	err := b.reclaim(true)
	delete(buffers, owner)
	*(*C.uintptr_t)(cptr(addr)) = b.addr
	*size = C.int(max(b.size, 0))
	if err != nil {
		return at.fail(call, err)
	}
	return C.MPI_SUCCESS
}

// flush waits until every message sent through owner's buffer has left it
// (MPI_Buffer_flush); without a buffer there is nothing to wait for.
func flush(owner any, at errAt, call string) C.int {
	if b := buffers[owner]; b != nil {
		if err := b.reclaim(true); err != nil {
			return at.fail(call, err)
		}
	}
	return C.MPI_SUCCESS
}

// iflush starts a flush: a request that completes when the messages in
// owner's buffer now have left it.
func iflush(owner any, at errAt, call string, req *C.uintptr_t) C.int {
	if req == nil {
		return at.failCode(call, C.MPI_ERR_ARG, "request is NULL")
	}
	b := buffers[owner]
	s := &schedule{}
	if b != nil {
		var rs []*compat.Request
		for _, m := range b.pending {
			rs = append(rs, m.r)
		}
		s.rounds = append(s.rounds, func() ([]*compat.Request, error) { return rs, nil })
		s.finish = func() error { return b.reclaim(false) }
	}
	s.advance()
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{sched: s, owner: at.h, kind: int(at.kind)})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

// flushAll flushes every attached buffer, as MPI_Finalize does.
func flushAll() {
	for _, b := range buffers {
		_ = b.reclaim(true)
	}
}

//export abigo_Buffer_attach
func abigo_Buffer_attach(buf C.uintptr_t, size C.int) C.int {
	return attach(nil, commAt(0), "MPI_Buffer_attach", buf, size)
}

//export abigo_Buffer_detach
func abigo_Buffer_detach(addr C.uintptr_t, size *C.int) C.int {
	return detach(nil, commAt(0), "MPI_Buffer_detach", addr, size)
}

//export abigo_Buffer_flush
func abigo_Buffer_flush() C.int { return flush(nil, commAt(0), "MPI_Buffer_flush") }

//export abigo_Buffer_iflush
func abigo_Buffer_iflush(req *C.uintptr_t) C.int {
	return iflush(nil, commAt(0), "MPI_Buffer_iflush", req)
}

//export abigo_Comm_attach_buffer
func abigo_Comm_attach_buffer(comm, buf C.uintptr_t, size C.int) C.int {
	o, rc := commOf(comm, "MPI_Comm_attach_buffer")
	if o == nil {
		return rc
	}
	return attach(o, commAt(comm), "MPI_Comm_attach_buffer", buf, size)
}

//export abigo_Comm_detach_buffer
func abigo_Comm_detach_buffer(comm, addr C.uintptr_t, size *C.int) C.int {
	o, rc := commOf(comm, "MPI_Comm_detach_buffer")
	if o == nil {
		return rc
	}
	return detach(o, commAt(comm), "MPI_Comm_detach_buffer", addr, size)
}

//export abigo_Comm_flush_buffer
func abigo_Comm_flush_buffer(comm C.uintptr_t) C.int {
	o, rc := commOf(comm, "MPI_Comm_flush_buffer")
	if o == nil {
		return rc
	}
	return flush(o, commAt(comm), "MPI_Comm_flush_buffer")
}

//export abigo_Comm_iflush_buffer
func abigo_Comm_iflush_buffer(comm C.uintptr_t, req *C.uintptr_t) C.int {
	o, rc := commOf(comm, "MPI_Comm_iflush_buffer")
	if o == nil {
		return rc
	}
	return iflush(o, commAt(comm), "MPI_Comm_iflush_buffer", req)
}

// A session's buffer (MPI-4.1 3.6): what a buffered send on a
// communicator derived from the session uses when the communicator has
// none. Its errors are raised on the session.

//export abigo_Session_attach_buffer
func abigo_Session_attach_buffer(session, buf C.uintptr_t, size C.int) C.int {
	const call = "MPI_Session_attach_buffer"
	o, rc := sessionOf(session, call)
	if o == nil {
		return rc
	}
	return attach(o, errAt{C.ABI_KIND_SESSION, session}, call, buf, size)
}

//export abigo_Session_detach_buffer
func abigo_Session_detach_buffer(session, addr C.uintptr_t, size *C.int) C.int {
	const call = "MPI_Session_detach_buffer"
	o, rc := sessionOf(session, call)
	if o == nil {
		return rc
	}
	return detach(o, errAt{C.ABI_KIND_SESSION, session}, call, addr, size)
}

//export abigo_Session_flush_buffer
func abigo_Session_flush_buffer(session C.uintptr_t) C.int {
	const call = "MPI_Session_flush_buffer"
	o, rc := sessionOf(session, call)
	if o == nil {
		return rc
	}
	return flush(o, errAt{C.ABI_KIND_SESSION, session}, call)
}

//export abigo_Session_iflush_buffer
func abigo_Session_iflush_buffer(session C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Session_iflush_buffer"
	o, rc := sessionOf(session, call)
	if o == nil {
		return rc
	}
	return iflush(o, errAt{C.ABI_KIND_SESSION, session}, call, req)
}

// dropSessionBuffer flushes and detaches session o's buffer, as
// MPI_Session_finalize does.
func dropSessionBuffer(o *sessionObj) {
	if b := buffers[o]; b != nil {
		_ = b.reclaim(true)
		delete(buffers, o)
	}
}

// bsend copies the message into the buffer comm's sends go through and
// starts sending it.
func bsend(call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return bsendOn(call, o, b, count, dt, dest, tag, comm)
}

// bsendOn is bsend of a buffer and datatype already resolved (a
// persistent request's, which outlive a freed datatype).
func bsendOn(call string, o *commObj, b []byte, count C.int, dt compat.Datatype, dest, tag C.int, comm C.uintptr_t) C.int {
	if dest == C.MPI_PROC_NULL {
		return C.MPI_SUCCESS
	}
	at := bufferFor(o)
	if at == nil {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "no buffer is attached (MPI_Buffer_attach)")
	}
	if err := at.reclaim(false); err != nil {
		return fail(comm, call, err)
	}
	need := int(count)*dt.Size() + C.MPI_BSEND_OVERHEAD
	if at.size >= 0 && at.used+need > at.size {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "%d bytes more in an attached buffer of %d with %d in use", need, at.size, at.used)
	}
	cp, err := snapshot(b)
	if err != nil {
		return fail(comm, call, err)
	}
	r, err := compat.Isend(o.c, cp, int(count), dt, rankIn(dest), int(tag))
	if err != nil {
		return fail(comm, call, err)
	}
	at.used += need
	at.pending = append(at.pending, bsendMsg{r: r, bytes: need})
	return C.MPI_SUCCESS
}

// doneRequest is a request that is complete already: a buffered send's,
// whose buffer may be reused as soon as it is copied.
func doneRequest() (*compat.Request, error) {
	r, err := env.e.GrequestStart(nil)
	if err == nil {
		err = r.GrequestComplete()
	}
	return r, err
}

//export abigo_Bsend
func abigo_Bsend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t) C.int {
	return bsend("MPI_Bsend", buf, count, dtype, dest, tag, comm)
}

//export abigo_Ibsend
func abigo_Ibsend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ibsend"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	if rc := bsend(call, buf, count, dtype, dest, tag, comm); rc != C.MPI_SUCCESS {
		return rc
	}
	r, err := doneRequest()
	if err != nil {
		return fail(comm, call, err)
	}
	*req = newRequest(r, comm, nil)
	return C.MPI_SUCCESS
}

//export abigo_Bsend_init
func abigo_Bsend_init(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Bsend_init"
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
	*req = newRequest(nil, comm, func() (*compat.Request, C.int) {
		o, rc := commOf(comm, "MPI_Start")
		if o == nil {
			return nil, rc
		}
		if rc := bsendOn("MPI_Start", o, b, count, dt, dest, tag, comm); rc != C.MPI_SUCCESS {
			return nil, rc
		}
		r, err := doneRequest()
		if err != nil {
			return nil, fail(comm, "MPI_Start", err)
		}
		return r, C.MPI_SUCCESS
	})
	return C.MPI_SUCCESS
}
