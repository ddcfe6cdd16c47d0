package main

/*
#include "abi.h"
*/
import "C"

import (
	"slices"
	"sort"
	"sync"

	"github.com/gshmem/gshmem/compat"
)

// Info objects: user handles over compat.Info (a map). MPI_INFO_ENV is
// predefined and empty; MPI_INFO_NULL stands for no info.

func init() { definePredef(0x131, C.ABI_KIND_INFO, compat.Info{}, nil) }

func newInfo(i compat.Info) uintptr {
	h, _ := newHandle(C.ABI_KIND_INFO, i)
	setInfoOrder(h, nil)
	return h
}

// infoOrder keeps the keys of each user info in the order MPI_Info_set
// first stored them, which MPI_Info_get_nthkey numbers by: the standard
// only asks that numbers stay put while the info is unchanged, but codes
// (and MPICH's and Open MPI's infos) expect the order they set. Keys of
// an info the library filled (MPI_Comm_get_info and the like) follow in
// sorted order.
var infoOrder = struct {
	sync.Mutex
	keys map[uintptr][]string
}{keys: map[uintptr][]string{}}

func setInfoOrder(h uintptr, keys []string) {
	infoOrder.Lock()
	defer infoOrder.Unlock()
	if keys == nil {
		delete(infoOrder.keys, h)
		return
	}
	infoOrder.keys[h] = keys
}

