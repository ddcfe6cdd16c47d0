package main

/*
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
// op commutes or not. It costs a gather of count elements per member
// (packed); the function sees them laid out as their datatype says
// (apply), non-contiguous ones included.

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

// call runs the user's function on count instances of dtype laid out in
// in and inout, each from its first data byte (the type's true lower
// bound, which the function's pointers are moved back by).
func (u *userOp) call(in, inout []byte, count int, dtype C.uintptr_t, dt compat.Datatype) {
	if count == 0 || len(inout) == 0 {
		return
	}
	shift := C.ptrdiff_t(trueLB(dt))
	if u.large {
		C.abi_call_user_op_c(C.uintptr_t(u.fn), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), shift, C.MPI_Count(count), dtype)
		return
	}
	C.abi_call_user_op(C.uintptr_t(u.fn), unsafe.Pointer(&in[0]), unsafe.Pointer(&inout[0]), shift, C.int(count), dtype)
}

// apply combines in into inout, count instances of dtype packed each, with
// the user's function. The function takes the datatype itself (MPI-4.1
// 6.9.5): a datatype that is not contiguous (a vector, a struct, a pair
// with padding) is laid out in buffers of its true extent for the call,
// then packed again.
func (u *userOp) apply(in, inout []byte, count int, dtype C.uintptr_t, dt compat.Datatype) {
	m := mpitype.MapOf(dt)
	if m.Contiguous() {
		u.call(in, inout, count, dtype, dt)
		return
	}
	span := m.Span(count)
	li, lo := make([]byte, span), make([]byte, span)
	m.Unpack(li, in, count)
	m.Unpack(lo, inout, count)
	u.call(li, lo, count, dtype, dt)
	m.Pack(inout, lo, count)
}

// contribution is this member's input to a user op's reduction, packed:
// count instances of dt at buf (a host copy of device memory).
func contribution(buf C.uintptr_t, dt compat.Datatype, count int) ([]byte, bool, error) {
	b, ok := tbuf(buf, dt, count)
	if !ok {
		return nil, false, nil
	}
	m := mpitype.MapOf(dt)
	if m.Contiguous() {
		mine, err := snapshot(b[:count*dt.Size()])
		return mine, true, err
	}
	h, err := hostView(b)
	if err != nil {
		return nil, true, err
	}
	mine := make([]byte, count*dt.Size())
	m.Pack(mine, h, count)
	return mine, true, nil
}

// writeResult writes acc (count instances of dt, packed) into the buffer at buf.
func writeResult(buf C.uintptr_t, dt compat.Datatype, count int, acc []byte) (bool, error) {
	out, ok := tbuf(buf, dt, count)
	if !ok {
		return false, nil
	}
	m := mpitype.MapOf(dt)
	if m.Contiguous() {
		return true, writeOut(out, acc)
	}
	h, err := hostView(out)
	if err != nil {
		return true, err
	}
	m.Unpack(h, acc, count)
	return true, storeBack(out, h)
}

// fold combines parts (packed, by rank) into x0 op (x1 op (... op xk)).
func (u *userOp) fold(parts [][]byte, count int, dtype C.uintptr_t, dt compat.Datatype) []byte {
	acc := append([]byte(nil), parts[len(parts)-1]...)
	for i := len(parts) - 2; i >= 0; i-- {
		u.apply(parts[i], acc, count, dtype, dt)
	}
	return acc
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
	n, me := c.Size(), c.Rank()
	bytes := int(count) * dt.Size()
	in, what := sbuf, "send buffer"
	if sbuf == 1 { // MPI_IN_PLACE: the input is in the receive buffer
		in, what = rbuf, "receive buffer"
	}
	mine, ok, err := contribution(in, dt, int(count))
	switch {
	case !ok:
		return failCode(comm, call, C.MPI_ERR_BUFFER, "%s", what)
	case err != nil:
		return fail(comm, call, err)
	}
	all := make([]byte, n*bytes)
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
	parts := make([][]byte, last+1)
	for i := range parts {
		parts[i] = all[i*bytes : (i+1)*bytes]
	}
	ok, err = writeResult(rbuf, dt, int(count), u.fold(parts, int(count), dtype, dt))
	if !ok {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "receive buffer")
	}
	return done(comm, call, err)
}

// userReduceScatter is MPI_Reduce_scatter(_block) with a user op: block j
// of every member's input (counts[j] instances) goes to member j
// (Alltoallv), which folds the blocks it got in rank order.
func userReduceScatter(comm C.uintptr_t, call string, c *compat.Comm, u *userOp, sbuf, rbuf C.uintptr_t, counts []int, dtype C.uintptr_t) C.int {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	n, me, sz, total := c.Size(), c.Rank(), dt.Size(), 0
	for _, k := range counts {
		if k < 0 {
			return failCode(comm, call, C.MPI_ERR_COUNT, "count %d", k)
		}
		total += k
	}
	in, what := sbuf, "send buffer"
	if sbuf == 1 {
		in, what = rbuf, "receive buffer"
	}
	mine, ok, err := contribution(in, dt, total)
	switch {
	case !ok:
		return failCode(comm, call, C.MPI_ERR_BUFFER, "%s", what)
	case err != nil:
		return fail(comm, call, err)
	}
	blk := counts[me] * sz
	sc, sd, rc, rd := make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	off := 0
	for j, k := range counts {
		sc[j], sd[j], rc[j], rd[j] = k*sz, off, blk, j*blk
		off += k * sz
	}
	got := make([]byte, n*blk)
	if err := compat.Alltoallv(c, mine, sc, sd, compat.Byte, got, rc, rd, compat.Byte); err != nil {
		return fail(comm, call, err)
	}
	parts := make([][]byte, n)
	for i := range parts {
		parts[i] = got[i*blk : (i+1)*blk]
	}
	ok, err = writeResult(rbuf, dt, counts[me], u.fold(parts, counts[me], dtype, dt))
	if !ok {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "receive buffer")
	}
	return done(comm, call, err)
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
	if !user && !predef {
		return failCode(0, call, C.MPI_ERR_OP, "invalid op")
	}
	// Both ops run on the host: device buffers over host copies. The
	// user's function sees the buffers as they are laid out.
	return done(0, call, viaHost(ib, ob, func(ib, ob []byte) error {
		if user {
			u.call(ib, ob, int(count), dtype, dt)
			return nil
		}
		return compat.ReduceLocal(ib, ob, int(count), dt, o)
	}))
}
