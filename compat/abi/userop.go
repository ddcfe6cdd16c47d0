package main

/*
#include <stdlib.h>
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// User reduction ops (MPI_Op_create). compat reduces only with its
// predefined ops, so a reduction with a user op gathers every member's
// contribution and applies the user's function here, in rank order: the
// result is x0 op (x1 op (... op xn-1)), which is MPI's order whether the
// op commutes or not. It costs a gather of count elements per member;
// datatypes must be contiguous (the function sees the elements packed).

type userOp struct {
	fn      uintptr
	commute bool
	large   bool // MPI_Op_create_c: the function takes an MPI_Count length
}

func userOpOf(h C.uintptr_t) (*userOp, bool) {
	o, ok := lookup(uintptr(h), C.ABI_KIND_OP)
	if !ok {
		return nil, false
	}
	u, ok := o.val.(*userOp)
	return u, ok
}

func opCreate(call string, fn C.uintptr_t, commute C.int, op *C.uintptr_t, large bool) C.int {
	if fn == 0 || op == nil {
		return failCode(0, call, C.MPI_ERR_ARG, "NULL function or op")
	}
	h, _ := newHandle(C.ABI_KIND_OP, &userOp{fn: uintptr(fn), commute: commute != 0, large: large})
	*op = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

//export abigo_Op_create
func abigo_Op_create(fn C.uintptr_t, commute C.int, op *C.uintptr_t) C.int {
	return opCreate("MPI_Op_create", fn, commute, op, false)
}

//export abigo_Op_create_c
func abigo_Op_create_c(fn C.uintptr_t, commute C.int, op *C.uintptr_t) C.int {
	return opCreate("MPI_Op_create_c", fn, commute, op, true)
}

//export abigo_Op_free
func abigo_Op_free(op *C.uintptr_t) C.int {
	if op == nil {
		return failCode(0, "MPI_Op_free", C.MPI_ERR_ARG, "op is NULL")
	}
	if _, ok := userOpOf(*op); !ok {
		return failCode(0, "MPI_Op_free", C.MPI_ERR_OP, "not a user op (predefined ops cannot be freed)")
	}
	release(uintptr(*op))
	*op = 0x20
	return C.MPI_SUCCESS
}

//export abigo_Op_commutative
func abigo_Op_commutative(op C.uintptr_t, commute *C.int) C.int {
	if commute == nil {
		return failCode(0, "MPI_Op_commutative", C.MPI_ERR_ARG, "commute is NULL")
	}
	if u, ok := userOpOf(op); ok {
		*commute = 0
		if u.commute {
			*commute = 1
		}
		return C.MPI_SUCCESS
	}
	if _, ok := opOf(op); !ok {
		return failCode(0, "MPI_Op_commutative", C.MPI_ERR_OP, "invalid op")
	}
	*commute = 1 // every predefined op commutes
	return C.MPI_SUCCESS
}

// apply combines in into inout with the user's function.
func (u *userOp) apply(in, inout []byte, count int, dtype C.uintptr_t) {
	if count == 0 {
		return
	}
	if u.large {
		C.abi_call_user_op_c(C.uintptr_t(u.fn), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.MPI_Count(count), dtype)
		return
	}
	C.abi_call_user_op(C.uintptr_t(u.fn), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), C.int(count), dtype)
}

// userReduce runs a reduction with a user op: every member's count
// elements of dtype are gathered (to root, or to all when root < 0) and
// folded in rank order into rbuf at the ranks that get a result. scan
// folds only the members up to this one (exclusive: below it). The user's
// function is C code on the host: device buffers cross over host copies.
func userReduce(comm C.uintptr_t, call string, c *compat.Comm, u *userOp, sbuf, rbuf C.uintptr_t, count C.int, dtype C.uintptr_t, root int, scan, exclusive bool) C.int {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return failCode(comm, call, C.MPI_ERR_COUNT, "count %d", int(count))
	}
	if !mpitype.MapOf(dt).Contiguous() {
		return failCode(comm, call, C.MPI_ERR_UNSUPPORTED_OPERATION, "a user op over a non-contiguous datatype")
	}
	n, me := c.Size(), c.Rank()
	bytes := int(count) * dt.Size()
	var mine []byte
	if sbuf == 1 { // MPI_IN_PLACE: the input is in the receive buffer
		b, ok := cbuf(rbuf+C.uintptr_t(trueLB(dt)), bytes)
		if !ok {
			return failCode(comm, call, C.MPI_ERR_BUFFER, "receive buffer")
		}
		var err error
		if mine, err = snapshot(b); err != nil {
			return fail(comm, call, err)
		}
	} else {
		b, ok := cbuf(sbuf+C.uintptr_t(trueLB(dt)), bytes)
		if !ok {
			return failCode(comm, call, C.MPI_ERR_BUFFER, "send buffer")
		}
		var err error
		if mine, err = hostView(b); err != nil {
			return fail(comm, call, err)
		}
	}
	all := make([]byte, n*bytes)
	var err error
	if root >= 0 {
		var into []byte
		if me == root {
			into = all
		}
		err = compat.Gather(c, mine, bytes, compat.Byte, into, bytes, compat.Byte, root)
	} else {
		err = compat.Allgather(c, mine, bytes, compat.Byte, all, bytes, compat.Byte)
	}
	if err != nil {
		return fail(comm, call, err)
	}
	if root >= 0 && me != root {
		return C.MPI_SUCCESS
	}
	last := n - 1
	if scan {
		last = me
		if exclusive {
			last = me - 1
		}
	}
	if last < 0 { // Exscan at rank 0: no result, as MPI says
		return C.MPI_SUCCESS
	}
	out, ok := cbuf(rbuf+C.uintptr_t(trueLB(dt)), bytes)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "receive buffer")
	}
	acc := append([]byte(nil), all[last*bytes:(last+1)*bytes]...)
	for i := last - 1; i >= 0; i-- {
		u.apply(all[i*bytes:(i+1)*bytes], acc, int(count), dtype)
	}
	return done(comm, call, writeOut(out, acc))
}

// userReduceScatter is MPI_Reduce_scatter (and _block) with a user op:
// the whole vector is reduced at every member (userReduce to all, into a
// scratch buffer) and each keeps its block, counts[rank] elements after
// the blocks of the ranks before it. In place, the input is the receive
// buffer (all the counts' elements) and the block lands at its start.
func userReduceScatter(comm C.uintptr_t, call string, c *compat.Comm, u *userOp, sbuf, rbuf C.uintptr_t, counts []int, dtype C.uintptr_t) C.int {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	total, before := 0, 0
	for i, k := range counts {
		if k < 0 {
			return failCode(comm, call, C.MPI_ERR_COUNT, "recvcounts[%d] is %d", i, k)
		}
		if i < c.Rank() {
			before += k
		}
		total += k
	}
	size, lb := dt.Size(), trueLB(dt)
	scratch := C.malloc(C.size_t(lb + total*size + 1))
	if scratch == nil {
		return failCode(comm, call, C.MPI_ERR_NO_MEM, "a %d-byte scratch buffer", total*size)
	}
	defer C.free(scratch)
	in := sbuf
	if sbuf == 1 {
		in = rbuf
	}
	if rc := userReduce(comm, call, c, u, in, C.uintptr_t(uintptr(scratch)), C.int(total), dtype, -1, false, false); rc != C.MPI_SUCCESS {
		return rc
	}
	mine := counts[c.Rank()] * size
	if mine == 0 {
		return C.MPI_SUCCESS
	}
	out, ok := cbuf(rbuf+C.uintptr_t(lb), mine)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "receive buffer")
	}
	return done(comm, call, writeOut(out, unsafe.Slice((*byte)(unsafe.Add(scratch, lb+before*size)), mine)))
}

//export abigo_Reduce_local
func abigo_Reduce_local(in, inout C.uintptr_t, count C.int, dtype, op C.uintptr_t) C.int {
	const call = "MPI_Reduce_local"
	dt, ok := typeOf(dtype, true)
	if !ok {
		return failCode(0, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	if count < 0 {
		return failCode(0, call, C.MPI_ERR_COUNT, "count %d", int(count))
	}
	ib, ok1 := tbuf(in, dt, int(count))
	ob, ok2 := tbuf(inout, dt, int(count))
	if !ok1 || !ok2 {
		return failCode(0, call, C.MPI_ERR_BUFFER, "NULL buffer")
	}
	u, user := userOpOf(op)
	o, predef := opOf(op)
	switch {
	case user && !mpitype.MapOf(dt).Contiguous():
		return failCode(0, call, C.MPI_ERR_UNSUPPORTED_OPERATION, "a user op over a non-contiguous datatype")
	case !user && !predef:
		return failCode(0, call, C.MPI_ERR_OP, "invalid op")
	}
	// Both ops run on the host: device buffers over host copies.
	return done(0, call, viaHost(ib, ob, func(ib, ob []byte) error {
		if user {
			u.apply(ib, ob, int(count), dtype)
			return nil
		}
		return compat.ReduceLocal(ib, ob, int(count), dt, o)
	}))
}
