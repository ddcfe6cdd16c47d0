package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// Collectives on intercommunicators: each entry point of coll.go, nbc.go
// and nbcv.go hands an intercommunicator to the function here of its
// name, which reads the buffers as MPI-4.1 §6.2.2 sizes them (by the
// remote group where data comes from or goes to it; a rooted call's root
// passes MPI_ROOT, the rest of its group MPI_PROC_NULL, and only the root
// and the other group's members touch buffers) and runs compat's
// intercommunicator collective. A nonblocking one (req not nil) runs the
// blocking collective on a goroutine over the communicator's private
// duplicate, after the previous one of that communicator, so members
// match them in the order they started them, as MPI requires; its request
// is a generalized request that goroutine completes. Persistent ones start
// the nonblocking form (pcoll.go). Device buffers (a CUDA-aware job) are
// refused with MPI_ERR_UNSUPPORTED_OPERATION here: compat's
// intercommunicator collectives read buffers on the host. User ops fold
// in interuserop.go.

// isInter reports whether comm is a valid intercommunicator.
func isInter(comm C.uintptr_t) bool {
	if !envLive.Load() {
		return false
	}
	o, ok := lookup(uintptr(comm), C.ABI_KIND_COMM)
	return ok && o.val.(*commObj).c.IsInter()
}

// interRoot maps an intercommunicator root argument into compat's values.
func interRoot(root C.int) int {
	switch root {
	case C.MPI_ROOT:
		return compat.Root
	case C.MPI_PROC_NULL:
		return compat.ProcNull
	case C.MPI_ANY_SOURCE:
		return -1000 // invalid: compat rejects it
	}
	return int(root)
}

// interRun runs f over comm's intercommunicator now (req nil) or as a
// nonblocking collective whose request it stores in *req.
func interRun(comm C.uintptr_t, call string, req *C.uintptr_t, f func(c *compat.Comm) error, bufs ...[]byte) C.int {
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if w := env.e.World(); w.HeapOnDevice() {
		for _, b := range bufs {
			if cap(b) > 0 && w.IsDeviceMemory(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) {
				return failCode(comm, call, C.MPI_ERR_UNSUPPORTED_OPERATION, "device buffers in collectives on intercommunicators")
			}
		}
	}
	if req == nil {
		return done(comm, call, f(o.c))
	}
	c, _, err := nbcComm(o)
	if err != nil {
		return fail(comm, call, err)
	}
	return chainRun(o, comm, call, req, func() error { return f(c) })
}

// chainRun runs f on a goroutine once o's previous chained operation has
// run, under a generalized request it stores in *req.
func chainRun(o *commObj, comm C.uintptr_t, call string, req *C.uintptr_t, f func() error) C.int {
	var ferr error
	g, err := env.e.GrequestStart(func(*compat.Status) error { return ferr })
	if err != nil {
		return fail(comm, call, err)
	}
	prev, next := o.interTail, make(chan struct{})
	o.interTail = next
	go func() {
		if prev != nil {
			<-prev
		}
		ferr = f()
		close(next)
		g.GrequestComplete()
	}()
	s := &schedule{rounds: []func() ([]*compat.Request, error){func() ([]*compat.Request, error) { return []*compat.Request{g}, nil }}}
	return startNBC(comm, call, s, req)
}

// rootBufs reads the buffers of a rooted intercommunicator collective:
// the root's (its part: n instances) or the other group's (the leaf's:
// m instances); the rest of the root's group passes none.
func rootBufs(comm C.uintptr_t, call string, root C.int, rootBuf C.uintptr_t, n C.int, rootType C.uintptr_t, leafBuf C.uintptr_t, m C.int, leafType C.uintptr_t) (rb []byte, rdt compat.Datatype, lb []byte, ldt compat.Datatype, rc C.int) {
	switch root {
	case C.MPI_ROOT:
		rb, rdt, rc = msgBuf(comm, call, rootBuf, n, rootType)
	case C.MPI_PROC_NULL:
	default:
		lb, ldt, rc = msgBuf(comm, call, leafBuf, m, leafType)
	}
	return
}

func interBarrier(comm C.uintptr_t, req *C.uintptr_t) C.int {
	return interRun(comm, "MPI_Ibarrier", req, func(c *compat.Comm) error { return c.Barrier() })
}

func interBcast(buf C.uintptr_t, count C.int, dtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Bcast"
	get := msgBuf
	if root == C.MPI_PROC_NULL {
		get = optBuf
	}
	b, dt, rc := get(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error { return compat.Bcast(c, b, int(count), dt, interRoot(root)) }, b)
}

