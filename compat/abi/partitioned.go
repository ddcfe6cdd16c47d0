package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// Partitioned communication (MPI_Psend_init, MPI_Precv_init, MPI_Pready*,
// MPI_Parrived) over compat's Prequest: a persistent request that
// MPI_Start, MPI_Startall and the waits and tests drive like any other
// (request.go). MPI_Pready may come from several threads at once (a
// partition each); the one that marks the last partition starts the
// message, through compat's own engine lock.

func pinit(call string, buf C.uintptr_t, parts, count C.int, dtype C.uintptr_t, peer, tag C.int, comm, info C.uintptr_t, req *C.uintptr_t, send bool) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	if _, ok := infoOf(info); !ok {
		return failCode(comm, call, C.MPI_ERR_INFO, "invalid info")
	}
	if parts < 1 || count < 0 || int64(parts)*int64(count) > 1<<31-1 {
		return failCode(comm, call, C.MPI_ERR_COUNT, "%d partitions of %d", int(parts), int(count))
	}
	b, dt, rc := msgBuf(comm, call, buf, parts*count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var p *compat.Prequest
	var err error
	if send {
		p, err = compat.PsendInit(o.c, b, int(parts), int(count), dt, rankIn(peer), int(tag))
	} else {
		p, err = compat.PrecvInit(o.c, b, int(parts), int(count), dt, rankIn(peer), int(tag))
	}
	if err != nil {
		return fail(comm, call, err)
	}
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{part: p, owner: comm, kind: C.ABI_KIND_COMM})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Psend_init
func abigo_Psend_init(buf C.uintptr_t, parts, count C.int, dtype C.uintptr_t, dest, tag C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return pinit("MPI_Psend_init", buf, parts, count, dtype, dest, tag, comm, info, req, true)
}

//export abigo_Precv_init
func abigo_Precv_init(buf C.uintptr_t, parts, count C.int, dtype C.uintptr_t, src, tag C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	return pinit("MPI_Precv_init", buf, parts, count, dtype, src, tag, comm, info, req, false)
}

// partOf is the partitioned request behind h.
func partOf(h C.uintptr_t, call string) (*reqObj, C.int) {
	q, ok := reqOf(h)
	if !ok || q.part == nil {
		return nil, failCode(0, call, C.MPI_ERR_REQUEST, "not a partitioned request")
	}
	return q, C.MPI_SUCCESS
}

func preadyDone(q *reqObj, call string, err error) C.int {
	if err != nil {
		return q.fail(call, err)
	}
	return C.MPI_SUCCESS
}

//export abigo_Pready
func abigo_Pready(part C.int, h C.uintptr_t) C.int {
	q, rc := partOf(h, "MPI_Pready")
	if q == nil {
		return rc
	}
	return preadyDone(q, "MPI_Pready", q.part.Pready(int(part)))
}

//export abigo_Pready_range
func abigo_Pready_range(lo, hi C.int, h C.uintptr_t) C.int {
	q, rc := partOf(h, "MPI_Pready_range")
	if q == nil {
		return rc
	}
	return preadyDone(q, "MPI_Pready_range", q.part.PreadyRange(int(lo), int(hi)))
}

//export abigo_Pready_list
func abigo_Pready_list(n C.int, parts *C.int, h C.uintptr_t) C.int {
	q, rc := partOf(h, "MPI_Pready_list")
	if q == nil {
		return rc
	}
	if n < 0 || (n > 0 && parts == nil) {
		return q.fail("MPI_Pready_list", compat.ErrArg)
	}
	var list []int
	if n > 0 {
		for _, v := range unsafe.Slice(parts, int(n)) {
			list = append(list, int(v))
		}
	}
	return preadyDone(q, "MPI_Pready_list", q.part.PreadyList(list))
}

//export abigo_Parrived
func abigo_Parrived(h C.uintptr_t, part C.int, flag *C.int) C.int {
	q, rc := partOf(h, "MPI_Parrived")
	if q == nil {
		return rc
	}
	if flag == nil {
		return q.fail("MPI_Parrived", compat.ErrArg)
	}
	ok, err := q.part.Parrived(int(part))
	*flag = boolInt(ok)
	return preadyDone(q, "MPI_Parrived", err)
}
