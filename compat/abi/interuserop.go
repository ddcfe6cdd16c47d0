package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpierr"
)

// User ops (MPI_Op_create) in the reductions of an intercommunicator
// (MPI-4.1 6.9: a group's result is the reduction of the other group's
// data). As on an intracommunicator (userop.go) the contributions are
// gathered, over the intercommunicator itself, and folded here in the
// other group's rank order with the user's function: a rooted Reduce
// gathers the other group's at the root; Allreduce and Reduce_scatter
// gather every member's of the other group at each member, which folds
// the part that is its own (all of it, or its block of the vector).

// interUserArgs checks what every one of them checks and returns the
// datatype and this member's contribution of n instances (none when take
// is false).
func interUserArgs(comm C.uintptr_t, call string, sbuf, rbuf C.uintptr_t, n int, dtype C.uintptr_t, take bool) (compat.Datatype, []byte, C.int) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return dt, nil, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if n < 0 {
		return dt, nil, failCode(comm, call, C.MPI_ERR_COUNT, "count %d", n)
	}
	if sbuf == 1 || rbuf == 1 {
		return dt, nil, failCode(comm, call, C.MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator")
	}
	if !take {
		return dt, nil, C.MPI_SUCCESS
	}
	mine, ok, err := contribution(sbuf, dt, n)
	switch {
	case !ok:
		return dt, nil, failCode(comm, call, C.MPI_ERR_BUFFER, "send buffer")
	case err != nil:
		return dt, nil, fail(comm, call, err)
	}
	return dt, mine, C.MPI_SUCCESS
}

// foldInto folds the other group's parts (packed, by its rank) and
// writes count instances of the result at rbuf.
func foldInto(u *userOp, parts [][]byte, rbuf C.uintptr_t, count int, dtype C.uintptr_t, dt compat.Datatype) error {
	if len(parts) == 0 {
		return nil
	}
	ok, err := writeResult(rbuf, dt, count, u.fold(parts, count, dtype, dt))
	if !ok {
		return mpierr.Errorf(mpierr.ClassBuffer, "receive buffer")
	}
	return err
}

// split cuts all into n parts of k bytes, each from off for want bytes.
func split(all []byte, n, k, off, want int) [][]byte {
	parts := make([][]byte, n)
	for i := range parts {
		parts[i] = all[i*k+off : i*k+off+want]
	}
	return parts
}

func interUserReduce(comm C.uintptr_t, call string, req *C.uintptr_t, u *userOp, sbuf, rbuf C.uintptr_t, count C.int, dtype C.uintptr_t, root C.int) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	leaf := root != C.MPI_ROOT && root != C.MPI_PROC_NULL
	dt, mine, rc := interUserArgs(comm, call, sbuf, rbuf, int(count), dtype, leaf)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	bytes := int(count) * dt.Size()
	var all []byte
	if root == C.MPI_ROOT {
		all = make([]byte, o.c.RemoteSize()*bytes)
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		if err := compat.Gather(c, mine, bytes, compat.Byte, all, bytes, compat.Byte, interRoot(root)); err != nil || root != C.MPI_ROOT {
			return err
		}
		return foldInto(u, split(all, c.RemoteSize(), bytes, 0, bytes), rbuf, int(count), dtype, dt)
	})
}

func interUserAllreduce(comm C.uintptr_t, call string, req *C.uintptr_t, u *userOp, sbuf, rbuf C.uintptr_t, count C.int, dtype C.uintptr_t) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	dt, mine, rc := interUserArgs(comm, call, sbuf, rbuf, int(count), dtype, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	bytes := int(count) * dt.Size()
	all := make([]byte, o.c.RemoteSize()*bytes)
	return interRun(comm, call, req, func(c *compat.Comm) error {
		if err := compat.Allgather(c, mine, bytes, compat.Byte, all, bytes, compat.Byte); err != nil {
			return err
		}
		return foldInto(u, split(all, c.RemoteSize(), bytes, 0, bytes), rbuf, int(count), dtype, dt)
	})
}

// interUserReduceScatter: each group's vectors are the sum of its rcounts
// long (the two sums are equal); member j's block is at the sum of the
// counts before its own.
func interUserReduceScatter(comm C.uintptr_t, call string, req *C.uintptr_t, u *userOp, sbuf, rbuf C.uintptr_t, rcounts []int, dtype C.uintptr_t) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if len(rcounts) != o.c.Size() {
		return failCode(comm, call, C.MPI_ERR_COUNT, "%d counts for a local group of %d", len(rcounts), o.c.Size())
	}
	total, before, me := 0, 0, o.c.Rank()
	for i, k := range rcounts {
		if k < 0 {
			return failCode(comm, call, C.MPI_ERR_COUNT, "count %d for rank %d", k, i)
		}
		if i < me {
			before += k
		}
		total += k
	}
	dt, mine, rc := interUserArgs(comm, call, sbuf, rbuf, total, dtype, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	sz := dt.Size()
	all := make([]byte, o.c.RemoteSize()*total*sz)
	return interRun(comm, call, req, func(c *compat.Comm) error {
		if err := compat.Allgather(c, mine, total*sz, compat.Byte, all, total*sz, compat.Byte); err != nil {
			return err
		}
		return foldInto(u, split(all, c.RemoteSize(), total*sz, before*sz, rcounts[me]*sz), rbuf, rcounts[me], dtype, dt)
	})
}