// orderedKeys is i's keys as MPI_Info_get_nthkey numbers them.
func orderedKeys(h uintptr, i compat.Info) []string {
	infoOrder.Lock()
	known := infoOrder.keys[h]
	infoOrder.Unlock()
	ks := make([]string, 0, len(i))
	for _, k := range known {
		if _, ok := i[k]; ok {
			ks = append(ks, k)
		}
	}
	if len(ks) == len(i) {
		return ks
	}
	var rest []string
	for k := range i {
		if !slices.Contains(ks, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(ks, rest...)
}

// infoOf returns the info behind h; MPI_INFO_NULL gives an empty one.
func infoOf(h C.uintptr_t) (compat.Info, bool) {
	if h == 0x130 {
		return compat.Info{}, true
	}
	o, ok := lookup(uintptr(h), C.ABI_KIND_INFO)
	if !ok {
		return nil, false
	}
	return o.val.(compat.Info), true
}

func userInfo(h C.uintptr_t, call string) (compat.Info, C.int) {
	if h == 0x130 {
		return nil, failCode(0, call, C.MPI_ERR_INFO, "MPI_INFO_NULL")
	}
	i, ok := infoOf(h)
	if !ok {
		return nil, failCode(0, call, C.MPI_ERR_INFO, "invalid info")
	}
	return i, C.MPI_SUCCESS
}

//export abigo_Info_create
func abigo_Info_create(info *C.uintptr_t) C.int {
	if info == nil {
		return failCode(0, "MPI_Info_create", C.MPI_ERR_ARG, "info is NULL")
	}
	*info = C.uintptr_t(newInfo(compat.Info{}))
	return C.MPI_SUCCESS
}

//export abigo_Info_set
func abigo_Info_set(info C.uintptr_t, key, value *C.char) C.int {
	i, rc := userInfo(info, "MPI_Info_set")
	if i == nil {
		return rc
	}
	if key == nil || value == nil {
		return failCode(0, "MPI_Info_set", C.MPI_ERR_ARG, "key or value is NULL")
	}
	k, v := C.GoString(key), C.GoString(value)
	if len(k) == 0 || len(k) >= C.MPI_MAX_INFO_KEY {
		return failCode(0, "MPI_Info_set", C.MPI_ERR_INFO_KEY, "key of %d bytes", len(k))
	}
	if len(v) == 0 || len(v) >= C.MPI_MAX_INFO_VAL {
		return failCode(0, "MPI_Info_set", C.MPI_ERR_INFO_VALUE, "value of %d bytes", len(v))
	}
	if _, old := i[k]; !old {
		setInfoOrder(uintptr(info), append(orderedKeys(uintptr(info), i), k))
	}
	i[k] = v
	return C.MPI_SUCCESS
}

//export abigo_Info_delete
func abigo_Info_delete(info C.uintptr_t, key *C.char) C.int {
	i, rc := userInfo(info, "MPI_Info_delete")
	if i == nil {
		return rc
	}
	if key == nil {
		return failCode(0, "MPI_Info_delete", C.MPI_ERR_ARG, "key is NULL")
	}
	k := C.GoString(key)
	if _, ok := i[k]; !ok {
		return failCode(0, "MPI_Info_delete", C.MPI_ERR_INFO_NOKEY, "no key %q", k)
	}
	delete(i, k)
	setInfoOrder(uintptr(info), orderedKeys(uintptr(info), i))
	return C.MPI_SUCCESS
}

//export abigo_Info_get_string
func abigo_Info_get_string(info C.uintptr_t, key *C.char, buflen *C.int, value *C.char, flag *C.int) C.int {
	i, rc := userInfo(info, "MPI_Info_get_string") // MPI_INFO_NULL is no info to read
	if i == nil {
		return rc
	}
	if key == nil || buflen == nil || flag == nil {
		return failCode(0, "MPI_Info_get_string", C.MPI_ERR_ARG, "NULL argument")
	}
	v, found := i[C.GoString(key)]
	if !found {
		*flag = 0
		return C.MPI_SUCCESS
	}
	*flag = 1
	if *buflen > 0 && value != nil {
		putString(value, v, int(*buflen))
	}
	*buflen = C.int(len(v) + 1)
	return C.MPI_SUCCESS
}

//export abigo_Info_get_nkeys
func abigo_Info_get_nkeys(info C.uintptr_t, n *C.int) C.int {
	i, ok := infoOf(info)
	if !ok || info == 0x130 || n == nil {
		return failCode(0, "MPI_Info_get_nkeys", C.MPI_ERR_INFO, "invalid info or NULL nkeys")
	}
	*n = C.int(len(i))
	return C.MPI_SUCCESS
}

//export abigo_Info_get_nthkey
func abigo_Info_get_nthkey(info C.uintptr_t, n C.int, key *C.char) C.int {
	i, ok := infoOf(info)
	if !ok || info == 0x130 || key == nil {
		return failCode(0, "MPI_Info_get_nthkey", C.MPI_ERR_INFO, "invalid info or NULL key")
	}
	ks := orderedKeys(uintptr(info), i)
	if n < 0 || int(n) >= len(ks) {
		return failCode(0, "MPI_Info_get_nthkey", C.MPI_ERR_ARG, "key %d of %d", int(n), len(ks))
	}
	putString(key, ks[n], C.MPI_MAX_INFO_KEY)
	return C.MPI_SUCCESS
}

//export abigo_Info_dup
func abigo_Info_dup(info C.uintptr_t, out *C.uintptr_t) C.int {
	i, rc := userInfo(info, "MPI_Info_dup")
	if i == nil {
		return rc
	}
	if out == nil {
		return failCode(0, "MPI_Info_dup", C.MPI_ERR_ARG, "newinfo is NULL")
	}
	d := compat.Info{}
	for k, v := range i {
		d[k] = v
	}
	h := newInfo(d)
	setInfoOrder(h, orderedKeys(uintptr(info), i))
	*out = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Info_free
func abigo_Info_free(info *C.uintptr_t) C.int {
	if info == nil {
		return failCode(0, "MPI_Info_free", C.MPI_ERR_ARG, "info is NULL")
	}
	if _, rc := userInfo(*info, "MPI_Info_free"); rc != C.MPI_SUCCESS {
		return rc
	}
	if *info == 0x131 {
		return failCode(0, "MPI_Info_free", C.MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed")
	}
	release(uintptr(*info))
	setInfoOrder(uintptr(*info), nil)
	*info = 0x130
	return C.MPI_SUCCESS
}

//export abigo_Info_get
func abigo_Info_get(info C.uintptr_t, key *C.char, valuelen C.int, value *C.char, flag *C.int) C.int {
	i, rc := userInfo(info, "MPI_Info_get")
	if i == nil {
		return rc
	}
	if key == nil || value == nil || flag == nil || valuelen < 0 {
		return failCode(0, "MPI_Info_get", C.MPI_ERR_ARG, "NULL argument or negative valuelen")
	}
	v, ok := i[C.GoString(key)]
	*flag = 0
	if ok {
		*flag = 1
		putString(value, v, int(valuelen)+1) // valuelen excludes the NUL
	}
	return C.MPI_SUCCESS
}

//export abigo_Info_get_valuelen
func abigo_Info_get_valuelen(info C.uintptr_t, key *C.char, valuelen, flag *C.int) C.int {
	i, rc := userInfo(info, "MPI_Info_get_valuelen")
	if i == nil {
		return rc
	}
	if key == nil || valuelen == nil || flag == nil {
		return failCode(0, "MPI_Info_get_valuelen", C.MPI_ERR_ARG, "NULL argument")
	}
	v, ok := i[C.GoString(key)]
	*flag = 0
	if ok {
		*flag = 1
		*valuelen = C.int(len(v))
	}
	return C.MPI_SUCCESS
}

// Communicators take no info keys that change anything: MPI_Comm_set_info
// checks the info (hints not taken are ignored, as MPI allows), and
// MPI_Comm_get_info returns what the implementation set
// (mpi_hw_resource_type from MPI_Comm_split_type).

//export abigo_Comm_set_info
func abigo_Comm_set_info(comm, info C.uintptr_t) C.int {
	if o, rc := commOf(comm, "MPI_Comm_set_info"); o == nil {
		return rc
	}
	if _, ok := infoOf(info); !ok {
		return failCode(comm, "MPI_Comm_set_info", C.MPI_ERR_INFO, "invalid info")
	}
	return C.MPI_SUCCESS
}

//export abigo_Comm_get_info
func abigo_Comm_get_info(comm C.uintptr_t, info *C.uintptr_t) C.int {
	o, rc := commOf(comm, "MPI_Comm_get_info")
	if o == nil {
		return rc
	}
	if info == nil {
		return failCode(comm, "MPI_Comm_get_info", C.MPI_ERR_ARG, "info_used is NULL")
	}
	used := compat.Info{}
	for k, v := range o.info {
		used[k] = v
	}
	*info = C.uintptr_t(newInfo(used))
	return C.MPI_SUCCESS
}
