package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
)

// Buffered sends (MPI_Bsend with MPI_Buffer_attach/detach). A buffered
// send completes locally whatever the receiver does: the message is copied
// and sent from the copy. The attached buffer's size is what bounds the
// copies in flight (each takes its bytes plus MPI_BSEND_OVERHEAD, as MPI
// accounts); the copies live in Go memory rather than in the buffer
// itself, which a program cannot tell apart.

var bsend struct {
	addr    C.uintptr_t
	size    int
	used    int
	pending []bsendMsg
}

type bsendMsg struct {
	r     *compat.Request
	bytes int
}

// reclaim frees the space of buffered sends that have completed; with
// wait it waits for all of them (MPI_Buffer_detach).
func reclaim(wait bool) error {
	var first error
	kept := bsend.pending[:0]
	for _, m := range bsend.pending {
		var done bool
		var err error
		if wait {
			_, err = m.r.Wait()
			done = true
		} else {
			done, _, err = m.r.Test()
		}
		if err != nil && first == nil {
			first = err
		}
		if done {
			bsend.used -= m.bytes
		} else {
			kept = append(kept, m)
		}
	}
	bsend.pending = kept
	return first
}

//export abigo_Buffer_attach
func abigo_Buffer_attach(buf C.uintptr_t, size C.int) C.int {
	if bsend.addr != 0 {
		return failCode(0, "MPI_Buffer_attach", C.MPI_ERR_BUFFER, "a buffer is already attached")
	}
	if size < 0 || (size > 0 && buf < minAddr) {
		return failCode(0, "MPI_Buffer_attach", C.MPI_ERR_BUFFER, "buffer %#x of %d bytes", uintptr(buf), int(size))
	}
	bsend.addr, bsend.size = buf, int(size)
	if bsend.addr == 0 {
		bsend.addr = 1 // attached, if empty
	}
	return C.MPI_SUCCESS
}

//export abigo_Buffer_detach
func abigo_Buffer_detach(addr C.uintptr_t, size *C.int) C.int {
	if addr < minAddr || size == nil {
		return failCode(0, "MPI_Buffer_detach", C.MPI_ERR_ARG, "NULL argument")
	}
	if bsend.addr == 0 {
		return failCode(0, "MPI_Buffer_detach", C.MPI_ERR_BUFFER, "no buffer is attached")
	}
	err := reclaim(true)
	a := bsend.addr
	if a == 1 {
		a = 0
	}
	*(*C.uintptr_t)(cptr(addr)) = a
	*size = C.int(bsend.size)
	bsend.addr, bsend.size, bsend.used = 0, 0, 0
	if err != nil {
		return fail(0, "MPI_Buffer_detach", err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Bsend
func abigo_Bsend(buf C.uintptr_t, count C.int, dtype C.uintptr_t, dest, tag C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Bsend"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if err := reclaim(false); err != nil {
		return fail(comm, call, err)
	}
	need := int(count)*dt.Size() + C.MPI_BSEND_OVERHEAD
	if bsend.used+need > bsend.size {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "%d bytes more in an attached buffer of %d with %d in use (MPI_Buffer_attach)", need, bsend.size, bsend.used)
	}
	cp, err := snapshot(b)
	if err != nil {
		return fail(comm, call, err)
	}
	r, err := compat.Isend(o.c, cp, int(count), dt, rankIn(dest), int(tag))
	if err != nil {
		return fail(comm, call, err)
	}
	bsend.used += need
	bsend.pending = append(bsend.pending, bsendMsg{r: r, bytes: need})
	return C.MPI_SUCCESS
}
