package main

/*
#include "abi.h"
*/
import "C"

import (
	"math"
	"unsafe"
)

// The large-count forms of the v and w collectives (MPI_Allgatherv_c,
// ...), blocking, nonblocking and persistent: each reads its MPI_Count
// counts and MPI_Aint displacements once, checks that every one fits the
// int the shared body works in (MPI_ERR_COUNT past INT_MAX: a block of
// more than 2^31 instances per rank), and runs the int form's body. The
// arrays are a communicator's size long.

// narrowed is an array of the int form's width built from a _c form's.
type narrowed struct{ v []C.int }

func (n narrowed) ptr() *C.int {
	if n.v == nil {
		return nil
	}
	return &n.v[0]
}

// narrow reads n values at p (nil for NULL) as ints.
func narrow[T C.MPI_Aint](p *T, n int) (narrowed, bool) {
	if p == nil {
		return narrowed{}, true
	}
	out := make([]C.int, max(n, 1))
	for i, x := range unsafe.Slice(p, n) {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return narrowed{}, false
		}
		out[i] = C.int(x)
	}
	return narrowed{out}, true
}

// cArgs narrows the scalar counts and the arrays of a _c collective.
type cArgs struct {
	call string
	comm C.uintptr_t
	n    int
	rc   C.int
}

func newCArgs(call string, comm C.uintptr_t) *cArgs {
	a := &cArgs{call: call, comm: comm, rc: C.MPI_SUCCESS}
	o, rc := commOf(comm, call)
	if o == nil {
		a.rc = rc
		return a
	}
	a.n = o.c.Size()
	return a
}

func (a *cArgs) bad(what string) {
	if a.rc == C.MPI_SUCCESS {
		a.rc = failCode(a.comm, a.call, C.MPI_ERR_COUNT, "%s past INT_MAX", what)
	}
}

func (a *cArgs) count(v C.MPI_Count) C.int {
	if v < math.MinInt32 || v > math.MaxInt32 {
		a.bad("a count")
		return 0
	}
	return C.int(v)
}

func (a *cArgs) arr(p *C.MPI_Aint, what string) *C.int {
	if a.rc != C.MPI_SUCCESS {
		return nil
	}
	v, ok := narrow(p, a.n)
	if !ok {
		a.bad(what)
	}
	return v.ptr()
}

//export abigo_Allgatherv_c
func abigo_Allgatherv_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts, displs *C.MPI_Aint, rtype, comm C.uintptr_t) C.int {
	a := newCArgs("MPI_Allgatherv_c", comm)
	sc, rc, ds := a.count(scount), a.arr(rcounts, "recvcounts"), a.arr(displs, "displs")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Allgatherv(sbuf, sc, stype, rbuf, rc, ds, rtype, comm)
}

//export abigo_Iallgatherv_c
func abigo_Iallgatherv_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts, displs *C.MPI_Aint, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Iallgatherv_c", comm)
	sc, rc, ds := a.count(scount), a.arr(rcounts, "recvcounts"), a.arr(displs, "displs")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Iallgatherv(sbuf, sc, stype, rbuf, rc, ds, rtype, comm, req)
}

//export abigo_Allgatherv_init_c
func abigo_Allgatherv_init_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts, displs *C.MPI_Aint, rtype, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Allgatherv_init_c", comm)
	sc, rc, ds := a.count(scount), a.arr(rcounts, "recvcounts"), a.arr(displs, "displs")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Allgatherv_init(sbuf, sc, stype, rbuf, rc, ds, rtype, comm, info, req)
}

//export abigo_Gatherv_c
func abigo_Gatherv_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts, displs *C.MPI_Aint, rtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	a := newCArgs("MPI_Gatherv_c", comm)
	sc, rc, ds := a.count(scount), a.arr(rcounts, "recvcounts"), a.arr(displs, "displs")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Gatherv(sbuf, sc, stype, rbuf, rc, ds, rtype, root, comm)
}

//export abigo_Igatherv_c
func abigo_Igatherv_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts, displs *C.MPI_Aint, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Igatherv_c", comm)
	sc, rc, ds := a.count(scount), a.arr(rcounts, "recvcounts"), a.arr(displs, "displs")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Igatherv(sbuf, sc, stype, rbuf, rc, ds, rtype, root, comm, req)
}

//export abigo_Gatherv_init_c
func abigo_Gatherv_init_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts, displs *C.MPI_Aint, rtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Gatherv_init_c", comm)
	sc, rc, ds := a.count(scount), a.arr(rcounts, "recvcounts"), a.arr(displs, "displs")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Gatherv_init(sbuf, sc, stype, rbuf, rc, ds, rtype, root, comm, info, req)
}

//export abigo_Scatterv_c
func abigo_Scatterv_c(sbuf C.uintptr_t, scounts, displs *C.MPI_Aint, stype, rbuf C.uintptr_t, rcount C.MPI_Count, rtype C.uintptr_t, root C.int, comm C.uintptr_t) C.int {
	a := newCArgs("MPI_Scatterv_c", comm)
	sc, ds, rc := a.arr(scounts, "sendcounts"), a.arr(displs, "displs"), a.count(rcount)
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Scatterv(sbuf, sc, ds, stype, rbuf, rc, rtype, root, comm)
}

//export abigo_Iscatterv_c
func abigo_Iscatterv_c(sbuf C.uintptr_t, scounts, displs *C.MPI_Aint, stype, rbuf C.uintptr_t, rcount C.MPI_Count, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Iscatterv_c", comm)
	sc, ds, rc := a.arr(scounts, "sendcounts"), a.arr(displs, "displs"), a.count(rcount)
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Iscatterv(sbuf, sc, ds, stype, rbuf, rc, rtype, root, comm, req)
}

