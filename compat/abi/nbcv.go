package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
)

// The v forms and the scans of the nonblocking collectives (nbc.go).

// vslot is count instances of dt displ extents into b.
func vslot(b []byte, dt compat.Datatype, displ, count int) []byte {
	off := displ * dt.Extent()
	return b[off : off+span(dt, count)]
}

func countsIn(comm C.uintptr_t, call string, n int, counts, displs *C.int) ([]int, []int, C.int) {
	if counts == nil || displs == nil {
		return nil, nil, failCode(comm, call, C.MPI_ERR_ARG, "counts or displacements are NULL")
	}
	cs, ds := intsIn(counts, C.int(n)), intsIn(displs, C.int(n))
	for i := range cs {
		if cs[i] < 0 || ds[i] < 0 {
			return nil, nil, failCode(comm, call, C.MPI_ERR_COUNT, "count %d at displacement %d for rank %d", cs[i], ds[i], i)
		}
	}
	return cs, ds, C.MPI_SUCCESS
}

//export abigo_Iallgatherv
func abigo_Iallgatherv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Iallgatherv"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me := c.Size(), c.Rank()
	cs, ds, rc := countsIn(comm, call, n, rcounts, displs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := vBuf(comm, call, rbuf, cs, ds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	var mine []byte
	if sbuf == 1 {
		mine = packed(vslot(r, rdt, ds[me], cs[me]), rdt, cs[me])
	} else {
		s, sdt, rc := msgBuf(comm, call, sbuf, scount, stype)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		mine = packed(s, sdt, int(scount))
	}
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, cs[i]*rdt.Size())
		out[i] = mine
	}
	sched := &schedule{}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, in) })
	sched.finish = func() error {
		copy(in[me], mine)
		for i := range in {
			unpack(vslot(r, rdt, ds[i], cs[i]), rdt, cs[i], in[i])
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Ialltoallv
func abigo_Ialltoallv(sbuf C.uintptr_t, scounts, sdispls *C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	const call = "MPI_Ialltoallv"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	if sbuf == 1 {
		return failCode(comm, call, C.MPI_ERR_UNSUPPORTED_OPERATION, "MPI_IN_PLACE")
	}
	n, me := c.Size(), c.Rank()
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
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, rcs[i]*rdt.Size())
		out[i] = packed(vslot(s, sdt, sds[i], scs[i]), sdt, scs[i])
	}
	sched := &schedule{}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, in) })
	sched.finish = func() error {
		copy(in[me], out[me])
		for i := range in {
			unpack(vslot(r, rdt, rds[i], rcs[i]), rdt, rcs[i], in[i])
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

// iscan gathers every member's contribution at every member and folds the
// ones up to this member (exclusive: below it).
func iscan(call string, sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t, exclusive bool) C.int {
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	rd, mine, r, rc := reduceSetup(comm, call, sbuf, rbuf, count, dtype, op, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n, me := c.Size(), c.Rank()
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, len(mine))
		out[i] = mine
	}
	sched := &schedule{}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, in) })
	sched.finish = func() error {
		in[me] = mine
		last := me
		if exclusive {
			last = me - 1
		}
		if last < 0 {
			return nil // MPI leaves rank 0's Exscan result undefined: untouched
		}
		if err := rd.fold(in[:last+1]); err != nil {
			return err
		}
		unpack(r, rd.dt, rd.count, rd.result)
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Iscan
func abigo_Iscan(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return iscan("MPI_Iscan", sbuf, rbuf, count, dtype, op, comm, req, false)
}

//export abigo_Iexscan
func abigo_Iexscan(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	return iscan("MPI_Iexscan", sbuf, rbuf, count, dtype, op, comm, req, true)
}
