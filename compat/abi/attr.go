package main

/*
#include "abi.h"
*/
import "C"

import "sync"

// Communicator attributes with user keyvals (MPI_Comm_create_keyval,
// MPI_Comm_set_attr, ...), as libraries that cache state on communicators
// use them. The predefined keys (MPI_TAG_UB, ...) are answered in C
// (env.c); a user key's value is kept per communicator, copied by its copy
// function on MPI_Comm_dup and given to its delete function when the
// communicator is freed, the attribute deleted or replaced.

type keyval struct {
	copyFn, deleteFn uintptr // 0 and 1 are the ABI's NULL_COPY_FN and DUP_FN
	extra            uintptr
}

var keyvals = struct {
	sync.Mutex
	next int
	m    map[int]*keyval
}{next: firstKeyval, m: map[int]*keyval{}}

// firstKeyval is above every predefined attribute key.
const firstKeyval = 0x10000

func keyvalOf(k C.int) (*keyval, bool) {
	keyvals.Lock()
	defer keyvals.Unlock()
	kv, ok := keyvals.m[int(k)]
	return kv, ok
}

//export abigo_Comm_create_keyval
func abigo_Comm_create_keyval(copyFn, deleteFn C.uintptr_t, key *C.int, extra C.uintptr_t) C.int {
	if key == nil {
		return failCode(0, "MPI_Comm_create_keyval", C.MPI_ERR_ARG, "comm_keyval is NULL")
	}
	keyvals.Lock()
	k := keyvals.next
	keyvals.next++
	keyvals.m[k] = &keyval{copyFn: uintptr(copyFn), deleteFn: uintptr(deleteFn), extra: uintptr(extra)}
	keyvals.Unlock()
	*key = C.int(k)
	return C.MPI_SUCCESS
}

//export abigo_Comm_free_keyval
func abigo_Comm_free_keyval(key *C.int) C.int {
	if key == nil {
		return failCode(0, "MPI_Comm_free_keyval", C.MPI_ERR_ARG, "comm_keyval is NULL")
	}
	if _, ok := keyvalOf(*key); !ok {
		return failCode(0, "MPI_Comm_free_keyval", C.MPI_ERR_KEYVAL, "keyval %d", int(*key))
	}
	// Attributes already set keep their keyval's functions (MPI's rule):
	// the entry stays for them, only the handle goes.
	*key = C.MPI_KEYVAL_INVALID
	return C.MPI_SUCCESS
}

// deleteAttr runs the delete function of key's value on comm.
func deleteAttr(comm C.uintptr_t, key int, val uintptr) C.int {
	kv, ok := keyvalOf(C.int(key))
	if !ok || kv.deleteFn == 0 {
		return C.MPI_SUCCESS
	}
	return C.abi_call_delete_attr(C.uintptr_t(kv.deleteFn), comm, C.int(key), C.uintptr_t(val), C.uintptr_t(kv.extra))
}

//export abigo_Comm_set_attr
func abigo_Comm_set_attr(comm C.uintptr_t, key C.int, val C.uintptr_t) C.int {
	o, rc := commOf(comm, "MPI_Comm_set_attr")
	if o == nil {
		return rc
	}
	if _, ok := keyvalOf(key); !ok {
		return failCode(comm, "MPI_Comm_set_attr", C.MPI_ERR_KEYVAL, "keyval %d (predefined attributes cannot be set)", int(key))
	}
	if old, ok := o.attrs[int(key)]; ok {
		if rc := deleteAttr(comm, int(key), old); rc != C.MPI_SUCCESS {
			return failCode(comm, "MPI_Comm_set_attr", rc, "the delete function of the old value failed")
		}
	}
	if o.attrs == nil {
		o.attrs = map[int]uintptr{}
	}
	o.attrs[int(key)] = uintptr(val)
	return C.MPI_SUCCESS
}

