package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/windows"
)

// Windows: creation, attributes, synchronization and error handlers, over
// windows.Win. The operations (put, get, accumulate, atomics) are in
// rma.go.
// The hot paths (put, get, accumulate and atomics into a mapped rank,
// flush, shared locks, lock_all) run in rma.c over what winfast.go
// publishes; these Go exports are the path for the rest (unmapped ranks,
// derived datatypes, exclusive locks, fence and PSCW) and for errors.

type winObj struct {
	w    *windows.Win
	ws   *winState      // Errhandler: the MPI_Errhandler attached
	hot  unsafe.Pointer // the C block of rma.c's state (winfast.go), or nil
	name string
}

// winOf returns the window behind h, or raises MPI_ERR_WIN.
func winOf(h C.uintptr_t, call string) (*winObj, C.int) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_WIN)
	if !ok {
		return nil, raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_WIN, call, nil)
	}
	return o.val.(*winObj), C.MPI_SUCCESS
}

// winFail raises err on the window's error handler.
func winFail(h C.uintptr_t, call string, err error) C.int {
	return raise(C.ABI_KIND_WIN, uintptr(h), codeOf(err), call, err)
}

func winDone(h C.uintptr_t, call string, err error) C.int {
	if err != nil {
		return winFail(h, call, err)
	}
	return C.MPI_SUCCESS
}

// newWin publishes a window and its attributes.
func newWin(w *windows.Win, out *C.uintptr_t, base unsafe.Pointer) {
	o := &winObj{w: w}
	h, obj := newHandle(C.ABI_KIND_WIN, o)
	o.ws = (*winState)(obj.c)
	o.ws.Errhandler = 0x141
	o.ws.Base = uintptr(base)
	o.ws.Size = w.Size()
	o.ws.DispUnit = int32(w.DispUnit())
	o.ws.Flavor = map[windows.Flavor]int32{
		windows.FlavorCreate: C.MPI_WIN_FLAVOR_CREATE, windows.FlavorAllocate: C.MPI_WIN_FLAVOR_ALLOCATE,
		windows.FlavorDynamic: C.MPI_WIN_FLAVOR_DYNAMIC, windows.FlavorShared: C.MPI_WIN_FLAVOR_SHARED,
	}[w.Flavor()]
	o.ws.Model = C.MPI_WIN_SEPARATE
	if w.Model() == windows.Unified {
		o.ws.Model = C.MPI_WIN_UNIFIED
	}
	publishFast(o)
	*out = C.uintptr_t(h)
}

func baseOf(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

func allocate(call string, size C.MPI_Aint, unit C.int, info, comm C.uintptr_t, baseptr C.uintptr_t, out *C.uintptr_t, shared bool) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	inf, ok := infoOf(info)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	if out == nil || baseptr < minAddr {
		return failCode(comm, call, C.MPI_ERR_ARG, "NULL baseptr or win")
	}
	var w *windows.Win
	var err error
	if shared {
		w, err = winOver(o.c, func(c *compat.Comm) (*windows.Win, error) {
			return windows.AllocateShared(c, int(size), int(unit), inf)
		})
	} else {
		w, err = winOver(o.c, func(c *compat.Comm) (*windows.Win, error) { return windows.Allocate(c, int(size), int(unit), inf) })
	}
	if err != nil {
		return fail(comm, call, err)
	}
	base := baseOf(w.Base())
	*(*unsafe.Pointer)(cptr(baseptr)) = base
	newWin(w, out, base)
	return C.MPI_SUCCESS
}

//export abigo_Win_allocate
func abigo_Win_allocate(size C.MPI_Aint, unit C.int, info, comm C.uintptr_t, baseptr C.uintptr_t, out *C.uintptr_t) C.int {
	return allocate("MPI_Win_allocate", size, unit, info, comm, baseptr, out, false)
}

//export abigo_Win_allocate_shared
func abigo_Win_allocate_shared(size C.MPI_Aint, unit C.int, info, comm C.uintptr_t, baseptr C.uintptr_t, out *C.uintptr_t) C.int {
	return allocate("MPI_Win_allocate_shared", size, unit, info, comm, baseptr, out, true)
}

