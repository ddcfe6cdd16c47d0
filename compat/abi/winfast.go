package main

/*
#include <stdlib.h>
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/windows"
)

// What rma.c's hot paths read about a window: each rank's mapped memory
// and lock words (abi_target), and windows' own epoch state, which the
// window keeps in the same C block once bound (windows.Win.Bind), so that
// the C paths and these Go exports see each other's changes.

// publishFast fills the window's abi_win for rma.c. A window it cannot
// bind keeps fast at 0: every call then comes to Go, as before.
func publishFast(o *winObj) {
	w := o.w
	n := w.Comm().Size()
	tsz := C.sizeof_abi_target * uintptr(n)
	block := C.calloc(1, C.size_t(tsz+uintptr(windows.BindSize(n))+8))
	if block == nil {
		return
	}
	epoch := unsafe.Add(block, tsz)
	if err := w.Bind(unsafe.Slice((*byte)(epoch), windows.BindSize(n))); err != nil {
		C.free(block)
		return
	}
	o.hot = block
	ts := unsafe.Slice((*targetState)(block), n)
	all := true
	for r := range ts {
		t, ok := w.Target(r)
		if !ok {
			all = false
			continue
		}
		ts[r] = targetState{Data: uintptr(t.Data), Size: int64(t.Size), Unit: int64(t.Unit),
			Lock: uintptr(t.Lock), Bell: uintptr(t.Bell), Mapped: 1, Table: uintptr(t.Table)}
	}
	fast := int64(C.ABI_WIN_FAST_RMA)
	if !w.NoLocks() {
		fast |= C.ABI_WIN_FAST_LOCK
	}
	if all {
		fast |= C.ABI_WIN_FAST_ALLMAPPED
	}
	o.ws.N, o.ws.Me = int32(n), int32(w.Comm().Rank())
	o.ws.Epoch, o.ws.Targets = uintptr(epoch), uintptr(block)
	o.ws.Fast = fast
}

// unpublishFast turns the hot paths off after a successful MPI_Win_free
// (windows has moved its epoch state back to Go memory) and frees the
// block.
func unpublishFast(o *winObj) {
	o.ws.Fast, o.ws.Epoch, o.ws.Targets = 0, 0, 0
	if o.hot != nil {
		C.free(o.hot)
		o.hot = nil
	}
}

// abiint_win_await_shared finishes a shared lock rma.c began on rank: its
// increment of the reader ins found a writer (seen), so it waits as
// windows' Lock does. MPI_SUCCESS when the lock is held.
//
//export abiint_win_await_shared
func abiint_win_await_shared(win C.uintptr_t, rank C.int, seen C.uint32_t) C.int {
	return winCall(win, "MPI_Win_lock", func(w *windows.Win) error { return w.AwaitShared(int(rank), uint32(seen)) })
}