// abigo_Comm_get_attr answers user keys; env.c answers the predefined ones.
//
//export abigo_Comm_get_attr
func abigo_Comm_get_attr(comm C.uintptr_t, key C.int, val C.uintptr_t, flag *C.int) C.int {
	o, rc := commOf(comm, "MPI_Comm_get_attr")
	if o == nil {
		return rc
	}
	if val < minAddr || flag == nil {
		return failCode(comm, "MPI_Comm_get_attr", C.MPI_ERR_ARG, "NULL argument")
	}
	if _, ok := keyvalOf(key); !ok {
		return failCode(comm, "MPI_Comm_get_attr", C.MPI_ERR_KEYVAL, "keyval %d", int(key))
	}
	v, ok := o.attrs[int(key)]
	*flag = 0
	if ok {
		*(*uintptr)(cptr(val)) = v
		*flag = 1
	}
	return C.MPI_SUCCESS
}

//export abigo_Comm_delete_attr
func abigo_Comm_delete_attr(comm C.uintptr_t, key C.int) C.int {
	o, rc := commOf(comm, "MPI_Comm_delete_attr")
	if o == nil {
		return rc
	}
	v, ok := o.attrs[int(key)]
	if !ok {
		return failCode(comm, "MPI_Comm_delete_attr", C.MPI_ERR_KEYVAL, "no attribute for keyval %d", int(key))
	}
	if rc := deleteAttr(comm, int(key), v); rc != C.MPI_SUCCESS {
		return failCode(comm, "MPI_Comm_delete_attr", rc, "the delete function failed")
	}
	delete(o.attrs, int(key))
	return C.MPI_SUCCESS
}

// copyAttrs gives a duplicate the attributes its keyvals' copy functions
// say to copy (MPI_Comm_dup).
func copyAttrs(from C.uintptr_t, parent, child *commObj) C.int {
	for k, v := range parent.attrs {
		kv, ok := keyvalOf(C.int(k))
		if !ok {
			continue
		}
		var out uintptr
		flag := false
		switch kv.copyFn {
		case 0: // MPI_COMM_NULL_COPY_FN
		case 1: // MPI_COMM_DUP_FN
			out, flag = v, true
		default:
			var o C.uintptr_t
			var f C.int
			if rc := C.abi_call_copy_attr(C.uintptr_t(kv.copyFn), from, C.int(k), C.uintptr_t(kv.extra), C.uintptr_t(v), &o, &f); rc != C.MPI_SUCCESS {
				return rc
			}
			out, flag = uintptr(o), f != 0
		}
		if flag {
			if child.attrs == nil {
				child.attrs = map[int]uintptr{}
			}
			child.attrs[k] = out
		}
	}
	return C.MPI_SUCCESS
}

// deleteAttrs runs every attribute's delete function (MPI_Comm_free).
func deleteAttrs(comm C.uintptr_t, o *commObj) C.int {
	for k, v := range o.attrs {
		if rc := deleteAttr(comm, k, v); rc != C.MPI_SUCCESS {
			return rc
		}
		delete(o.attrs, k)
	}
	return C.MPI_SUCCESS
}

// The MPI-1 names of the same calls.

//export abigo_Keyval_create
func abigo_Keyval_create(copyFn, deleteFn C.uintptr_t, key *C.int, extra C.uintptr_t) C.int {
	return abigo_Comm_create_keyval(copyFn, deleteFn, key, extra)
}

//export abigo_Keyval_free
func abigo_Keyval_free(key *C.int) C.int { return abigo_Comm_free_keyval(key) }

//export abigo_Attr_put
func abigo_Attr_put(comm C.uintptr_t, key C.int, val C.uintptr_t) C.int {
	return abigo_Comm_set_attr(comm, key, val)
}

//export abigo_Attr_delete
func abigo_Attr_delete(comm C.uintptr_t, key C.int) C.int { return abigo_Comm_delete_attr(comm, key) }
