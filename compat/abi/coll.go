package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Collectives over compat's, buffers as bytes. MPI_IN_PLACE becomes
// compat.InPlace; buffers a rank does not use (a non-root's receive
// buffer) may be anything, as MPI says.
//
// MPI_Barrier, and MPI_Allreduce of up to ABI_ALLREDUCE_MAX bytes on a
// communicator whose size is a power of two, run in C over the
// point-to-point rings (p2p.c); the others cross into Go, where compat
// runs the small ones as shmem team collectives.

// predefOp maps the ABI's predefined ops.
var predefOp = map[C.uintptr_t]compat.Op{
	0x21: compat.OpSum, 0x22: compat.OpMin, 0x23: compat.OpMax, 0x24: compat.OpProd,
	0x28: compat.OpBand, 0x29: compat.OpBor, 0x2a: compat.OpBxor,
	0x30: compat.OpLand, 0x31: compat.OpLor, 0x32: compat.OpLxor,
	0x38: compat.OpMinloc, 0x39: compat.OpMaxloc,
	0x3c: compat.OpReplace, 0x3d: compat.OpNoOp,
}

func opOf(h C.uintptr_t) (compat.Op, bool) {
	op, ok := predefOp[h]
	return op, ok
}

// collArgs is what every collective checks first: the communicator.
func collComm(comm C.uintptr_t, call string) (*compat.Comm, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, rc
	}
	return o.c, C.MPI_SUCCESS
}

// sendOrInPlace is a send buffer that may be MPI_IN_PLACE.
func sendOrInPlace(comm C.uintptr_t, call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t) ([]byte, compat.Datatype, C.int) {
	if buf == 1 { // MPI_IN_PLACE
		dt, _ := typeOf(dtype, true)
		return compat.InPlace[byte](), dt, C.MPI_SUCCESS
	}
	return msgBuf(comm, call, buf, count, dtype)
}

// optBuf is a buffer this rank may not use: when it is no address, an
// empty slice, which compat reads only where MPI says it matters.
func optBuf(comm C.uintptr_t, call string, buf C.uintptr_t, count C.int, dtype C.uintptr_t) ([]byte, compat.Datatype, C.int) {
	if buf < minAddr && buf != 1 {
		dt, ok := typeOf(dtype, true)
		if !ok && dtype != 0x200 {
			return nil, dt, failCode(comm, call, C.MPI_ERR_TYPE, "invalid datatype")
		}
		return []byte{}, dt, C.MPI_SUCCESS
	}
	return sendOrInPlace(comm, call, buf, count, dtype)
}