//export abigo_Scatterv_init_c
func abigo_Scatterv_init_c(sbuf C.uintptr_t, scounts, displs *C.MPI_Aint, stype, rbuf C.uintptr_t, rcount C.MPI_Count, rtype C.uintptr_t, root C.int, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Scatterv_init_c", comm)
	sc, ds, rc := a.arr(scounts, "sendcounts"), a.arr(displs, "displs"), a.count(rcount)
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Scatterv_init(sbuf, sc, ds, stype, rbuf, rc, rtype, root, comm, info, req)
}

//export abigo_Alltoallv_c
func abigo_Alltoallv_c(sbuf C.uintptr_t, scounts, sdispls *C.MPI_Aint, stype, rbuf C.uintptr_t, rcounts, rdispls *C.MPI_Aint, rtype, comm C.uintptr_t) C.int {
	a := newCArgs("MPI_Alltoallv_c", comm)
	sc, sd, rc, rd := a.arr(scounts, "sendcounts"), a.arr(sdispls, "sdispls"), a.arr(rcounts, "recvcounts"), a.arr(rdispls, "rdispls")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Alltoallv(sbuf, sc, sd, stype, rbuf, rc, rd, rtype, comm)
}

//export abigo_Ialltoallv_c
func abigo_Ialltoallv_c(sbuf C.uintptr_t, scounts, sdispls *C.MPI_Aint, stype, rbuf C.uintptr_t, rcounts, rdispls *C.MPI_Aint, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Ialltoallv_c", comm)
	sc, sd, rc, rd := a.arr(scounts, "sendcounts"), a.arr(sdispls, "sdispls"), a.arr(rcounts, "recvcounts"), a.arr(rdispls, "rdispls")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Ialltoallv(sbuf, sc, sd, stype, rbuf, rc, rd, rtype, comm, req)
}

//export abigo_Alltoallv_init_c
func abigo_Alltoallv_init_c(sbuf C.uintptr_t, scounts, sdispls *C.MPI_Aint, stype, rbuf C.uintptr_t, rcounts, rdispls *C.MPI_Aint, rtype, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Alltoallv_init_c", comm)
	sc, sd, rc, rd := a.arr(scounts, "sendcounts"), a.arr(sdispls, "sdispls"), a.arr(rcounts, "recvcounts"), a.arr(rdispls, "rdispls")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Alltoallv_init(sbuf, sc, sd, stype, rbuf, rc, rd, rtype, comm, info, req)
}

//export abigo_Alltoallw_c
func abigo_Alltoallw_c(sbuf C.uintptr_t, scounts, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t) C.int {
	a := newCArgs("MPI_Alltoallw_c", comm)
	sc, sd, rc, rd := a.arr(scounts, "sendcounts"), a.arr(sdispls, "sdispls"), a.arr(rcounts, "recvcounts"), a.arr(rdispls, "rdispls")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Alltoallw(sbuf, sc, sd, stypes, rbuf, rc, rd, rtypes, comm)
}

//export abigo_Ialltoallw_c
func abigo_Ialltoallw_c(sbuf C.uintptr_t, scounts, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Ialltoallw_c", comm)
	sc, sd, rc, rd := a.arr(scounts, "sendcounts"), a.arr(sdispls, "sdispls"), a.arr(rcounts, "recvcounts"), a.arr(rdispls, "rdispls")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Ialltoallw(sbuf, sc, sd, stypes, rbuf, rc, rd, rtypes, comm, req)
}

//export abigo_Alltoallw_init_c
func abigo_Alltoallw_init_c(sbuf C.uintptr_t, scounts, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Alltoallw_init_c", comm)
	sc, sd, rc, rd := a.arr(scounts, "sendcounts"), a.arr(sdispls, "sdispls"), a.arr(rcounts, "recvcounts"), a.arr(rdispls, "rdispls")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Alltoallw_init(sbuf, sc, sd, stypes, rbuf, rc, rd, rtypes, comm, info, req)
}

//export abigo_Reduce_scatter_c
func abigo_Reduce_scatter_c(sbuf, rbuf C.uintptr_t, rcounts *C.MPI_Aint, dtype, op, comm C.uintptr_t) C.int {
	a := newCArgs("MPI_Reduce_scatter_c", comm)
	rc := a.arr(rcounts, "recvcounts")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Reduce_scatter(sbuf, rbuf, rc, dtype, op, comm)
}

//export abigo_Ireduce_scatter_c
func abigo_Ireduce_scatter_c(sbuf, rbuf C.uintptr_t, rcounts *C.MPI_Aint, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Ireduce_scatter_c", comm)
	rc := a.arr(rcounts, "recvcounts")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Ireduce_scatter(sbuf, rbuf, rc, dtype, op, comm, req)
}

//export abigo_Reduce_scatter_init_c
func abigo_Reduce_scatter_init_c(sbuf, rbuf C.uintptr_t, rcounts *C.MPI_Aint, dtype, op, comm, info C.uintptr_t, req *C.uintptr_t) C.int {
	a := newCArgs("MPI_Reduce_scatter_init_c", comm)
	rc := a.arr(rcounts, "recvcounts")
	if a.rc != C.MPI_SUCCESS {
		return a.rc
	}
	return abigo_Reduce_scatter_init(sbuf, rbuf, rc, dtype, op, comm, info, req)
}
