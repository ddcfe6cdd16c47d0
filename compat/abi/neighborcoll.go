package main

/*
#include "abi.h"
*/
import "C"

import (
	"unsafe"
)

// The entry points of the neighborhood collectives: allgather(v) and
// alltoall(v/w), blocking, nonblocking (MPI_Ineighbor_*) and persistent
// (MPI_Neighbor_*_init, whose every start builds the schedule anew over
// the same arguments, as persistentColl does), with int counts or, in the
// _c forms, MPI_Count counts and MPI_Aint displacements. Each builds its
// blocks (neighbor.go) and hands them to neighborSchedule.

// cints reads the n C integers of an array argument as int64s; ok is
// false for a NULL array with n > 0.
func cints[T ~int32 | ~int64](p *T, n int) ([]int64, bool) {
	if n == 0 {
		return nil, true
	}
	if p == nil {
		return nil, false
	}
	out := make([]int64, n)
	for i, v := range unsafe.Slice(p, n) {
		out[i] = int64(v)
	}
	return out, true
}

// handles reads n datatype handles.
func handles(p *C.uintptr_t, n int) []C.uintptr_t {
	if n == 0 || p == nil {
		return nil
	}
	return append([]C.uintptr_t(nil), unsafe.Slice(p, n)...)
}

func arrays(comm C.uintptr_t, call string, oks ...bool) C.int {
	for _, ok := range oks {
		if !ok {
			return failCode(comm, call, C.MPI_ERR_ARG, "a counts or displacements array is NULL")
		}
	}
	return C.MPI_SUCCESS
}

// nbrAllgather: the same block to every out-neighbor, rcount from each
// in-neighbor.
func nbrAllgather(call string, sbuf C.uintptr_t, scount int64, stype, rbuf C.uintptr_t, rcount int64, rtype, comm C.uintptr_t, alltoall bool) (*schedule, C.int) {
	o, e, rc := neighborComm(comm, call)
	if o == nil {
		return nil, rc
	}
	s, rc := uniformBlocks(comm, call, sbuf, len(e.out), scount, stype, !alltoall)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	r, rc := uniformBlocks(comm, call, rbuf, len(e.in), rcount, rtype, false)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	return neighborSchedule(call, comm, o, e, s, r)
}

