package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/windows"
)

// One-sided operations over windows' typed calls, buffers as bytes.
// Displacements are in the target's displacement units, as in windows.

// origin checks an origin (or result) buffer of an RMA call.
func origin(win C.uintptr_t, call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t) ([]byte, compat.Datatype, C.int) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return nil, dt, raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_TYPE, call, nil)
	}
	if count < 0 {
		return nil, dt, raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_COUNT, call, nil)
	}
	b, ok := tbuf(buf, dt, int(count))
	if !ok {
		return nil, dt, raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_BUFFER, call, nil)
	}
	return b, dt, C.MPI_SUCCESS
}

func target(win C.uintptr_t, call string, dtype C.uintptr_t) (compat.Datatype, C.int) {
	dt, ok := typeOf(dtype, true)
	if !ok {
		return dt, raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_TYPE, call, nil)
	}
	return dt, C.MPI_SUCCESS
}

// rmaOp is an accumulate's op: the predefined ones, REPLACE and NO_OP
// included.
func rmaOp(win C.uintptr_t, call string, op C.uintptr_t) (compat.Op, C.int) {
	o, ok := opOf(op)
	if !ok {
		return o, raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_OP, call, nil)
	}
	return o, C.MPI_SUCCESS
}

// rmaArgs gathers what put, get and accumulate check.
type rmaArgs struct {
	w      *windows.Win
	ob     []byte
	ot, tt compat.Datatype
}

func rmaCheck(call string, win C.uintptr_t, buf C.uintptr_t, ocount C.int, otype, ttype C.uintptr_t) (rmaArgs, C.int) {
	o, rc := winOf(win, call)
	if o == nil {
		return rmaArgs{}, rc
	}
	ob, ot, rc := origin(win, call, buf, ocount, otype)
	if rc != C.MPI_SUCCESS {
		return rmaArgs{}, rc
	}
	tt, rc := target(win, call, ttype)
	if rc != C.MPI_SUCCESS {
		return rmaArgs{}, rc
	}
	goRMAOps.Add(1)
	return rmaArgs{w: o.w, ob: ob, ot: ot, tt: tt}, C.MPI_SUCCESS
}

