package main

/*
#include "abi.h"
*/
import "C"

import (
	"slices"
	"sync"
)

// Communicator attributes with user keyvals (MPI_Comm_create_keyval,
// MPI_Comm_set_attr, ...), as libraries that cache state on communicators
// use them. The predefined keys (MPI_TAG_UB, ...) are answered in C
// (env.c); a user key's value is kept per communicator, copied by its copy
// function on MPI_Comm_dup and given to its delete function when the
// communicator is freed, the attribute deleted or replaced.

type keyval struct {
	copyFn, deleteFn uintptr // 0 and 1 are the ABI's NULL_COPY_FN and DUP_FN
	extra            uintptr
	kind             int // the objects it is for: ABI_KIND_COMM or ABI_KIND_WIN
}

// attrSet is an object's attributes in the order they were set, which
// deleting them all (freeing the object, MPI_Finalize on MPI_COMM_SELF)
// runs backwards, as MPI-4.1 §11.2.4 says for MPI_COMM_SELF.
type attrSet struct {
	keys []int
	vals map[int]uintptr
}

func (a *attrSet) get(k int) (uintptr, bool) {
	v, ok := a.vals[k]
	return v, ok
}

// set stores v under k, newest of all.
func (a *attrSet) set(k int, v uintptr) {
	if a.vals == nil {
		a.vals = map[int]uintptr{}
	}
	a.del(k)
	a.vals[k] = v
	a.keys = append(a.keys, k)
}

func (a *attrSet) del(k int) {
	if _, ok := a.vals[k]; !ok {
		return
	}
	delete(a.vals, k)
	a.keys = slices.DeleteFunc(a.keys, func(x int) bool { return x == k })
}

// newestFirst returns the keys, the last set first.
func (a *attrSet) newestFirst() []int {
	ks := slices.Clone(a.keys)
	slices.Reverse(ks)
	return ks
}

// keyvalFor returns keyval k if it was made for objects of kind.
func keyvalFor(k C.int, kind int) (*keyval, bool) {
	kv, ok := keyvalOf(k)
	return kv, ok && kv.kind == kind
}

func createKeyval(call string, kind int, copyFn, deleteFn C.uintptr_t, key *C.int, extra C.uintptr_t) C.int {
	if key == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "keyval is NULL")
	}
	keyvals.Lock()
	k := keyvals.next
	keyvals.next++
	keyvals.m[k] = &keyval{copyFn: uintptr(copyFn), deleteFn: uintptr(deleteFn), extra: uintptr(extra), kind: kind}
	keyvals.Unlock()
	*key = C.int(k)
	return C.MPI_SUCCESS
}

func freeKeyval(call string, kind int, key *C.int) C.int {
	if key == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "keyval is NULL")
	}
	if _, ok := keyvalFor(*key, kind); !ok {
		return failCode(0, call, C.MPI_ERR_KEYVAL, "keyval %d", int(*key))
	}
	// Attributes already set keep their keyval's functions (MPI's rule):
	// the entry stays for them, only the handle goes.
	*key = C.MPI_KEYVAL_INVALID
	return C.MPI_SUCCESS
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
	return createKeyval("MPI_Comm_create_keyval", C.ABI_KIND_COMM, copyFn, deleteFn, key, extra)
}

//export abigo_Comm_free_keyval
func abigo_Comm_free_keyval(key *C.int) C.int {
	return freeKeyval("MPI_Comm_free_keyval", C.ABI_KIND_COMM, key)
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
	if _, ok := keyvalFor(key, C.ABI_KIND_COMM); !ok {
		return failCode(comm, "MPI_Comm_set_attr", C.MPI_ERR_KEYVAL, "keyval %d (predefined attributes cannot be set)", int(key))
	}
	if old, ok := o.attrs.get(int(key)); ok {
		if rc := deleteAttr(comm, int(key), old); rc != C.MPI_SUCCESS {
			return failCode(comm, "MPI_Comm_set_attr", rc, "the delete function of the old value failed")
		}
	}
	o.attrs.set(int(key), uintptr(val))
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
	if _, ok := keyvalFor(key, C.ABI_KIND_COMM); !ok {
		return failCode(comm, "MPI_Comm_get_attr", C.MPI_ERR_KEYVAL, "keyval %d", int(key))
	}
	v, ok := o.attrs.get(int(key))
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
	if _, ok := keyvalFor(key, C.ABI_KIND_COMM); !ok {
		return failCode(comm, "MPI_Comm_delete_attr", C.MPI_ERR_KEYVAL, "keyval %d", int(key))
	}
	v, ok := o.attrs.get(int(key))
	if !ok {
		return failCode(comm, "MPI_Comm_delete_attr", C.MPI_ERR_KEYVAL, "no attribute for keyval %d", int(key))
	}
	if rc := deleteAttr(comm, int(key), v); rc != C.MPI_SUCCESS {
		return failCode(comm, "MPI_Comm_delete_attr", rc, "the delete function failed")
	}
	o.attrs.del(int(key))
	return C.MPI_SUCCESS
}

// copyAttrs gives a duplicate the attributes its keyvals' copy functions
// say to copy (MPI_Comm_dup).
func copyAttrs(from C.uintptr_t, parent, child *commObj) C.int {
	for _, k := range parent.attrs.keys {
		v := parent.attrs.vals[k]
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
			child.attrs.set(k, out)
		}
	}
	return C.MPI_SUCCESS
}

// deleteAttrs runs every attribute's delete function, the newest first
// (MPI_Comm_free, and MPI_Finalize on MPI_COMM_SELF).
func deleteAttrs(comm C.uintptr_t, o *commObj) C.int {
	return deleteAll(comm, &o.attrs)
}

func deleteAll(h C.uintptr_t, a *attrSet) C.int {
	for _, k := range a.newestFirst() {
		v, _ := a.get(k)
		if rc := deleteAttr(h, k, v); rc != C.MPI_SUCCESS {
			return rc
		}
		a.del(k)
	}
	return C.MPI_SUCCESS
}

// deleteSelfAttrs is MPI_Finalize's first step: as if MPI_COMM_SELF were
// freed, its attributes are deleted, the newest first, while all of MPI
// still works (MPI-4.1 §11.2.4), so libraries can hook finalization.
func deleteSelfAttrs() C.int {
	o, ok := lookup(0x102, C.ABI_KIND_COMM)
	if !ok {
		return C.MPI_SUCCESS
	}
	return deleteAttrs(0x102, o.val.(*commObj))
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
