package main

/*
#include "abi.h"
*/
import "C"

import (
	"sync"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
	"github.com/gshmem/gshmem/windows"
)

// Window attributes with user keyvals (MPI_Win_create_keyval, ...), and
// what a window keeps of its communicator. The predefined attributes
// (MPI_WIN_BASE, ...) are answered in win.go, which hands the other keys
// here; attributes are deleted, the newest first, when the window is freed.

// winExtra is what this file keeps per window: its attributes and the
// private duplicate of the communicator it was made over, so that freeing
// that communicator leaves the window working (MPI_Comm_free only marks a
// communicator for deallocation, MPI-4.1 §7.4.3).
type winExtra struct {
	attrs attrSet
	comm  *compat.Comm
}

var winExtras = struct {
	sync.Mutex
	m map[*windows.Win]*winExtra
}{m: map[*windows.Win]*winExtra{}}

func extraOf(w *windows.Win) *winExtra {
	winExtras.Lock()
	defer winExtras.Unlock()
	x := winExtras.m[w]
	if x == nil {
		x = &winExtra{}
		winExtras.m[w] = x
	}
	return x
}

// winOver makes a window with make over a private duplicate of c.
func winOver(c *compat.Comm, make func(*compat.Comm) (*windows.Win, error)) (*windows.Win, error) {
	if c.IsInter() {
		return nil, mpierr.Errorf(compat.ClassComm, "a window over an intercommunicator")
	}
	d, err := c.Dup()
	if err != nil {
		return nil, err
	}
	w, err := make(d)
	if err != nil {
		d.Free()
		return nil, err
	}
	extraOf(w).comm = d
	return w, nil
}

// winFreed deletes the attributes of the window w (handle h) just freed
// and frees its communicator.
func winFreed(h C.uintptr_t, w *windows.Win) C.int {
	x := extraOf(w)
	winExtras.Lock()
	delete(winExtras.m, w)
	winExtras.Unlock()
	if rc := deleteAll(h, &x.attrs); rc != C.MPI_SUCCESS {
		return raise(C.ABI_KIND_WIN, uintptr(h), rc, "MPI_Win_free", nil)
	}
	if x.comm != nil {
		if err := x.comm.Free(); err != nil {
			return winFail(h, "MPI_Win_free", err)
		}
	}
	return C.MPI_SUCCESS
}

//export abigo_Win_create_keyval
func abigo_Win_create_keyval(copyFn, deleteFn C.uintptr_t, key *C.int, extra C.uintptr_t) C.int {
	return createKeyval("MPI_Win_create_keyval", C.ABI_KIND_WIN, copyFn, deleteFn, key, extra)
}

//export abigo_Win_free_keyval
func abigo_Win_free_keyval(key *C.int) C.int {
	return freeKeyval("MPI_Win_free_keyval", C.ABI_KIND_WIN, key)
}

//export abigo_Win_set_attr
func abigo_Win_set_attr(win C.uintptr_t, key C.int, val C.uintptr_t) C.int {
	const call = "MPI_Win_set_attr"
	o, rc := winOf(win, call)
	if o == nil {
		return rc
	}
	if _, ok := keyvalFor(key, C.ABI_KIND_WIN); !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_KEYVAL, call, nil)
	}
	a := &extraOf(o.w).attrs
	if old, ok := a.get(int(key)); ok {
		if rc := deleteAttr(win, int(key), old); rc != C.MPI_SUCCESS {
			return raise(C.ABI_KIND_WIN, uintptr(win), rc, call, nil)
		}
	}
	a.set(int(key), uintptr(val))
	return C.MPI_SUCCESS
}

// winUserAttr is MPI_Win_get_attr for a key that is not predefined.
func winUserAttr(win C.uintptr_t, o *winObj, key C.int, val C.uintptr_t, flag *C.int) C.int {
	if _, ok := keyvalFor(key, C.ABI_KIND_WIN); !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_KEYVAL, "MPI_Win_get_attr", nil)
	}
	v, ok := extraOf(o.w).attrs.get(int(key))
	*flag = 0
	if ok {
		*(*uintptr)(cptr(val)) = v
		*flag = 1
	}
	return C.MPI_SUCCESS
}

//export abigo_Win_delete_attr
func abigo_Win_delete_attr(win C.uintptr_t, key C.int) C.int {
	const call = "MPI_Win_delete_attr"
	o, rc := winOf(win, call)
	if o == nil {
		return rc
	}
	if _, ok := keyvalFor(key, C.ABI_KIND_WIN); !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_KEYVAL, call, nil)
	}
	a := &extraOf(o.w).attrs
	v, ok := a.get(int(key))
	if !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_KEYVAL, call, nil)
	}
	if rc := deleteAttr(win, int(key), v); rc != C.MPI_SUCCESS {
		return raise(C.ABI_KIND_WIN, uintptr(win), rc, call, nil)
	}
	a.del(int(key))
	return C.MPI_SUCCESS
}
