package main

/*
#cgo CFLAGS: -Wall -Wextra -Werror
#include <stdlib.h>
#include <string.h>
#include "abi.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// The handle table: what each C handle stands for on the Go side.
//
// A user handle is the address of a C struct from state.h (abi_obj first,
// then what the kind's C hot paths read), allocated with malloc and never
// given back: a freed handle's struct goes to a free list of its kind with
// its magic cleared, so a stale handle reads as invalid instead of as
// freed memory. Predefined handles (MPI_COMM_WORLD = 0x101, MPI_INT =
// 0x209, ...) are the ABI's constants, looked up in predef; they are all
// below 0x400, under any address malloc returns.

// object is what a handle stands for.
type object struct {
	kind int
	c    unsafe.Pointer // the C struct: *C.abi_obj first; nil for predefined values
	id   int32          // the _toint value
	val  any            // *commObj, *winObj, compat.Datatype, ...
}

// table is initialized in its declaration: other files' init functions
// define predefined handles, and package initialization runs variable
// declarations before any init.
//
// Every call looks up its handles (a communicator, a datatype, an op), so
// lookups take no lock: predefined handles are indexes into predef, user
// handles keys of the concurrent map byAddr. mu orders the writers.
var table = struct {
	mu     sync.Mutex
	predef [predefLimit]atomic.Pointer[object]
	byAddr sync.Map  // uintptr -> *object: live user handles
	byID   []*object // user handles by id - ABI_ID_BASE
	freeID []int32
	spare  map[int][]unsafe.Pointer // freed C structs by kind
}{
	spare: map[int][]unsafe.Pointer{},
}

// predefLimit is above every predefined handle of the ABI.
const predefLimit = 0x400

// cSize is the size of the C struct behind a handle of kind k.
func cSize(k int) C.size_t {
	switch k {
	case C.ABI_KIND_COMM:
		return C.sizeof_abi_comm
	case C.ABI_KIND_WIN:
		return C.sizeof_abi_win
	case C.ABI_KIND_DATATYPE:
		return C.sizeof_abi_dtype
	default:
		return C.sizeof_abi_obj
	}
}

// definePredef makes h (an ABI constant) stand for val. c, when not nil, is
// the C struct the hot paths read for it (MPI_COMM_WORLD's abi_comm).
func definePredef(h uintptr, kind int, val any, c unsafe.Pointer) *object {
	o := &object{kind: kind, c: c, id: int32(h), val: val}
	table.predef[h].Store(o)
	return o
}

// newCState allocates the zeroed C struct of a kind; it is marked live by
// newHandle or by the caller (predefined objects).
func newCState(kind int) unsafe.Pointer {
	table.mu.Lock()
	defer table.mu.Unlock()
	return allocLocked(kind)
}

func allocLocked(kind int) unsafe.Pointer {
	var p unsafe.Pointer
	if s := table.spare[kind]; len(s) > 0 {
		p, table.spare[kind] = s[len(s)-1], s[:len(s)-1]
	} else {
		p = C.malloc(cSize(kind))
		if p == nil {
			panic("libmpi_abi: out of memory for a handle")
		}
	}
	C.memset(p, 0, cSize(kind))
	return p
}

// newHandle makes a user handle of kind for val and returns it and its
// object, whose C struct the caller fills in.
func newHandle(kind int, val any) (uintptr, *object) {
	table.mu.Lock()
	defer table.mu.Unlock()
	p := allocLocked(kind)
	o := &object{kind: kind, c: p, val: val}
	var i int32
	if n := len(table.freeID); n > 0 {
		i, table.freeID = table.freeID[n-1], table.freeID[:n-1]
		table.byID[i] = o
	} else {
		i = int32(len(table.byID))
		table.byID = append(table.byID, o)
	}
	o.id = C.ABI_ID_BASE + i
	*(*objHeader)(p) = objHeader{Magic: C.ABI_MAGIC, Kind: uint32(kind), ID: o.id}
	table.byAddr.Store(uintptr(p), o)
	if kind == C.ABI_KIND_COMM || kind == C.ABI_KIND_WIN {
		C.abi_live_add(C.uintptr_t(uintptr(p))) // the C hot paths may read it now (live.h)
	}
	return uintptr(p), o
}

// lookup returns the live object of kind behind h.
func lookup(h uintptr, kind int) (*object, bool) {
	var o *object
	if h < predefLimit {
		o = table.predef[h].Load()
	} else if v, ok := table.byAddr.Load(h); ok {
		o = v.(*object)
	}
	if o == nil || o.kind != kind {
		return nil, false
	}
	return o, true
}

// release frees user handle h; predefined handles are never released.
func release(h uintptr) {
	table.mu.Lock()
	defer table.mu.Unlock()
	v, ok := table.byAddr.LoadAndDelete(h)
	if !ok {
		return
	}
	o := v.(*object)
	i := o.id - C.ABI_ID_BASE
	table.byID[i] = nil
	table.freeID = append(table.freeID, i)
	C.abi_live_del(C.uintptr_t(h))
	(*objHeader)(o.c).Magic = 0
	table.spare[o.kind] = append(table.spare[o.kind], o.c)
}

// toint is MPI_X_toint: the constant of a predefined handle, the id of a
// user handle, -1 for a handle that is neither.
func toint(h uintptr, kind int) C.int {
	if h < C.ABI_ID_BASE {
		return C.int(h)
	}
	if o, ok := lookup(h, kind); ok {
		return C.int(o.id)
	}
	return -1
}

// fromint is MPI_X_fromint, the inverse of toint; an id that names no live
// handle of kind gives null.
func fromint(i C.int, kind int, null uintptr) C.uintptr_t {
	if i >= 0 && i < C.ABI_ID_BASE {
		return C.uintptr_t(i)
	}
	table.mu.Lock()
	defer table.mu.Unlock()
	j := int(i) - C.ABI_ID_BASE
	if j < 0 || j >= len(table.byID) || table.byID[j] == nil || table.byID[j].kind != kind {
		return C.uintptr_t(null)
	}
	return C.uintptr_t(uintptr(table.byID[j].c))
}

// The handle conversions of the ABI (MPI_Comm_toint, MPI_Comm_fromint, ...).

//export abigo_Comm_toint
func abigo_Comm_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_COMM) }

//export abigo_Comm_fromint
func abigo_Comm_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_COMM, 0x100) }

//export abigo_Group_toint
func abigo_Group_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_GROUP) }

//export abigo_Group_fromint
func abigo_Group_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_GROUP, 0x108) }

//export abigo_Win_toint
func abigo_Win_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_WIN) }

//export abigo_Win_fromint
func abigo_Win_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_WIN, 0x110) }

//export abigo_File_toint
func abigo_File_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_FILE) }

//export abigo_File_fromint
func abigo_File_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_FILE, 0x118) }

//export abigo_Session_toint
func abigo_Session_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_SESSION) }

//export abigo_Session_fromint
func abigo_Session_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_SESSION, 0x120) }

//export abigo_Message_toint
func abigo_Message_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_MESSAGE) }

//export abigo_Message_fromint
func abigo_Message_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_MESSAGE, 0x128) }

//export abigo_Info_toint
func abigo_Info_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_INFO) }

//export abigo_Info_fromint
func abigo_Info_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_INFO, 0x130) }

//export abigo_Errhandler_toint
func abigo_Errhandler_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_ERRHANDLER) }

//export abigo_Errhandler_fromint
func abigo_Errhandler_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_ERRHANDLER, 0x140) }

//export abigo_Request_toint
func abigo_Request_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_REQUEST) }

//export abigo_Request_fromint
func abigo_Request_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_REQUEST, 0x180) }

//export abigo_Type_toint
func abigo_Type_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_DATATYPE) }

//export abigo_Type_fromint
func abigo_Type_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_DATATYPE, 0x200) }

//export abigo_Op_toint
func abigo_Op_toint(h C.uintptr_t) C.int { return toint(uintptr(h), C.ABI_KIND_OP) }

//export abigo_Op_fromint
func abigo_Op_fromint(i C.int) C.uintptr_t { return fromint(i, C.ABI_KIND_OP, 0x20) }
