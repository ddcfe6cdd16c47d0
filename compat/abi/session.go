package main

/*
#include "abi.h"
*/
import "C"

import (
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gshmem/gshmem/compat"
)

// Sessions (MPI-4.1 §11.3): MPI_Session_init brings the process's
// compat.Env up if MPI_Init has not (MPI_Initialized stays false in a
// session-only program), and the last MPI_Session_finalize, after
// MPI_Finalize or without MPI_Init, ends it. A session offers two process
// sets, mpi://WORLD and mpi://SELF; their groups make communicators through
// MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups.

// envLive says the Env is up, through MPI_Init or a session.
var envLive atomic.Bool

var sessionCount atomic.Int32

func sessionsOpen() bool { return sessionCount.Load() > 0 }

// sessionObj is a session: its error handler and the thread level asked.
type sessionObj struct {
	errh  uintptr
	level C.int
}

// groupSession is the session each process set's group came from
// (MPI_Group_from_session_pset): a communicator made from the group
// belongs to that session and uses its buffer for buffered sends.
var groupSession = map[*compat.Group]*sessionObj{}

var psets = []string{"mpi://WORLD", "mpi://SELF"}

func sessionOf(h C.uintptr_t, call string) (*sessionObj, C.int) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_SESSION)
	if !ok {
		return nil, raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_SESSION, call, nil)
	}
	return o.val.(*sessionObj), C.MPI_SUCCESS
}

// sessionFail raises code on session h.
func sessionFail(h C.uintptr_t, call string, code C.int) C.int {
	return raise(C.ABI_KIND_SESSION, uintptr(h), code, call, nil)
}

var threadLevels = map[string]C.int{
	"MPI_THREAD_SINGLE": C.MPI_THREAD_SINGLE, "MPI_THREAD_FUNNELED": C.MPI_THREAD_FUNNELED,
	"MPI_THREAD_SERIALIZED": C.MPI_THREAD_SERIALIZED, "MPI_THREAD_MULTIPLE": C.MPI_THREAD_MULTIPLE,
}

func levelName(l C.int) string {
	for k, v := range threadLevels {
		if v == l {
			return k
		}
	}
	return "MPI_THREAD_SINGLE"
}

//export abigo_Session_init
func abigo_Session_init(info, eh C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Session_init"
	hints, ok := infoOf(info)
	if !ok {
		return raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_INFO, call, nil)
	}
	if out == nil || (eh != 0x140 && !validHandler(uintptr(eh), C.ABI_KIND_SESSION)) {
		return raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_ARG, call, nil)
	}
	level := C.int(C.MPI_THREAD_SINGLE)
	if v, ok := hints["thread_level"]; ok {
		if level, ok = threadLevels[strings.TrimSpace(v)]; !ok {
			level = C.MPI_THREAD_SINGLE // a hint: a value not taken is ignored
		}
	}
	level = min(level, providedLevel)
	env.mu.Lock()
	var code C.int
	var err error
	if env.e == nil {
		if env.finalized {
			env.mu.Unlock()
			return raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_OTHER, call, nil) // the job's Env ended and cannot start again
		}
		code, err = bringUpLocked(level)
	}
	env.mu.Unlock()
	if err != nil {
		return raise(C.ABI_KIND_NONE, 0, code, call, err)
	}
	if eh == 0x140 {
		eh = 0x141 // MPI_ERRORS_ARE_FATAL
	}
	sessionCount.Add(1)
	h, _ := newHandle(C.ABI_KIND_SESSION, &sessionObj{errh: uintptr(eh), level: level})
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Session_finalize
func abigo_Session_finalize(session *C.uintptr_t) C.int {
	const call = "MPI_Session_finalize"
	if session == nil {
		return raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_ARG, call, nil)
	}
	so, rc := sessionOf(*session, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	dropSessionBuffer(so)
	for g, s := range groupSession {
		if s == so {
			delete(groupSession, g)
		}
	}
	release(uintptr(*session))
	*session = 0x120 // MPI_SESSION_NULL
	if sessionCount.Add(-1) == 0 && (global.Initialized == 0 || global.Finalized != 0) {
		env.mu.Lock()
		e := env.e
		env.mu.Unlock()
		if e != nil {
			if err := tearDown(e); err != nil {
				return raise(C.ABI_KIND_NONE, 0, codeOf(err), call, err)
			}
		}
	}
	return C.MPI_SUCCESS
}