func interReduce(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Reduce"
	if u, ok := userOpOf(op); ok {
		return interUserReduce(comm, call, req, u, sbuf, rbuf, count, dtype, root)
	}
	o, ok := opOf(op)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	r, dt, s, sdt, rc := rootBufs(comm, call, root, rbuf, count, dtype, sbuf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if r == nil {
		dt = sdt
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Reduce(c, s, r, int(count), dt, o, interRoot(root))
	}, s, r)
}

func interAllreduce(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Allreduce"
	if u, ok := userOpOf(op); ok {
		return interUserAllreduce(comm, call, req, u, sbuf, rbuf, count, dtype)
	}
	o, ok := opOf(op)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	s, dt, rc := sendOrInPlace(comm, call, sbuf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, _, rc := msgBuf(comm, call, rbuf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error { return compat.Allreduce(c, s, r, int(count), dt, o) }, s, r)
}

func interReduceScatter(sbuf, rbuf C.uintptr_t, rcounts []int, dtype, op, comm C.uintptr_t, req *C.uintptr_t, call string) C.int {
	if u, ok := userOpOf(op); ok {
		return interUserReduceScatter(comm, call, req, u, sbuf, rbuf, rcounts, dtype)
	}
	o, ok := opOf(op)
	if !ok {
		return failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	total, me := 0, 0
	if oc, rc := commOf(comm, call); oc == nil {
		return rc
	} else {
		me = oc.c.Rank()
	}
	for _, k := range rcounts {
		total += k
	}
	s, dt, rc := sendOrInPlace(comm, call, sbuf, C.int(total), dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, _, rc := msgBuf(comm, call, rbuf, C.int(rcounts[me]), dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error { return compat.ReduceScatter(c, s, r, rcounts, dt, o) }, s, r)
}

func interGather(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Gather"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	r, rdt, s, sdt, rc := rootBufs(comm, call, root, rbuf, rcount*C.int(o.c.RemoteSize()), rtype, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Gather(c, s, int(scount), sdt, r, int(rcount), rdt, interRoot(root))
	}, s, r)
}

func interScatter(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Scatter"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	s, sdt, r, rdt, rc := rootBufs(comm, call, root, sbuf, scount*C.int(o.c.RemoteSize()), stype, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Scatter(c, s, int(scount), sdt, r, int(rcount), rdt, interRoot(root))
	}, s, r)
}

// rootV reads a rooted v collective's root side: counts and displacements
// of the remote group and the buffer they span.
func rootV(comm C.uintptr_t, call string, o *commObj, root C.int, buf C.uintptr_t, counts, displs *C.int, dtype C.uintptr_t) ([]int, []int, []byte, compat.Datatype, C.int) {
	if root != C.MPI_ROOT {
		return nil, nil, nil, compat.Datatype{}, C.MPI_SUCCESS
	}
	cs, ds, rc := countsIn(comm, call, o.c.RemoteSize(), counts, displs)
	if rc != C.MPI_SUCCESS {
		return nil, nil, nil, compat.Datatype{}, rc
	}
	b, dt, rc := vBuf(comm, call, buf, cs, ds, dtype)
	return cs, ds, b, dt, rc
}

func interGatherv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Gatherv"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	cs, ds, r, rdt, rc := rootV(comm, call, o, root, rbuf, rcounts, displs, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	_, _, s, sdt, rc := rootBufs(comm, call, root, 0, 0, rtype, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Gatherv(c, s, int(scount), sdt, r, cs, ds, rdt, interRoot(root))
	}, s, r)
}

func interScatterv(sbuf C.uintptr_t, scounts, displs *C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Scatterv"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	cs, ds, s, sdt, rc := rootV(comm, call, o, root, sbuf, scounts, displs, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	_, _, r, rdt, rc := rootBufs(comm, call, root, 0, 0, stype, rbuf, rcount, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Scatterv(c, s, cs, ds, sdt, r, int(rcount), rdt, interRoot(root))
	}, s, r)
}

func interAllgather(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Allgather"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := msgBuf(comm, call, rbuf, rcount*C.int(o.c.RemoteSize()), rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Allgather(c, s, int(scount), sdt, r, int(rcount), rdt)
	}, s, r)
}

func interAllgatherv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Allgatherv"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	cs, ds, rc := countsIn(comm, call, o.c.RemoteSize(), rcounts, displs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := vBuf(comm, call, rbuf, cs, ds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Allgatherv(c, s, int(scount), sdt, r, cs, ds, rdt)
	}, s, r)
}