//export abigo_Put
func abigo_Put(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rank C.int, disp C.MPI_Aint, tcount C.int, ttype, win C.uintptr_t) C.int {
	a, rc := rmaCheck("MPI_Put", win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	return winDone(win, "MPI_Put", windows.PutTyped(a.w, a.ob, int(ocount), a.ot, rankIn(rank), int(disp), int(tcount), a.tt))
}

//export abigo_Get
func abigo_Get(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rank C.int, disp C.MPI_Aint, tcount C.int, ttype, win C.uintptr_t) C.int {
	a, rc := rmaCheck("MPI_Get", win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	return winDone(win, "MPI_Get", windows.GetTyped(a.w, a.ob, int(ocount), a.ot, rankIn(rank), int(disp), int(tcount), a.tt))
}

//export abigo_Accumulate
func abigo_Accumulate(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rank C.int, disp C.MPI_Aint, tcount C.int, ttype, op, win C.uintptr_t) C.int {
	const call = "MPI_Accumulate"
	a, rc := rmaCheck(call, win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	o, rc := rmaOp(win, call, op)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return winDone(win, call, windows.AccumulateTyped(a.w, a.ob, int(ocount), a.ot, rankIn(rank), int(disp), int(tcount), a.tt, o))
}

//export abigo_Get_accumulate
func abigo_Get_accumulate(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t,
	rank C.int, disp C.MPI_Aint, tcount C.int, ttype, op, win C.uintptr_t) C.int {
	const call = "MPI_Get_accumulate"
	o, rc := rmaOp(win, call, op)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if o == compat.OpNoOp && buf < minAddr { // the origin is ignored
		ocount, otype = 0, rtype
	}
	a, rc := rmaCheck(call, win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	rb, rt, rc := origin(win, call, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return winDone(win, call, windows.GetAccumulateTyped(a.w, a.ob, int(ocount), a.ot, rb, int(rcount), rt, rankIn(rank), int(disp), int(tcount), a.tt, o))
}

//export abigo_Fetch_and_op
func abigo_Fetch_and_op(buf, rbuf C.uintptr_t, dtype C.uintptr_t, rank C.int, disp C.MPI_Aint, op, win C.uintptr_t) C.int {
	n := C.int(1)
	if o, ok := opOf(op); ok && o == compat.OpNoOp && buf < minAddr {
		n = 0
	}
	return abigo_Get_accumulate(buf, n, dtype, rbuf, 1, dtype, rank, disp, 1, dtype, op, win)
}

//export abigo_Compare_and_swap
func abigo_Compare_and_swap(buf, cbufp, rbuf C.uintptr_t, dtype C.uintptr_t, rank C.int, disp C.MPI_Aint, win C.uintptr_t) C.int {
	const call = "MPI_Compare_and_swap"
	o, rc := winOf(win, call)
	if o == nil {
		return rc
	}
	dt, ok := typeOf(dtype, true)
	if !ok {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_TYPE, call, nil)
	}
	sz := dt.Size()
	ob, ok1 := cbuf(buf, sz)
	cb, ok2 := cbuf(cbufp, sz)
	rb, ok3 := cbuf(rbuf, sz)
	if !ok1 || !ok2 || !ok3 {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_BUFFER, call, nil)
	}
	goRMAOps.Add(1)
	return winDone(win, call, cas(o.w, dt, ob, cb, rb, rankIn(rank), int(disp)))
}

// cas runs windows.CompareAndSwap at the element type of dt.
func cas(w *windows.Win, dt compat.Datatype, o, c, r []byte, rank, disp int) error {
	switch dt.Basic() {
	case compat.BasicInt8:
		return casAs[int8](w, o, c, r, rank, disp)
	case compat.BasicUint8, compat.BasicByte, compat.BasicBool:
		return casAs[uint8](w, o, c, r, rank, disp)
	case compat.BasicInt16:
		return casAs[int16](w, o, c, r, rank, disp)
	case compat.BasicUint16:
		return casAs[uint16](w, o, c, r, rank, disp)
	case compat.BasicInt32:
		return casAs[int32](w, o, c, r, rank, disp)
	case compat.BasicUint32:
		return casAs[uint32](w, o, c, r, rank, disp)
	case compat.BasicInt64:
		return casAs[int64](w, o, c, r, rank, disp)
	case compat.BasicUint64:
		return casAs[uint64](w, o, c, r, rank, disp)
	}
	return &compat.Error{Class: compat.ClassType, Msg: "Compare_and_swap takes integer, byte and bool types, not " + dt.String()}
}

func casAs[T int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64](w *windows.Win, o, c, r []byte, rank, disp int) error {
	ov := *(*T)(ptrOf(o))
	cv := *(*T)(ptrOf(c))
	old, err := windows.CompareAndSwap(w, cv, ov, rank, disp)
	if err == nil && rank != compat.ProcNull {
		*(*T)(ptrOf(r)) = old
	}
	return err
}

// Request-based operations: the request completes the operation locally
// (MPI_Wait on an Rput means the origin may be reused).

func rmaRequest(win C.uintptr_t, call string, r *compat.Request, err error, req *C.uintptr_t) C.int {
	if err != nil {
		return winFail(win, call, err)
	}
	*req = newOwnedRequest(r, win, C.ABI_KIND_WIN, nil)
	return C.MPI_SUCCESS
}

//export abigo_Rput
func abigo_Rput(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rank C.int, disp C.MPI_Aint, tcount C.int, ttype, win C.uintptr_t, req *C.uintptr_t) C.int {
	a, rc := rmaCheck("MPI_Rput", win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	if req == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Rput", nil)
	}
	r, err := windows.RputTyped(a.w, a.ob, int(ocount), a.ot, rankIn(rank), int(disp), int(tcount), a.tt)
	return rmaRequest(win, "MPI_Rput", r, err, req)
}

//export abigo_Rget
func abigo_Rget(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rank C.int, disp C.MPI_Aint, tcount C.int, ttype, win C.uintptr_t, req *C.uintptr_t) C.int {
	a, rc := rmaCheck("MPI_Rget", win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	if req == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, "MPI_Rget", nil)
	}
	r, err := windows.RgetTyped(a.w, a.ob, int(ocount), a.ot, rankIn(rank), int(disp), int(tcount), a.tt)
	return rmaRequest(win, "MPI_Rget", r, err, req)
}

//export abigo_Raccumulate
func abigo_Raccumulate(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rank C.int, disp C.MPI_Aint, tcount C.int, ttype, op, win C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Raccumulate"
	a, rc := rmaCheck(call, win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	o, rc := rmaOp(win, call, op)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if req == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, call, nil)
	}
	r, err := windows.RaccumulateTyped(a.w, a.ob, int(ocount), a.ot, rankIn(rank), int(disp), int(tcount), a.tt, o)
	return rmaRequest(win, call, r, err, req)
}

//export abigo_Rget_accumulate
func abigo_Rget_accumulate(buf C.uintptr_t, ocount C.int, otype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t,
	rank C.int, disp C.MPI_Aint, tcount C.int, ttype, op, win C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Rget_accumulate"
	o, rc := rmaOp(win, call, op)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if o == compat.OpNoOp && buf < minAddr {
		ocount, otype = 0, rtype
	}
	a, rc := rmaCheck(call, win, buf, ocount, otype, ttype)
	if a.w == nil {
		return rc
	}
	rb, rt, rc := origin(win, call, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if req == nil {
		return raise(C.ABI_KIND_WIN, uintptr(win), C.MPI_ERR_ARG, call, nil)
	}
	r, err := windows.RgetAccumulateTyped(a.w, a.ob, int(ocount), a.ot, rb, int(rcount), rt, rankIn(rank), int(disp), int(tcount), a.tt, o)
	return rmaRequest(win, call, r, err, req)
}
