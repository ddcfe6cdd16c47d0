package main

/*
#include "abi.h"
*/
import "C"

import (
	"sync/atomic"

	"github.com/gshmem/gshmem/compat"
)

// MPI_T performance variables: this process's messages and bytes sent and
// received (point-to-point and the messages collectives are made of, by
// the Go engine and the C fast paths together), its RMA operations (put,
// get, the accumulates, fetch-and-op, compare-and-swap, their request
// forms), the time its engine's waits spent idle, and the levels of its
// unexpected-message and posted-receive queues. Counts start at MPI_Init;
// before it they read 0.
//
// The counters and the timer are per handle, as MPI-4.1 15.3.7 has them: a
// handle starts stopped at 0, counts while started, and may be reset or
// written; the levels are continuous and read-only. The C fast paths count
// with plain increments (the library gives MPI_THREAD_SERIALIZED); the
// wait timer times the engine's idle waits (Env.waitFor), not the
// microseconds a C fast receive polls before handing its wait to Go.

// goRMAOps counts the RMA operations the Go paths began (rma.go).
var goRMAOps atomic.Uint64

// pvar is one performance variable; now reads its current value (seconds
// for the timer, in nanoseconds).
type pvar struct {
	name, desc string
	class      int
	datatype   uintptr
	readonly   bool // also continuous: the levels
	now        func(k compat.Counters, fast *[5]C.uint64_t) uint64
}

var pvarList = []pvar{
	{"gshmem_messages_sent", "messages this process sent", C.MPI_T_PVAR_CLASS_COUNTER, tUnsignedLongLong, false,
		func(k compat.Counters, f *[5]C.uint64_t) uint64 { return k.SentMessages + uint64(f[0]) }},
	{"gshmem_bytes_sent", "payload bytes of the messages this process sent", C.MPI_T_PVAR_CLASS_COUNTER, tUnsignedLongLong, false,
		func(k compat.Counters, f *[5]C.uint64_t) uint64 { return k.SentBytes + uint64(f[1]) }},
	{"gshmem_messages_received", "messages this process received (matched)", C.MPI_T_PVAR_CLASS_COUNTER, tUnsignedLongLong, false,
		func(k compat.Counters, f *[5]C.uint64_t) uint64 { return k.RecvMessages + uint64(f[2]) }},
	{"gshmem_bytes_received", "payload bytes of the messages this process received", C.MPI_T_PVAR_CLASS_COUNTER, tUnsignedLongLong, false,
		func(k compat.Counters, f *[5]C.uint64_t) uint64 { return k.RecvBytes + uint64(f[3]) }},
	{"gshmem_rma_operations", "RMA operations this process issued (put, get, accumulates, fetch-and-op, compare-and-swap)", C.MPI_T_PVAR_CLASS_COUNTER, tUnsignedLongLong, false,
		func(k compat.Counters, f *[5]C.uint64_t) uint64 { return goRMAOps.Load() + uint64(f[4]) }},
	{"gshmem_wait_time", "seconds the engine's blocking waits spent idle", C.MPI_T_PVAR_CLASS_TIMER, tDouble, false,
		func(k compat.Counters, f *[5]C.uint64_t) uint64 { return uint64(k.WaitTime) }},
	{"gshmem_unexpected_messages", "messages arrived that no receive matched yet", C.MPI_T_PVAR_CLASS_LEVEL, tUnsignedLongLong, true,
		func(compat.Counters, *[5]C.uint64_t) uint64 { u, _ := engineQueues(); return uint64(u) }},
	{"gshmem_posted_receives", "receives posted that no message matched yet", C.MPI_T_PVAR_CLASS_LEVEL, tUnsignedLongLong, true,
		func(compat.Counters, *[5]C.uint64_t) uint64 { _, p := engineQueues(); return uint64(p) }},
}

// engine returns the process's engine, nil before MPI_Init.
func engine() *compat.Env {
	env.mu.Lock()
	defer env.mu.Unlock()
	return env.e
}

// engineQueues returns the engine's queue lengths, 0 outside MPI_Init to
// MPI_Finalize.
func engineQueues() (int, int) {
	env.mu.Lock()
	e := env.e
	if env.finalized {
		e = nil
	}
	env.mu.Unlock()
	if e == nil {
		return 0, 0
	}
	return e.Unexpected()
}

// pvarNow reads variable i's current value.
func pvarNow(i int) uint64 {
	var k compat.Counters
	if e := engine(); e != nil {
		k = e.Counters()
	}
	var fast [5]C.uint64_t
	C.abi_t_fast_counts(&fast[0])
	return pvarList[i].now(k, &fast)
}

// pvarSession is an MPI_T_pvar_session and its handles.
type pvarSession struct{ handles map[uintptr]*pvarHandle }