// vBuf is the buffer of a v-collective: its length reaches the farthest
// block, counts[i] instances at displs[i] extents.
func vBuf(comm C.uintptr_t, call string, buf C.uintptr_t, counts, displs []int, dtype C.uintptr_t) ([]byte, compat.Datatype, C.int) {
	if buf == 1 {
		dt, _ := typeOf(dtype, true)
		return compat.InPlace[byte](), dt, C.MPI_SUCCESS
	}
	dt, ok := typeOf(dtype, true)
	if !ok {
		if buf < minAddr && counts == nil {
			return []byte{}, dt, C.MPI_SUCCESS // not significant here
		}
		return nil, dt, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	n := 0
	for i := range counts {
		if i < len(displs) && counts[i] > 0 && displs[i] >= 0 {
			n = max(n, displs[i]*dt.Extent()+span(dt, counts[i]))
		}
	}
	b, ok := cbuf(buf+C.uintptr_t(trueLB(dt)), n)
	if !ok {
		return nil, dt, failCode(comm, call, C.MPI_ERR_BUFFER, "buffer %#x", uintptr(buf))
	}
	return b, dt, C.MPI_SUCCESS
}

func done(comm C.uintptr_t, call string, err error) C.int {
	if err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

// MPI_Barrier is compat's point-to-point barrier, whose rounds p2p.c runs
// in C where it can (abic_Barrier); abigo_Barrier serves a communicator
// the C side cannot, and abiint_barrier_send and abiint_barrier_recv a
// round's half it cannot. Every PE thus exchanges the same messages.

//export abigo_Barrier
func abigo_Barrier(comm C.uintptr_t) C.int {
	c, rc := collComm(comm, "MPI_Barrier")
	if c == nil {
		return rc
	}
	return done(comm, "MPI_Barrier", c.BarrierP2P())
}

//export abiint_barrier_send
func abiint_barrier_send(comm C.uintptr_t, to C.int) C.int {
	c, rc := collComm(comm, "MPI_Barrier")
	if c == nil {
		return rc
	}
	return done(comm, "MPI_Barrier", c.BarrierSend(int(to)))
}

//export abiint_barrier_recv
func abiint_barrier_recv(comm C.uintptr_t, from C.int) C.int {
	c, rc := collComm(comm, "MPI_Barrier")
	if c == nil {
		return rc
	}
	return done(comm, "MPI_Barrier", c.BarrierRecv(int(from)))
}

//export abigo_Bcast
func abigo_Bcast(buf C.uintptr_t, count C.int, dtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Bcast"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interBcast(buf, count, dtype, root, comm, nil)
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Bcast(c, b, int(count), dt, int(root)))
}

func reduceBufs(comm C.uintptr_t, call string, sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, recvUsed bool) (s, r []byte, dt compat.Datatype, o compat.Op, rc C.int) {
	o, ok := opOf(op)
	if !ok {
		return nil, nil, dt, o, failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	s, dt, rc = sendOrInPlace(comm, call, sbuf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return
	}
	if recvUsed {
		r, _, rc = msgBuf(comm, call, rbuf, count, dtype)
	} else {
		r, _, rc = optBuf(comm, call, rbuf, count, dtype)
	}
	return
}

//export abigo_Reduce
func abigo_Reduce(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Reduce"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interReduce(sbuf, rbuf, count, dtype, op, root, comm, nil)
	}
	if u, ok := userOpOf(op); ok {
		return userReduce(comm, call, c, u, sbuf, rbuf, count, dtype, int(root), false, false)
	}
	s, r, dt, o, rc := reduceBufs(comm, call, sbuf, rbuf, count, dtype, op, int(root) == c.Rank())
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Reduce(c, s, r, int(count), dt, o, int(root)))
}

// allReduce is the body of MPI_Allreduce, MPI_Scan and MPI_Exscan: a user
// op's fold (scan and exclusive say which of the three), or compat's run.
func allReduce(call string, sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t, scan, exclusive bool,
	run func(c *compat.Comm, s, r []byte, n int, dt compat.Datatype, o compat.Op) error) C.int {
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return failCode(comm, call, C.MPI_ERR_COMM, "%s on an intercommunicator", call)
	}
	if u, ok := userOpOf(op); ok {
		return userReduce(comm, call, c, u, sbuf, rbuf, count, dtype, -1, scan, exclusive)
	}
	s, r, dt, o, rc := reduceBufs(comm, call, sbuf, rbuf, count, dtype, op, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, run(c, s, r, int(count), dt, o))
}

//export abigo_Allreduce
func abigo_Allreduce(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, comm C.uintptr_t) C.int {
	if o, rc := commOf(comm, "MPI_Allreduce"); o == nil {
		return rc
	} else if o.c.IsInter() {
		return interAllreduce(sbuf, rbuf, count, dtype, op, comm, nil)
	} else if rc, ok := allreduceRD(o, sbuf, rbuf, count, dtype, op, comm); ok {
		return rc
	}
	return allReduce("MPI_Allreduce", sbuf, rbuf, count, dtype, op, comm, false, false, compat.Allreduce[byte])
}

// redKind is the element type p2p.c folds for a basic type, or
// ABI_RED_NONE.
func redKind(b compat.Basic) C.int {
	switch b {
	case compat.BasicInt8:
		return C.ABI_RED_I8
	case compat.BasicInt16:
		return C.ABI_RED_I16
	case compat.BasicInt32:
		return C.ABI_RED_I32
	case compat.BasicInt64:
		return C.ABI_RED_I64
	case compat.BasicUint8:
		return C.ABI_RED_U8
	case compat.BasicUint16:
		return C.ABI_RED_U16
	case compat.BasicUint32:
		return C.ABI_RED_U32
	case compat.BasicUint64:
		return C.ABI_RED_U64
	case compat.BasicFloat32:
		return C.ABI_RED_F32
	case compat.BasicFloat64:
		return C.ABI_RED_F64
	}
	return C.ABI_RED_NONE
}