//export abigo_Win_create
func abigo_Win_create(base C.uintptr_t, size C.MPI_Aint, unit C.int, info, comm C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Win_create"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	inf, ok := infoOf(info)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "win is NULL")
	}
	if size < 0 {
		return failCode(comm, call, C.MPI_ERR_SIZE, "size %d", int(size))
	}
	b, ok := cbuf(base, int(size))
	if !ok {
		return failCode(comm, call, C.MPI_ERR_ARG, "base %#x for %d bytes", uintptr(base), int(size))
	}
	w, err := winOver(o.c, func(c *compat.Comm) (*windows.Win, error) { return windows.Create(c, b, int(unit), inf) })
	if err != nil {
		return fail(comm, call, err)
	}
	newWin(w, out, cptr(base))
	return C.MPI_SUCCESS
}

//export abigo_Win_create_dynamic
func abigo_Win_create_dynamic(info, comm C.uintptr_t, out *C.uintptr_t) C.int {
	const call = "MPI_Win_create_dynamic"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	inf, ok := infoOf(info)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	if out == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "win is NULL")
	}
	w, err := winOver(o.c, func(c *compat.Comm) (*windows.Win, error) { return windows.CreateDynamic(c, inf) })
	if err != nil {
		return fail(comm, call, err)
	}
	newWin(w, out, nil)
	return C.MPI_SUCCESS
}

//export abigo_Win_attach
func abigo_Win_attach(win C.uintptr_t, base C.uintptr_t, size C.MPI_Aint) C.int {
	o, rc := winOf(win, "MPI_Win_attach")
	if o == nil {
		return rc
	}
	b, ok := cbuf(base, int(size))
	if !ok || size < 0 {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_attach", nil)
	}
	return winDone(win, "MPI_Win_attach", windows.Attach(o.w, b))
}

//export abigo_Win_detach
func abigo_Win_detach(win C.uintptr_t, base C.uintptr_t) C.int {
	o, rc := winOf(win, "MPI_Win_detach")
	if o == nil {
		return rc
	}
	// Detach names the region by its start: one byte says which.
	b, ok := cbuf(base, 1)
	if !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_detach", nil)
	}
	return winDone(win, "MPI_Win_detach", windows.Detach(o.w, b))
}

//export abigo_Win_free
func abigo_Win_free(win *C.uintptr_t) C.int {
	if win == nil {
		return raise(C.ABI_KIND_NONE, 0, C.MPI_ERR_ARG, "MPI_Win_free", nil)
	}
	o, rc := winOf(*win, "MPI_Win_free")
	if o == nil {
		return rc
	}
	if err := o.w.Free(); err != nil {
		return winFail(*win, "MPI_Win_free", err)
	}
	if rc := winFreed(*win, o.w); rc != C.MPI_SUCCESS {
		return rc
	}
	unpublishFast(o)
	release(uintptr(*win))
	*win = 0x110
	return C.MPI_SUCCESS
}

//export abigo_Win_get_group
func abigo_Win_get_group(win C.uintptr_t, group *C.uintptr_t) C.int {
	o, rc := winOf(win, "MPI_Win_get_group")
	if o == nil {
		return rc
	}
	if group == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_get_group", nil)
	}
	g, err := o.w.Group()
	if err != nil {
		return winFail(win, "MPI_Win_get_group", err)
	}
	*group = newGroupHandle(g)
	return C.MPI_SUCCESS
}

//export abigo_Win_shared_query
func abigo_Win_shared_query(win C.uintptr_t, rank C.int, size *C.MPI_Aint, unit *C.int, baseptr C.uintptr_t) C.int {
	const call = "MPI_Win_shared_query"
	o, rc := winOf(win, call)
	if o == nil {
		return rc
	}
	if size == nil || unit == nil || baseptr < minAddr {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, call, nil)
	}
	if o.ws.Flavor != C.MPI_WIN_FLAVOR_SHARED {
		// MPI-4.1 lets any window be queried; memory a process cannot
		// load and store (every window not allocated shared, here) is
		// size 0 at NULL.
		*size, *unit = 0, C.int(o.ws.DispUnit)
		*(*unsafe.Pointer)(cptr(baseptr)) = nil
		return C.MPI_SUCCESS
	}
	mem, sz, u, err := o.w.SharedQuery(rankIn(rank))
	if err != nil {
		return winFail(win, call, err)
	}
	*size, *unit = C.MPI_Aint(sz), C.int(u)
	*(*unsafe.Pointer)(cptr(baseptr)) = baseOf(mem)
	return C.MPI_SUCCESS
}