// pvarHandle is an MPI_T_pvar_handle: its variable and, for a counter or
// the timer, its own value (acc, plus what the variable did since base
// while started).
type pvarHandle struct {
	index   int
	started bool
	acc     uint64
	base    uint64
}

// The bounds behind MPI_T_ERR_OUT_OF_SESSIONS and MPI_T_ERR_OUT_OF_HANDLES.
const (
	maxPvarSessions = 1 << 10
	maxPvarHandles  = 1 << 12
)

func (h *pvarHandle) value(now uint64) uint64 {
	if pvarList[h.index].readonly {
		return now
	}
	if h.started {
		return h.acc + now - h.base
	}
	return h.acc
}

func (h *pvarHandle) put(buf C.uintptr_t, v uint64) {
	p := cptr(buf)
	if pvarList[h.index].datatype == tDouble {
		*(*C.double)(p) = C.double(float64(v) / 1e9)
		return
	}
	*(*C.ulonglong)(p) = C.ulonglong(v)
}

func (h *pvarHandle) get(buf C.uintptr_t) uint64 {
	p := cptr(buf)
	if pvarList[h.index].datatype == tDouble {
		if d := float64(*(*C.double)(p)); d > 0 {
			return uint64(d * 1e9)
		}
		return 0
	}
	return uint64(*(*C.ulonglong)(p))
}

//export abigo_T_pvar_get_num
func abigo_T_pvar_get_num(num *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if num == nil {
		return C.MPI_T_ERR_INVALID
	}
	*num = C.int(len(pvarList))
	return C.MPI_SUCCESS
}

//export abigo_T_pvar_get_info
func abigo_T_pvar_get_info(index C.int, name *C.char, nameLen *C.int, verbosity *C.int, class *C.int, datatype *C.uintptr_t,
	enumtype *C.uintptr_t, desc *C.char, descLen *C.int, bind *C.int, readonly *C.int, continuous *C.int, atomic *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if index < 0 || int(index) >= len(pvarList) {
		return C.MPI_T_ERR_INVALID_INDEX
	}
	v := pvarList[index]
	tString(name, nameLen, v.name)
	tString(desc, descLen, v.desc)
	setInt(verbosity, C.MPI_T_VERBOSITY_USER_BASIC)
	setInt(class, v.class)
	if datatype != nil {
		*datatype = C.uintptr_t(v.datatype)
	}
	if enumtype != nil {
		*enumtype = 0 // MPI_T_ENUM_NULL
	}
	setInt(bind, C.MPI_T_BIND_NO_OBJECT)
	setInt(readonly, int(boolInt(v.readonly)))
	setInt(continuous, int(boolInt(v.readonly)))
	setInt(atomic, int(boolInt(!v.readonly))) // readreset reads the counter once
	return C.MPI_SUCCESS
}

//export abigo_T_pvar_get_index
func abigo_T_pvar_get_index(name *C.char, class C.int, index *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	s, ok := tName(name)
	if !ok || index == nil {
		return C.MPI_T_ERR_INVALID
	}
	for i, v := range pvarList {
		if v.name == s && v.class == int(class) {
			*index = C.int(i)
			return C.MPI_SUCCESS
		}
	}
	return C.MPI_T_ERR_INVALID_NAME
}

//export abigo_T_pvar_session_create
func abigo_T_pvar_session_create(session *C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if session == nil {
		return C.MPI_T_ERR_INVALID
	}
	if len(tools.sessions) >= maxPvarSessions {
		return C.MPI_T_ERR_OUT_OF_SESSIONS
	}
	id := newToolsID()
	tools.sessions[id] = &pvarSession{handles: map[uintptr]*pvarHandle{}}
	*session = C.uintptr_t(id)
	return C.MPI_SUCCESS
}

//export abigo_T_pvar_session_free
func abigo_T_pvar_session_free(session *C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if session == nil || tools.sessions[uintptr(*session)] == nil {
		return C.MPI_T_ERR_INVALID_SESSION
	}
	delete(tools.sessions, uintptr(*session))
	*session = 0 // MPI_T_PVAR_SESSION_NULL
	return C.MPI_SUCCESS
}

//export abigo_T_pvar_handle_alloc
func abigo_T_pvar_handle_alloc(session C.uintptr_t, index C.int, obj C.uintptr_t, handle *C.uintptr_t, count *C.int) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	s := tools.sessions[uintptr(session)]
	if s == nil {
		return C.MPI_T_ERR_INVALID_SESSION
	}
	if index < 0 || int(index) >= len(pvarList) {
		return C.MPI_T_ERR_INVALID_INDEX
	}
	if handle == nil || count == nil {
		return C.MPI_T_ERR_INVALID
	}
	if len(s.handles) >= maxPvarHandles {
		return C.MPI_T_ERR_OUT_OF_HANDLES
	}
	id := newToolsID()
	s.handles[id] = &pvarHandle{index: int(index)}
	*handle = C.uintptr_t(id)
	*count = 1
	return C.MPI_SUCCESS
}