// allreduceRD runs MPI_Allreduce as p2p.c's recursive doubling
// (abic_Allreduce) when the arguments call for it, and reports whether
// they did. The test is abic_Allreduce's, made on the element type and
// count where that makes it on the predefined datatype's handle, so a
// member that passes a derived datatype of the same type signature runs
// the same rounds here; so does a member whose C side handed a round over.
// The rounds fold on the host, device buffers over host copies: whether a
// buffer is device memory may differ between members, and must not change
// which messages they exchange. (A heap on the GPU keeps the C side off, so
// a CUDA-aware job's small allreduces all come here.)
func allreduceRD(o *commObj, sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t) (C.int, bool) {
	const call = "MPI_Allreduce"
	n, me := o.c.Size(), o.c.Rank()
	dt, ok := typeOf(dtype, true)
	if n < 2 || n&(n-1) != 0 || count <= 0 || !ok || env.e == nil {
		return 0, false
	}
	m := mpitype.MapOf(dt)
	kind, plen := redKind(m.Basic()), int(count)*m.Size()
	if kind == C.ABI_RED_NONE || plen <= 0 || plen > min(env.e.EagerLimit(), C.ABI_ALLREDUCE_MAX) ||
		C.abi_fold(kind, op, nil, nil, nil, 0) == 0 {
		return 0, false
	}
	rb, _, rc := msgBuf(comm, call, rbuf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc, true
	}
	hr, err := hostView(rb)
	if err != nil {
		return fail(comm, call, err), true
	}
	src := hr
	if sbuf != 1 { // not MPI_IN_PLACE
		if sbuf == rbuf {
			return failCode(comm, call, C.MPI_ERR_BUFFER, "the send and receive buffers are the same (use MPI_IN_PLACE)"), true
		}
		if src, _, rc = msgBuf(comm, call, sbuf, count, dtype); rc != C.MPI_SUCCESS {
			return rc, true
		}
		if src, err = hostView(src); err != nil {
			return fail(comm, call, err), true
		}
	}
	acc, tmp := make([]byte, plen), make([]byte, plen)
	m.Pack(acc, src, int(count))
	for mask := 1; mask < n; mask <<= 1 {
		partner := me ^ mask
		if err := o.c.CollSend(partner, C.ABI_P2P_TAG_ALLREDUCE, acc); err != nil {
			return fail(comm, call, err), true
		}
		got, err := o.c.CollRecv(partner, C.ABI_P2P_TAG_ALLREDUCE, tmp)
		if err != nil {
			return fail(comm, call, err), true
		}
		if got != plen {
			return failCode(comm, call, C.MPI_ERR_TRUNCATE, "rank %d contributed %d bytes, this rank %d", partner, got, plen), true
		}
		lower, upper := tmp, acc
		if partner > me {
			lower, upper = acc, tmp
		}
		C.abi_fold(kind, op, ptrOf(acc), ptrOf(lower), ptrOf(upper), C.int(plen/m.Basic().Size()))
	}
	m.Unpack(hr, acc, int(count))
	if err := storeBack(rb, hr); err != nil {
		return fail(comm, call, err), true
	}
	return C.MPI_SUCCESS, true
}

//export abiint_allreduce_send
func abiint_allreduce_send(comm C.uintptr_t, to C.int, buf C.uintptr_t, n C.int) C.int {
	c, rc := collComm(comm, "MPI_Allreduce")
	if c == nil {
		return rc
	}
	b, _ := cbuf(buf, int(n))
	return done(comm, "MPI_Allreduce", c.CollSend(int(to), C.ABI_P2P_TAG_ALLREDUCE, b))
}

