package main

/*
#include "abi.h"
*/
import "C"

import "sync"

// Datatype attributes (MPI_Type_create_keyval, MPI_Type_set_attr, ...):
// the communicators' keyval machinery (attr.go), with values kept per
// datatype handle; a predefined datatype's are kept here, since its handle
// has no object of its own. MPI_Type_dup copies them through the keyvals'
// copy functions, MPI_Type_free hands them to the delete functions.

var predefAttrs = struct {
	sync.Mutex
	m map[uintptr]map[int]uintptr
}{m: map[uintptr]map[int]uintptr{}}

// typeAttrs returns the attribute map of datatype h (created if make).
func typeAttrs(h C.uintptr_t, make bool) (map[int]uintptr, bool) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_DATATYPE)
	if !ok {
		return nil, false
	}
	if t, ok := o.val.(*typeObj); ok {
		if t.attrs == nil && make {
			t.attrs = map[int]uintptr{}
		}
		return t.attrs, true
	}
	predefAttrs.Lock()
	defer predefAttrs.Unlock()
	m := predefAttrs.m[uintptr(h)]
	if m == nil && make {
		m = map[int]uintptr{}
		predefAttrs.m[uintptr(h)] = m
	}
	return m, true
}

//export abigo_Type_create_keyval
func abigo_Type_create_keyval(copyFn, deleteFn C.uintptr_t, key *C.int, extra C.uintptr_t) C.int {
	if key == nil {
		return failCode(0, "MPI_Type_create_keyval", C.MPI_ERR_ARG, "type_keyval is NULL")
	}
	return abigo_Comm_create_keyval(copyFn, deleteFn, key, extra)
}

//export abigo_Type_free_keyval
func abigo_Type_free_keyval(key *C.int) C.int {
	if key == nil {
		return failCode(0, "MPI_Type_free_keyval", C.MPI_ERR_ARG, "type_keyval is NULL")
	}
	if _, ok := keyvalOf(*key); !ok {
		return failCode(0, "MPI_Type_free_keyval", C.MPI_ERR_KEYVAL, "keyval %d", int(*key))
	}
	*key = C.MPI_KEYVAL_INVALID
	return C.MPI_SUCCESS
}

func typeDeleteAttr(h C.uintptr_t, key int, val uintptr) C.int {
	kv, ok := keyvalOf(C.int(key))
	if !ok || kv.deleteFn == 0 {
		return C.MPI_SUCCESS
	}
	return C.abi_call_delete_attr(C.uintptr_t(kv.deleteFn), h, C.int(key), C.uintptr_t(val), C.uintptr_t(kv.extra))
}

//export abigo_Type_set_attr
func abigo_Type_set_attr(h C.uintptr_t, key C.int, val C.uintptr_t) C.int {
	const call = "MPI_Type_set_attr"
	if _, ok := keyvalOf(key); !ok {
		return failCode(0, call, C.MPI_ERR_KEYVAL, "keyval %d", int(key))
	}
	m, ok := typeAttrs(h, true)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	if old, ok := m[int(key)]; ok {
		if rc := typeDeleteAttr(h, int(key), old); rc != C.MPI_SUCCESS {
			return failCode(0, call, rc, "the delete function of the old value failed")
		}
	}
	m[int(key)] = uintptr(val)
	return C.MPI_SUCCESS
}

//export abigo_Type_get_attr
func abigo_Type_get_attr(h C.uintptr_t, key C.int, val C.uintptr_t, flag *C.int) C.int {
	const call = "MPI_Type_get_attr"
	if val < minAddr || flag == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL argument")
	}
	if _, ok := keyvalOf(key); !ok {
		return failCode(0, call, C.MPI_ERR_KEYVAL, "keyval %d", int(key))
	}
	m, ok := typeAttrs(h, false)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	*flag = 0
	if v, ok := m[int(key)]; ok {
		*(*uintptr)(cptr(val)) = v
		*flag = 1
	}
	return C.MPI_SUCCESS
}

//export abigo_Type_delete_attr
func abigo_Type_delete_attr(h C.uintptr_t, key C.int) C.int {
	const call = "MPI_Type_delete_attr"
	m, ok := typeAttrs(h, false)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid datatype")
	}
	v, ok := m[int(key)]
	if !ok {
		return failCode(0, call, C.MPI_ERR_KEYVAL, "no attribute for keyval %d", int(key))
	}
	if rc := typeDeleteAttr(h, int(key), v); rc != C.MPI_SUCCESS {
		return failCode(0, call, rc, "the delete function failed")
	}
	delete(m, int(key))
	return C.MPI_SUCCESS
}

// copyTypeAttrs gives the duplicate t (handle h) of from the attributes
// its keyvals' copy functions say to copy (MPI_Type_dup).
func copyTypeAttrs(from C.uintptr_t, t *typeObj, h uintptr) C.int {
	m, _ := typeAttrs(from, false)
	for k, v := range m {
		kv, ok := keyvalOf(C.int(k))
		if !ok {
			continue
		}
		var out uintptr
		flag := false
		switch kv.copyFn {
		case 0: // MPI_TYPE_NULL_COPY_FN
		case 1: // MPI_TYPE_DUP_FN
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
			if t.attrs == nil {
				t.attrs = map[int]uintptr{}
			}
			t.attrs[k] = out
		}
	}
	return C.MPI_SUCCESS
}

// freeTypeAttrs runs every attribute's delete function (MPI_Type_free).
func freeTypeAttrs(h C.uintptr_t, t *typeObj) C.int {
	for k, v := range t.attrs {
		if rc := typeDeleteAttr(h, k, v); rc != C.MPI_SUCCESS {
			return rc
		}
		delete(t.attrs, k)
	}
	return C.MPI_SUCCESS
}