// pvarArgs finds session and handle, with tools.mu held; all is whether
// MPI_T_PVAR_ALL_HANDLES is accepted.
func pvarArgs(session, handle C.uintptr_t, all bool) (*pvarSession, *pvarHandle, C.int) {
	s := tools.sessions[uintptr(session)]
	if s == nil {
		return nil, nil, C.MPI_T_ERR_INVALID_SESSION
	}
	if handle == 1 && all { // MPI_T_PVAR_ALL_HANDLES
		return s, nil, C.MPI_SUCCESS
	}
	h := s.handles[uintptr(handle)]
	if h == nil {
		return nil, nil, C.MPI_T_ERR_INVALID_HANDLE
	}
	return s, h, C.MPI_SUCCESS
}

//export abigo_T_pvar_handle_free
func abigo_T_pvar_handle_free(session C.uintptr_t, handle *C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	if handle == nil {
		return C.MPI_T_ERR_INVALID_HANDLE
	}
	s, _, rc := pvarArgs(session, *handle, false)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	delete(s.handles, uintptr(*handle))
	*handle = 0 // MPI_T_PVAR_HANDLE_NULL
	return C.MPI_SUCCESS
}

// pvarEach runs f on handle, or on each of the session's handles for
// MPI_T_PVAR_ALL_HANDLES, skipping those skip refuses (which a single
// handle answers with code).
func pvarEach(session, handle C.uintptr_t, code C.int, skip func(*pvarHandle) bool, f func(*pvarHandle, uint64)) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	s, h, rc := pvarArgs(session, handle, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if h != nil {
		if skip(h) {
			return code
		}
		f(h, pvarNow(h.index))
		return C.MPI_SUCCESS
	}
	for _, h := range s.handles {
		if !skip(h) {
			f(h, pvarNow(h.index))
		}
	}
	return C.MPI_SUCCESS
}

func continuous(h *pvarHandle) bool { return pvarList[h.index].readonly }

//export abigo_T_pvar_start
func abigo_T_pvar_start(session, handle C.uintptr_t) C.int {
	return pvarEach(session, handle, C.MPI_T_ERR_PVAR_NO_STARTSTOP, continuous, func(h *pvarHandle, now uint64) {
		if !h.started {
			h.started, h.base = true, now
		}
	})
}

//export abigo_T_pvar_stop
func abigo_T_pvar_stop(session, handle C.uintptr_t) C.int {
	return pvarEach(session, handle, C.MPI_T_ERR_PVAR_NO_STARTSTOP, continuous, func(h *pvarHandle, now uint64) {
		if h.started {
			h.acc, h.started = h.value(now), false
		}
	})
}

//export abigo_T_pvar_reset
func abigo_T_pvar_reset(session, handle C.uintptr_t) C.int {
	return pvarEach(session, handle, C.MPI_T_ERR_PVAR_NO_WRITE, continuous, func(h *pvarHandle, now uint64) {
		h.acc, h.base = 0, now
	})
}

//export abigo_T_pvar_read
func abigo_T_pvar_read(session, handle C.uintptr_t, buf C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	_, h, rc := pvarArgs(session, handle, false)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if buf == 0 {
		return C.MPI_T_ERR_INVALID
	}
	h.put(buf, h.value(pvarNow(h.index)))
	return C.MPI_SUCCESS
}

//export abigo_T_pvar_readreset
func abigo_T_pvar_readreset(session, handle C.uintptr_t, buf C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	_, h, rc := pvarArgs(session, handle, false)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if continuous(h) {
		return C.MPI_T_ERR_PVAR_NO_WRITE
	}
	if buf == 0 {
		return C.MPI_T_ERR_INVALID
	}
	now := pvarNow(h.index)
	h.put(buf, h.value(now))
	h.acc, h.base = 0, now
	return C.MPI_SUCCESS
}

//export abigo_T_pvar_write
func abigo_T_pvar_write(session, handle C.uintptr_t, buf C.uintptr_t) C.int {
	if rc := toolsLock(); rc != C.MPI_SUCCESS {
		return rc
	}
	defer tools.mu.Unlock()
	_, h, rc := pvarArgs(session, handle, false)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if continuous(h) {
		return C.MPI_T_ERR_PVAR_NO_WRITE
	}
	if buf == 0 {
		return C.MPI_T_ERR_INVALID
	}
	h.acc, h.base = h.get(buf), pvarNow(h.index)
	return C.MPI_SUCCESS
}