//export abigo_Session_get_num_psets
func abigo_Session_get_num_psets(session, info C.uintptr_t, n *C.int) C.int {
	const call = "MPI_Session_get_num_psets"
	if _, rc := sessionOf(session, call); rc != C.MPI_SUCCESS {
		return rc
	}
	if _, ok := infoOf(info); !ok {
		return sessionFail(session, call, C.MPI_ERR_INFO)
	}
	if n == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	*n = C.int(len(psets))
	return C.MPI_SUCCESS
}

//export abigo_Session_get_nth_pset
func abigo_Session_get_nth_pset(session, info C.uintptr_t, n C.int, plen *C.int, name *C.char) C.int {
	const call = "MPI_Session_get_nth_pset"
	if _, rc := sessionOf(session, call); rc != C.MPI_SUCCESS {
		return rc
	}
	if _, ok := infoOf(info); !ok {
		return sessionFail(session, call, C.MPI_ERR_INFO)
	}
	if plen == nil || n < 0 || int(n) >= len(psets) || *plen < 0 {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	s := psets[n]
	// pset_len 0 asks for the length (with the terminating NUL); otherwise
	// up to pset_len-1 characters are written, then a NUL.
	if *plen > 0 {
		if name == nil {
			return sessionFail(session, call, C.MPI_ERR_ARG)
		}
		putString(name, s, int(*plen))
	}
	*plen = C.int(len(s) + 1)
	return C.MPI_SUCCESS
}

// psetGroup is the group of the process set name, or nil.
func psetGroup(name string) *compat.Group {
	var c *compat.Comm
	switch strings.ToLower(name) {
	case "mpi://world":
		c = env.e.CommWorld()
	case "mpi://self":
		c = env.e.CommSelf()
	default:
		return nil
	}
	g, _ := c.Group()
	return g
}

//export abigo_Session_get_pset_info
func abigo_Session_get_pset_info(session C.uintptr_t, name *C.char, info *C.uintptr_t) C.int {
	const call = "MPI_Session_get_pset_info"
	if _, rc := sessionOf(session, call); rc != C.MPI_SUCCESS {
		return rc
	}
	if name == nil || info == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	g := psetGroup(C.GoString(name))
	if g == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	*info = C.uintptr_t(newInfo(compat.Info{"mpi_size": strconv.Itoa(g.Size())}))
	return C.MPI_SUCCESS
}

//export abigo_Session_get_info
func abigo_Session_get_info(session C.uintptr_t, info *C.uintptr_t) C.int {
	const call = "MPI_Session_get_info"
	o, rc := sessionOf(session, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if info == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	*info = C.uintptr_t(newInfo(compat.Info{"thread_level": levelName(o.level)}))
	return C.MPI_SUCCESS
}

//export abigo_Group_from_session_pset
func abigo_Group_from_session_pset(session C.uintptr_t, name *C.char, group *C.uintptr_t) C.int {
	const call = "MPI_Group_from_session_pset"
	so, rc := sessionOf(session, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if name == nil || group == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	g := psetGroup(C.GoString(name))
	if g == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	*group = newGroupHandle(g)
	groupSession[g] = so
	return C.MPI_SUCCESS
}

//export abigo_Session_create_errhandler
func abigo_Session_create_errhandler(fn C.uintptr_t, eh *C.uintptr_t) C.int {
	return newErrhandler(fn, eh, C.ABI_KIND_SESSION, "MPI_Session_create_errhandler")
}

//export abigo_Session_set_errhandler
func abigo_Session_set_errhandler(session, eh C.uintptr_t) C.int {
	const call = "MPI_Session_set_errhandler"
	o, rc := sessionOf(session, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if !validHandler(uintptr(eh), C.ABI_KIND_SESSION) {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	o.errh = uintptr(eh)
	return C.MPI_SUCCESS
}

//export abigo_Session_get_errhandler
func abigo_Session_get_errhandler(session C.uintptr_t, eh *C.uintptr_t) C.int {
	const call = "MPI_Session_get_errhandler"
	o, rc := sessionOf(session, call)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if eh == nil {
		return sessionFail(session, call, C.MPI_ERR_ARG)
	}
	*eh = C.uintptr_t(o.errh)
	return C.MPI_SUCCESS
}

//export abigo_Session_call_errhandler
func abigo_Session_call_errhandler(session C.uintptr_t, code C.int) C.int {
	const call = "MPI_Session_call_errhandler"
	if _, rc := sessionOf(session, call); rc != C.MPI_SUCCESS {
		return rc
	}
	raise(C.ABI_KIND_SESSION, uintptr(session), code, call, nil)
	return C.MPI_SUCCESS
}