//export abiint_allreduce_recv
func abiint_allreduce_recv(comm C.uintptr_t, from C.int, buf C.uintptr_t, n C.int) C.int {
	c, rc := collComm(comm, "MPI_Allreduce")
	if c == nil {
		return rc
	}
	b, _ := cbuf(buf, int(n))
	got, err := c.CollRecv(int(from), C.ABI_P2P_TAG_ALLREDUCE, b)
	if err != nil {
		return fail(comm, "MPI_Allreduce", err)
	}
	if got != int(n) {
		return failCode(comm, "MPI_Allreduce", C.MPI_ERR_TRUNCATE, "rank %d contributed %d bytes, this rank %d", int(from), got, int(n))
	}
	return C.MPI_SUCCESS
}

// Scan and Exscan run on the host in compat: device buffers cross over
// host copies (viaHost), rank 0's untouched Exscan buffer included.

//export abigo_Scan
func abigo_Scan(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, comm C.uintptr_t) C.int {
	return allReduce("MPI_Scan", sbuf, rbuf, count, dtype, op, comm, true, false,
		func(c *compat.Comm, s, r []byte, n int, dt compat.Datatype, o compat.Op) error {
			return viaHost(s, r, func(s, r []byte) error { return compat.Scan(c, s, r, n, dt, o) })
		})
}

//export abigo_Exscan
func abigo_Exscan(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, comm C.uintptr_t) C.int {
	return allReduce("MPI_Exscan", sbuf, rbuf, count, dtype, op, comm, true, true,
		func(c *compat.Comm, s, r []byte, n int, dt compat.Datatype, o compat.Op) error {
			return viaHost(s, r, func(s, r []byte) error { return compat.Exscan(c, s, r, n, dt, o) })
		})
}

//export abigo_Reduce_scatter_block
func abigo_Reduce_scatter_block(sbuf, rbuf C.uintptr_t, rcount C.int, dtype, op C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Reduce_scatter_block"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interReduceScatter(sbuf, rbuf, uniformCounts(c.Size(), int(rcount)), dtype, op, comm, nil, call)
	}
	if u, ok := userOpOf(op); ok {
		return userReduceScatter(comm, call, c, u, sbuf, rbuf, uniformCounts(c.Size(), int(rcount)), dtype)
	}
	o, ok := opOf(op)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	s, dt, rc := sendOrInPlace(comm, call, sbuf, rcount*C.int(c.Size()), dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n := rcount
	if sbuf == 1 {
		n = rcount * C.int(c.Size()) // in place: the input is the receive buffer
	}
	r, _, rc := msgBuf(comm, call, rbuf, n, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.ReduceScatterBlock(c, s, r, int(rcount), dt, o))
}

//export abigo_Reduce_scatter
func abigo_Reduce_scatter(sbuf, rbuf C.uintptr_t, rcounts *C.int, dtype, op C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Reduce_scatter"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interCounts(comm, call, c, rcounts, func(cs []int) C.int { return interReduceScatter(sbuf, rbuf, cs, dtype, op, comm, nil, call) })
	}
	if rcounts == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "recvcounts is NULL")
	}
	counts := intsIn(rcounts, C.int(c.Size()))
	if u, ok := userOpOf(op); ok {
		return userReduceScatter(comm, call, c, u, sbuf, rbuf, counts, dtype)
	}
	o, ok := opOf(op)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	total := 0
	for _, k := range counts {
		total += k
	}
	s, dt, rc := sendOrInPlace(comm, call, sbuf, C.int(total), dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n := C.int(counts[c.Rank()])
	if sbuf == 1 {
		n = C.int(total)
	}
	r, _, rc := msgBuf(comm, call, rbuf, n, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.ReduceScatter(c, s, r, counts, dt, o))
}

//export abigo_Gather
func abigo_Gather(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Gather"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interGather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, nil)
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var r []byte
	var rdt compat.Datatype
	if int(root) == c.Rank() {
		r, rdt, rc = msgBuf(comm, call, rbuf, rcount*C.int(c.Size()), rtype)
	} else {
		r, rdt, rc = optBuf(comm, call, rbuf, 0, rtype)
	}
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Gather(c, s, int(scount), sdt, r, int(rcount), rdt, int(root)))
}