func nbrAllgatherv[T, U ~int32 | ~int64](call string, sbuf C.uintptr_t, scount int64, stype, rbuf C.uintptr_t, rcounts *T, displs *U, rtype, comm C.uintptr_t) (*schedule, C.int) {
	o, e, rc := neighborComm(comm, call)
	if o == nil {
		return nil, rc
	}
	s, rc := uniformBlocks(comm, call, sbuf, len(e.out), scount, stype, true)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	cs, ok1 := cints(rcounts, len(e.in))
	ds, ok2 := cints(displs, len(e.in))
	if rc := arrays(comm, call, ok1, ok2); rc != C.MPI_SUCCESS {
		return nil, rc
	}
	r, rc := vBlocks(comm, call, rbuf, cs, ds, rtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	return neighborSchedule(call, comm, o, e, s, r)
}

func nbrAlltoallv[T, U ~int32 | ~int64](call string, sbuf C.uintptr_t, scounts *T, sdispls *U, stype, rbuf C.uintptr_t, rcounts *T, rdispls *U, rtype, comm C.uintptr_t) (*schedule, C.int) {
	o, e, rc := neighborComm(comm, call)
	if o == nil {
		return nil, rc
	}
	scs, ok1 := cints(scounts, len(e.out))
	sds, ok2 := cints(sdispls, len(e.out))
	rcs, ok3 := cints(rcounts, len(e.in))
	rds, ok4 := cints(rdispls, len(e.in))
	if rc := arrays(comm, call, ok1, ok2, ok3, ok4); rc != C.MPI_SUCCESS {
		return nil, rc
	}
	s, rc := vBlocks(comm, call, sbuf, scs, sds, stype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	r, rc := vBlocks(comm, call, rbuf, rcs, rds, rtype)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	return neighborSchedule(call, comm, o, e, s, r)
}

func nbrAlltoallw[T ~int32 | ~int64](call string, sbuf C.uintptr_t, scounts *T, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *T, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t) (*schedule, C.int) {
	o, e, rc := neighborComm(comm, call)
	if o == nil {
		return nil, rc
	}
	scs, ok1 := cints(scounts, len(e.out))
	sds, ok2 := cints(sdispls, len(e.out))
	rcs, ok3 := cints(rcounts, len(e.in))
	rds, ok4 := cints(rdispls, len(e.in))
	if rc := arrays(comm, call, ok1, ok2, ok3, ok4, len(e.out) == 0 || stypes != nil, len(e.in) == 0 || rtypes != nil); rc != C.MPI_SUCCESS {
		return nil, rc
	}
	s, rc := wBlocks(comm, call, sbuf, scs, sds, handles(stypes, len(e.out)))
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	r, rc := wBlocks(comm, call, rbuf, rcs, rds, handles(rtypes, len(e.in)))
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	return neighborSchedule(call, comm, o, e, s, r)
}

func neighborBlocking(call string, s *schedule, rc C.int, comm C.uintptr_t) C.int {
	if s == nil {
		return rc
	}
	if _, err := s.wait(); err != nil {
		return fail(comm, call, err)
	}
	return C.MPI_SUCCESS
}

func neighborStart(call string, s *schedule, rc C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if s == nil {
		return rc
	}
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	return startNBC(comm, call, s, req)
}

// neighborInit makes a persistent neighborhood collective whose starts
// build the schedule with build.
func neighborInit(call string, comm, info C.uintptr_t, req *C.uintptr_t, build func() (*schedule, C.int)) C.int {
	return persistentColl(comm, info, call, req, func(r *C.uintptr_t) C.int {
		s, rc := build()
		return neighborStart(call, s, rc, comm, r)
	})
}

//export abigo_Neighbor_allgather
func abigo_Neighbor_allgather(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_allgather"
	s, rc := nbrAllgather(call, sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm, false)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_allgather
func abigo_Ineighbor_allgather(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_allgather"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAllgather(call, sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm, false)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_allgather_init
func abigo_Neighbor_allgather_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_allgather_init"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAllgather(call, sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm, false)
	})
}

//export abigo_Neighbor_alltoall
func abigo_Neighbor_alltoall(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoall"
	s, rc := nbrAllgather(call, sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm, true)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_alltoall
func abigo_Ineighbor_alltoall(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_alltoall"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAllgather(call, sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm, true)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_alltoall_init
func abigo_Neighbor_alltoall_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcount C.int, rtype, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoall_init"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAllgather(call, sbuf, int64(scount), stype, rbuf, int64(rcount), rtype, comm, true)
	})
}

//export abigo_Neighbor_allgatherv
func abigo_Neighbor_allgatherv(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcounts, displs *C.int, rtype, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_allgatherv"
	s, rc := nbrAllgatherv(call, sbuf, int64(scount), stype, rbuf, rcounts, displs, rtype, comm)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_allgatherv
func abigo_Ineighbor_allgatherv(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcounts, displs *C.int, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_allgatherv"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAllgatherv(call, sbuf, int64(scount), stype, rbuf, rcounts, displs, rtype, comm)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_allgatherv_init
func abigo_Neighbor_allgatherv_init(sbuf C.uintptr_t, scount C.int, stype, rbuf C.uintptr_t, rcounts, displs *C.int, rtype, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_allgatherv_init"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAllgatherv(call, sbuf, int64(scount), stype, rbuf, rcounts, displs, rtype, comm)
	})
}

//export abigo_Neighbor_allgatherv_c
func abigo_Neighbor_allgatherv_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts *C.MPI_Count, displs *C.MPI_Aint, rtype, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_allgatherv_c"
	s, rc := nbrAllgatherv(call, sbuf, int64(scount), stype, rbuf, rcounts, displs, rtype, comm)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_allgatherv_c