//export abigo_Win_get_attr
func abigo_Win_get_attr(win C.uintptr_t, key C.int, val C.uintptr_t, flag *C.int) C.int {
	const call = "MPI_Win_get_attr"
	o, rc := winOf(win, call)
	if o == nil {
		return rc
	}
	if flag == nil || val < minAddr {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, call, nil)
	}
	var p unsafe.Pointer
	switch key {
	case C.MPI_WIN_BASE:
		p = cptr(C.uintptr_t(o.ws.Base)) // the base itself, not a pointer to it
	case C.MPI_WIN_SIZE:
		p = unsafe.Pointer(&o.ws.Size)
	case C.MPI_WIN_DISP_UNIT:
		p = unsafe.Pointer(&o.ws.DispUnit)
	case C.MPI_WIN_CREATE_FLAVOR:
		p = unsafe.Pointer(&o.ws.Flavor)
	case C.MPI_WIN_MODEL:
		p = unsafe.Pointer(&o.ws.Model)
	default:
		return winUserAttr(win, o, key, val, flag) // winattr.go
	}
	*(*unsafe.Pointer)(cptr(val)) = p
	*flag = 1
	return C.MPI_SUCCESS
}

// assertIn maps the ABI's MPI_MODE_* bits to windows'; a bit windows does
// not know is kept as an invalid one, so the call reports MPI_ERR_ASSERT.
func assertIn(a C.int) windows.Assert {
	var r windows.Assert
	bits := []struct {
		abi C.int
		w   windows.Assert
	}{
		{C.MPI_MODE_NOCHECK, windows.ModeNoCheck}, {C.MPI_MODE_NOSTORE, windows.ModeNoStore},
		{C.MPI_MODE_NOPUT, windows.ModeNoPut}, {C.MPI_MODE_NOPRECEDE, windows.ModeNoPrecede},
		{C.MPI_MODE_NOSUCCEED, windows.ModeNoSucceed},
	}
	for _, b := range bits {
		if a&b.abi != 0 {
			r |= b.w
			a &^= b.abi
		}
	}
	if a != 0 {
		r |= 0x80
	}
	return r
}

func winCall(win C.uintptr_t, call string, f func(*windows.Win) error) C.int {
	o, rc := winOf(win, call)
	if o == nil {
		return rc
	}
	return winDone(win, call, f(o.w))
}

//export abigo_Win_fence
func abigo_Win_fence(assert C.int, win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_fence", func(w *windows.Win) error { return w.Fence(assertIn(assert)) })
}

func lockType(t C.int) windows.LockType {
	switch t {
	case C.MPI_LOCK_EXCLUSIVE:
		return windows.LockExclusive
	case C.MPI_LOCK_SHARED:
		return windows.LockShared
	}
	return 0 // windows reports MPI_ERR_LOCKTYPE
}

//export abigo_Win_lock
func abigo_Win_lock(typ, rank, assert C.int, win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_lock", func(w *windows.Win) error { return w.Lock(lockType(typ), rankIn(rank), assertIn(assert)) })
}

//export abigo_Win_unlock
func abigo_Win_unlock(rank C.int, win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_unlock", func(w *windows.Win) error { return w.Unlock(rankIn(rank)) })
}

//export abigo_Win_lock_all
func abigo_Win_lock_all(assert C.int, win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_lock_all", func(w *windows.Win) error { return w.LockAll(assertIn(assert)) })
}

//export abigo_Win_unlock_all
func abigo_Win_unlock_all(win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_unlock_all", (*windows.Win).UnlockAll)
}

//export abigo_Win_flush
func abigo_Win_flush(rank C.int, win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_flush", func(w *windows.Win) error { return w.Flush(rankIn(rank)) })
}

//export abigo_Win_flush_local
func abigo_Win_flush_local(rank C.int, win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_flush_local", func(w *windows.Win) error { return w.FlushLocal(rankIn(rank)) })
}

//export abigo_Win_flush_all
func abigo_Win_flush_all(win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_flush_all", (*windows.Win).FlushAll)
}

//export abigo_Win_flush_local_all
func abigo_Win_flush_local_all(win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_flush_local_all", (*windows.Win).FlushLocalAll)
}

//export abigo_Win_sync
func abigo_Win_sync(win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_sync", (*windows.Win).Sync)
}

func pscwGroup(win C.uintptr_t, group C.uintptr_t, call string) (*compat.Group, C.int) {
	g, ok := groupOf(group)
	if !ok {
		return nil, raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_GROUP, call, nil)
	}
	return g, C.MPI_SUCCESS
}