// rootLayout reads the counts and displacements a rooted v collective
// takes at its root (and ignores elsewhere, as MPI says).
func rootLayout(comm C.uintptr_t, call string, c *compat.Comm, root C.int, counts, displs *C.int, what string) ([]int, []int, C.int) {
	if int(root) != c.Rank() {
		return nil, nil, C.MPI_SUCCESS
	}
	if counts == nil || displs == nil {
		return nil, nil, failCode(comm, call, C.MPI_ERR_ARG, "%s or displs is NULL at the root", what)
	}
	return intsIn(counts, C.int(c.Size())), intsIn(displs, C.int(c.Size())), C.MPI_SUCCESS
}

//export abigo_Gatherv
func abigo_Gatherv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Gatherv"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interGatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, nil)
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	counts, ds, rc := rootLayout(comm, call, c, root, rcounts, displs, "recvcounts")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := vBuf(comm, call, rbuf, counts, ds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Gatherv(c, s, int(scount), sdt, r, counts, ds, rdt, int(root)))
}

//export abigo_Scatter
func abigo_Scatter(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Scatter"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interScatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, nil)
	}
	var s []byte
	var sdt compat.Datatype
	if int(root) == c.Rank() {
		s, sdt, rc = msgBuf(comm, call, sbuf, scount*C.int(c.Size()), stype)
	} else {
		s, sdt, rc = optBuf(comm, call, sbuf, 0, stype)
	}
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := sendOrInPlace(comm, call, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Scatter(c, s, int(scount), sdt, r, int(rcount), rdt, int(root)))
}

//export abigo_Scatterv
func abigo_Scatterv(sbuf C.uintptr_t, scounts, displs *C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	const call = "MPI_Scatterv"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interScatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, nil)
	}
	counts, ds, rc := rootLayout(comm, call, c, root, scounts, displs, "sendcounts")
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, sdt, rc := vBuf(comm, call, sbuf, counts, ds, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := sendOrInPlace(comm, call, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Scatterv(c, s, counts, ds, sdt, r, int(rcount), rdt, int(root)))
}

//export abigo_Allgather
func abigo_Allgather(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Allgather"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interAllgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, nil)
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := msgBuf(comm, call, rbuf, rcount*C.int(c.Size()), rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Allgather(c, s, int(scount), sdt, r, int(rcount), rdt))
}

//export abigo_Allgatherv
func abigo_Allgatherv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Allgatherv"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interAllgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, nil)
	}
	if rcounts == nil || displs == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "recvcounts or displs is NULL")
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	counts, ds := intsIn(rcounts, C.int(c.Size())), intsIn(displs, C.int(c.Size()))
	r, rdt, rc := vBuf(comm, call, rbuf, counts, ds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Allgatherv(c, s, int(scount), sdt, r, counts, ds, rdt))
}

//export abigo_Alltoall
func abigo_Alltoall(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Alltoall"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interAlltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, nil)
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount*C.int(c.Size()), stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := msgBuf(comm, call, rbuf, rcount*C.int(c.Size()), rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Alltoall(c, s, int(scount), sdt, r, int(rcount), rdt))
}

//export abigo_Alltoallv
func abigo_Alltoallv(sbuf C.uintptr_t, scounts, sdispls *C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Alltoallv"
	c, rc := collComm(comm, call)
	if c == nil {
		return rc
	}
	if c.IsInter() {
		return interAlltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, nil)
	}
	if rcounts == nil || rdispls == nil || (sbuf != 1 && (scounts == nil || sdispls == nil)) {
		return failCode(comm, call, C.MPI_ERR_ARG, "counts or displacements are NULL")
	}
	n := C.int(c.Size())
	var sc, sd []int
	if sbuf != 1 {
		sc, sd = intsIn(scounts, n), intsIn(sdispls, n)
	}
	s, sdt, rc := vBuf(comm, call, sbuf, sc, sd, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	rcs, rds := intsIn(rcounts, n), intsIn(rdispls, n)
	r, rdt, rc := vBuf(comm, call, rbuf, rcs, rds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return done(comm, call, compat.Alltoallv(c, s, sc, sd, sdt, r, rcs, rds, rdt))
}