func abigo_Ineighbor_allgatherv_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts *C.MPI_Count, displs *C.MPI_Aint, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_allgatherv_c"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAllgatherv(call, sbuf, int64(scount), stype, rbuf, rcounts, displs, rtype, comm)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_allgatherv_init_c
func abigo_Neighbor_allgatherv_init_c(sbuf C.uintptr_t, scount C.MPI_Count, stype, rbuf C.uintptr_t, rcounts *C.MPI_Count, displs *C.MPI_Aint, rtype, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_allgatherv_init_c"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAllgatherv(call, sbuf, int64(scount), stype, rbuf, rcounts, displs, rtype, comm)
	})
}

//export abigo_Neighbor_alltoallv
func abigo_Neighbor_alltoallv(sbuf C.uintptr_t, scounts, sdispls *C.int, stype, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallv"
	s, rc := nbrAlltoallv(call, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_alltoallv
func abigo_Ineighbor_alltoallv(sbuf C.uintptr_t, scounts, sdispls *C.int, stype, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_alltoallv"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAlltoallv(call, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_alltoallv_init
func abigo_Neighbor_alltoallv_init(sbuf C.uintptr_t, scounts, sdispls *C.int, stype, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallv_init"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAlltoallv(call, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
	})
}

//export abigo_Neighbor_alltoallv_c
func abigo_Neighbor_alltoallv_c(sbuf C.uintptr_t, scounts *C.MPI_Count, sdispls *C.MPI_Aint, stype, rbuf C.uintptr_t, rcounts *C.MPI_Count, rdispls *C.MPI_Aint, rtype, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallv_c"
	s, rc := nbrAlltoallv(call, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_alltoallv_c
func abigo_Ineighbor_alltoallv_c(sbuf C.uintptr_t, scounts *C.MPI_Count, sdispls *C.MPI_Aint, stype, rbuf C.uintptr_t, rcounts *C.MPI_Count, rdispls *C.MPI_Aint, rtype, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_alltoallv_c"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAlltoallv(call, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_alltoallv_init_c
func abigo_Neighbor_alltoallv_init_c(sbuf C.uintptr_t, scounts *C.MPI_Count, sdispls *C.MPI_Aint, stype, rbuf C.uintptr_t, rcounts *C.MPI_Count, rdispls *C.MPI_Aint, rtype, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallv_init_c"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAlltoallv(call, sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm)
	})
}

//export abigo_Neighbor_alltoallw
func abigo_Neighbor_alltoallw(sbuf C.uintptr_t, scounts *C.int, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *C.int, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallw"
	s, rc := nbrAlltoallw(call, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_alltoallw
func abigo_Ineighbor_alltoallw(sbuf C.uintptr_t, scounts *C.int, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *C.int, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_alltoallw"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAlltoallw(call, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_alltoallw_init
func abigo_Neighbor_alltoallw_init(sbuf C.uintptr_t, scounts *C.int, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *C.int, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallw_init"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAlltoallw(call, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	})
}

//export abigo_Neighbor_alltoallw_c
func abigo_Neighbor_alltoallw_c(sbuf C.uintptr_t, scounts *C.MPI_Count, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *C.MPI_Count, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallw_c"
	s, rc := nbrAlltoallw(call, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	return neighborBlocking(call, s, rc, comm)
}

//export abigo_Ineighbor_alltoallw_c
func abigo_Ineighbor_alltoallw_c(sbuf C.uintptr_t, scounts *C.MPI_Count, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *C.MPI_Count, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ineighbor_alltoallw_c"
	if req == nil {
		return failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := nbrAlltoallw(call, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	return neighborStart(call, s, rc, comm, req)
}

//export abigo_Neighbor_alltoallw_init_c
func abigo_Neighbor_alltoallw_init_c(sbuf C.uintptr_t, scounts *C.MPI_Count, sdispls *C.MPI_Aint, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts *C.MPI_Count, rdispls *C.MPI_Aint, rtypes *C.uintptr_t, comm C.uintptr_t, info C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Neighbor_alltoallw_init_c"
	return neighborInit(call, comm, info, req, func() (*schedule, C.int) {
		return nbrAlltoallw(call, sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	})
}