//export abigo_Win_post
func abigo_Win_post(group C.uintptr_t, assert C.int, win C.uintptr_t) C.int {
	g, rc := pscwGroup(win, group, "MPI_Win_post")
	if g == nil {
		return rc
	}
	return winCall(win, "MPI_Win_post", func(w *windows.Win) error { return w.Post(g, assertIn(assert)) })
}

//export abigo_Win_start
func abigo_Win_start(group C.uintptr_t, assert C.int, win C.uintptr_t) C.int {
	g, rc := pscwGroup(win, group, "MPI_Win_start")
	if g == nil {
		return rc
	}
	return winCall(win, "MPI_Win_start", func(w *windows.Win) error { return w.Start(g, assertIn(assert)) })
}

//export abigo_Win_complete
func abigo_Win_complete(win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_complete", (*windows.Win).Complete)
}

//export abigo_Win_wait
func abigo_Win_wait(win C.uintptr_t) C.int {
	return winCall(win, "MPI_Win_wait", (*windows.Win).Wait)
}

//export abigo_Win_test
func abigo_Win_test(win C.uintptr_t, flag *C.int) C.int {
	o, rc := winOf(win, "MPI_Win_test")
	if o == nil {
		return rc
	}
	if flag == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_test", nil)
	}
	ok, err := o.w.Test()
	*flag = 0
	if ok {
		*flag = 1
	}
	return winDone(win, "MPI_Win_test", err)
}

//export abigo_Win_set_errhandler
func abigo_Win_set_errhandler(win C.uintptr_t, eh C.uintptr_t) C.int {
	o, rc := winOf(win, "MPI_Win_set_errhandler")
	if o == nil {
		return rc
	}
	if !validHandler(uintptr(eh), C.ABI_KIND_WIN) {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_set_errhandler", nil)
	}
	o.ws.Errhandler = uintptr(eh)
	return C.MPI_SUCCESS
}

//export abigo_Win_get_errhandler
func abigo_Win_get_errhandler(win C.uintptr_t, eh *C.uintptr_t) C.int {
	o, rc := winOf(win, "MPI_Win_get_errhandler")
	if o == nil {
		return rc
	}
	if eh == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_get_errhandler", nil)
	}
	*eh = C.uintptr_t(o.ws.Errhandler)
	return C.MPI_SUCCESS
}

//export abigo_Win_call_errhandler
func abigo_Win_call_errhandler(win C.uintptr_t, code C.int) C.int {
	if o, rc := winOf(win, "MPI_Win_call_errhandler"); o == nil {
		return rc
	}
	raise(C.ABI_KIND_WIN, uintptr(win), code, "MPI_Win_call_errhandler", nil)
	return C.MPI_SUCCESS
}

//export abigo_Win_set_name
func abigo_Win_set_name(win C.uintptr_t, name *C.char) C.int {
	o, rc := winOf(win, "MPI_Win_set_name")
	if o == nil {
		return rc
	}
	if name == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_set_name", nil)
	}
	o.name = C.GoString(name)
	if len(o.name) >= C.MPI_MAX_OBJECT_NAME {
		o.name = o.name[:C.MPI_MAX_OBJECT_NAME-1]
	}
	return C.MPI_SUCCESS
}

//export abigo_Win_get_name
func abigo_Win_get_name(win C.uintptr_t, name *C.char, n *C.int) C.int {
	if win == 0x110 && name != nil && n != nil {
		*n = putString(name, "MPI_WIN_NULL", C.MPI_MAX_OBJECT_NAME) // a predefined handle's name
		return C.MPI_SUCCESS
	}
	o, rc := winOf(win, "MPI_Win_get_name")
	if o == nil {
		return rc
	}
	if name == nil || n == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_get_name", nil)
	}
	*n = putString(name, o.name, C.MPI_MAX_OBJECT_NAME)
	return C.MPI_SUCCESS
}

//export abigo_Win_get_info
func abigo_Win_get_info(win C.uintptr_t, info *C.uintptr_t) C.int {
	o, rc := winOf(win, "MPI_Win_get_info")
	if o == nil {
		return rc
	}
	if info == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Win_get_info", nil)
	}
	*info = C.uintptr_t(newInfo(o.w.Info()))
	return C.MPI_SUCCESS
}

//export abigo_Win_set_info
func abigo_Win_set_info(win, info C.uintptr_t) C.int {
	o, rc := winOf(win, "MPI_Win_set_info")
	if o == nil {
		return rc
	}
	i, ok := infoOf(info)
	if !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_INFO, "MPI_Win_set_info", nil)
	}
	return winDone(win, "MPI_Win_set_info", o.w.SetInfo(i))
}