func interAlltoall(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Alltoall"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	n := C.int(o.c.RemoteSize())
	s, sdt, rc := sendOrInPlace(comm, call, sbuf, scount*n, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := msgBuf(comm, call, rbuf, rcount*n, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Alltoall(c, s, int(scount), sdt, r, int(rcount), rdt)
	}, s, r)
}

func interAlltoallv(sbuf C.uintptr_t, scounts, sdispls *C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Alltoallv"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if sbuf == 1 || rbuf == 1 {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator")
	}
	n := o.c.RemoteSize()
	scs, sds, rc := countsIn(comm, call, n, scounts, sdispls)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	rcs, rds, rc := countsIn(comm, call, n, rcounts, rdispls)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	s, sdt, rc := vBuf(comm, call, sbuf, scs, sds, stype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := vBuf(comm, call, rbuf, rcs, rds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	return interRun(comm, call, req, func(c *compat.Comm) error {
		return compat.Alltoallv(c, s, scs, sds, sdt, r, rcs, rds, rdt)
	}, s, r)
}

// interAlltoallw runs as point-to-point on the private duplicate, one
// message each way per remote member, so even the blocking form goes
// through interRun's order (and waits for itself).
func interAlltoallw(sbuf C.uintptr_t, scounts, sdispls *C.int, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtypes *C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Alltoallw"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	if sbuf == 1 || rbuf == 1 {
		return failCode(comm, call, C.MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator")
	}
	n := o.c.RemoteSize()
	scs, sds, rc := countsIn(comm, call, n, scounts, sdispls)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	rcs, rds, rc := countsIn(comm, call, n, rcounts, rdispls)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if stypes == nil || rtypes == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "datatype arrays are NULL")
	}
	sts, rts := reqArray(C.int(n), stypes), reqArray(C.int(n), rtypes)
	sbs, rbs := make([][]byte, n), make([][]byte, n)
	sdts, rdts := make([]compat.Datatype, n), make([]compat.Datatype, n)
	for i := range n {
		var ok1, ok2 bool
		sdts[i], ok1 = typeOf(sts[i], true)
		rdts[i], ok2 = typeOf(rts[i], true)
		if !ok1 || !ok2 {
			return failCode(comm, call, C.MPI_ERR_TYPE, "datatype for rank %d", i)
		}
		sbs[i], ok1 = cbuf(sbuf+C.uintptr_t(sds[i]), span(sdts[i], scs[i]))
		rbs[i], ok2 = cbuf(rbuf+C.uintptr_t(rds[i]), span(rdts[i], rcs[i]))
		if !ok1 || !ok2 {
			return failCode(comm, call, C.MPI_ERR_BUFFER, "buffer for rank %d", i)
		}
	}
	var tmp C.uintptr_t
	into := req
	if req == nil {
		into = &tmp
	}
	rc = interRun(comm, call, into, func(c *compat.Comm) error {
		var rs []*compat.Request
		for i := range n {
			r, err := compat.Irecv(c, rbs[i], rcs[i], rdts[i], i, 1)
			if err != nil {
				return err
			}
			s, err := compat.Isend(c, sbs[i], scs[i], sdts[i], i, 1)
			if err != nil {
				return err
			}
			rs = append(rs, r, s)
		}
		return compat.Waitall(rs, nil)
	}, append(sbs, rbs...)...)
	if req != nil || rc != C.MPI_SUCCESS {
		return rc
	}
	return abigo_Wait(&tmp, nil)
}

func uniformCounts(n, k int) []int {
	cs := make([]int, n)
	for i := range cs {
		cs[i] = k
	}
	return cs
}

// interCounts reads the local group's recvcounts of MPI_Reduce_scatter.
func interCounts(comm C.uintptr_t, call string, c *compat.Comm, rcounts *C.int, f func([]int) C.int) C.int {
	if rcounts == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "recvcounts is NULL")
	}
	return f(intsIn(rcounts, C.int(c.Size())))
}

func interReduceScatterBlock(sbuf, rbuf C.uintptr_t, rcount C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ireduce_scatter_block"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	return interReduceScatter(sbuf, rbuf, uniformCounts(o.c.Size(), int(rcount)), dtype, op, comm, req, call)
}

func interReduceScatterV(sbuf, rbuf C.uintptr_t, rcounts *C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ireduce_scatter"
	o, rc := commOf(comm, call)
	if o == nil {
		return rc
	}
	return interCounts(comm, call, o.c, rcounts, func(cs []int) C.int { return interReduceScatter(sbuf, rbuf, cs, dtype, op, comm, req, call) })
}
