package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
)

// The v forms and the scans of the nonblocking collectives (nbc.go).

// vslot is count instances of dt displ extents into b. An empty slot is
// empty wherever its displacement points (past b's end, as vBuf sized b
// by the slots that hold data).
func vslot(b []byte, dt compat.Datatype, displ, count int) []byte {
	if count == 0 {
		return b[:0]
	}
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
	if isInter(comm) {
		return interAllgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, req)
	}
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
	sched := &schedule{}
	r, err := sched.hostOut(r)
	if err != nil {
		return fail(comm, call, err)
	}
	var mine []byte
	if sbuf == 1 {
		mine = packed(vslot(r, rdt, ds[me], cs[me]), rdt, cs[me])
	} else {
		s, sdt, rc := msgBuf(comm, call, sbuf, scount, stype)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		if s, err = sched.hostIn(s); err != nil {
			return fail(comm, call, err)
		}
		mine = packed(s, sdt, int(scount))
	}
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, cs[i]*rdt.Size())
		out[i] = mine
	}
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
	if isInter(comm) {
		return interAlltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, req)
	}
	const call = "MPI_Ialltoallv"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	if sbuf == 1 { // MPI_IN_PLACE: what is sent is taken from rbuf first
		sbuf, scounts, sdispls, stype = rbuf, rcounts, rdispls, rtype
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
	sched := &schedule{}
	s, r, err := sched.stage(s, r)
	if err != nil {
		return fail(comm, call, err)
	}
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, rcs[i]*rdt.Size())
		out[i] = packed(vslot(s, sdt, sds[i], scs[i]), sdt, scs[i])
	}
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
	sched := &schedule{}
	rd, mine, r, rc := reduceSetup(sched, comm, call, sbuf, rbuf, count, dtype, op, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	n, me := c.Size(), c.Rank()
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, len(mine))
		out[i] = mine
	}
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
	if isInter(comm) {
		return failCode(comm, "MPI_Iscan", C.MPI_ERR_COMM, "MPI_Iscan on an intercommunicator")
	}
	return iscan("MPI_Iscan", sbuf, rbuf, count, dtype, op, comm, req, false)
}

//export abigo_Iexscan
func abigo_Iexscan(sbuf, rbuf C.uintptr_t, count C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return failCode(comm, "MPI_Iexscan", C.MPI_ERR_COMM, "MPI_Iexscan on an intercommunicator")
	}
	return iscan("MPI_Iexscan", sbuf, rbuf, count, dtype, op, comm, req, true)
}

//export abigo_Igatherv
func abigo_Igatherv(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcounts, displs *C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interGatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, req)
	}
	const call = "MPI_Igatherv"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me, rt := c.Size(), c.Rank(), int(root)
	if rt < 0 || rt >= n {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of %d", rt, n)
	}
	sched := &schedule{}
	var mine []byte
	if sbuf != 1 {
		s, sdt, rc := msgBuf(comm, call, sbuf, scount, stype)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		s, err := sched.hostIn(s)
		if err != nil {
			return fail(comm, call, err)
		}
		mine = packed(s, sdt, int(scount))
	}
	if me != rt {
		sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
			q, err := nbSend(c, mine, rt, tag)
			return []*compat.Request{q}, err
		})
		return startNBC(comm, call, sched, req)
	}
	cs, ds, rc := countsIn(comm, call, n, rcounts, displs)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, rdt, rc := vBuf(comm, call, rbuf, cs, ds, rtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, err := sched.hostOut(r)
	if err != nil {
		return fail(comm, call, err)
	}
	in := make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, cs[i]*rdt.Size())
	}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, nil, in) })
	sched.finish = func() error {
		for i := range in {
			if i == rt {
				if sbuf == 1 {
					continue
				}
				copy(in[i], mine)
			}
			unpack(vslot(r, rdt, ds[i], cs[i]), rdt, cs[i], in[i])
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Iscatterv
func abigo_Iscatterv(sbuf C.uintptr_t, scounts, displs *C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interScatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, req)
	}
	const call = "MPI_Iscatterv"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me, rt := c.Size(), c.Rank(), int(root)
	if rt < 0 || rt >= n {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of %d", rt, n)
	}
	var r []byte
	rdt, _ := typeOf(rtype, true)
	sched := &schedule{}
	if rbuf != 1 {
		if r, rdt, rc = msgBuf(comm, call, rbuf, rcount, rtype); rc != C.MPI_SUCCESS {
			return rc
		}
		var err error
		if r, err = sched.hostOut(r); err != nil {
			return fail(comm, call, err)
		}
	}
	mine := make([]byte, int(rcount)*rdt.Size())
	if me != rt {
		sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
			q, err := nbRecv(c, mine, rt, tag)
			return []*compat.Request{q}, err
		})
	} else {
		cs, ds, rc := countsIn(comm, call, n, scounts, displs)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		s, sdt, rc := vBuf(comm, call, sbuf, cs, ds, stype)
		if rc != C.MPI_SUCCESS {
			return rc
		}
		s, err := sched.hostIn(s)
		if err != nil {
			return fail(comm, call, err)
		}
		sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
			out := make([][]byte, n)
			for i := range out {
				out[i] = packed(vslot(s, sdt, ds[i], cs[i]), sdt, cs[i])
			}
			copy(mine, out[rt])
			return exchange(c, tag, out, nil)
		})
	}
	sched.finish = func() error {
		if rbuf != 1 {
			unpack(r, rdt, int(rcount), mine)
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

// ireduceScatter reduces every member's full vector at every member and
// keeps this member's block (counts[i] instances for member i).
func ireduceScatter(call string, sbuf, rbuf C.uintptr_t, counts []int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me := c.Size(), c.Rank()
	total, before := 0, 0
	for i, k := range counts {
		if k < 0 {
			return failCode(comm, call, C.MPI_ERR_COUNT, "count %d for rank %d", k, i)
		}
		if i < me {
			before += k
		}
		total += k
	}
	// The input is total instances (in place: in the receive buffer); the
	// result is this member's counts[me] of them.
	var in C.uintptr_t = sbuf
	if sbuf == 1 {
		in = rbuf
	}
	sched := &schedule{}
	rd, mine, _, rc := reduceSetup(sched, comm, call, in, 0, C.int(total), dtype, op, false)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, _, rc := msgBuf(comm, call, rbuf, C.int(counts[me]), dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	r, err := sched.hostOut(r)
	if err != nil {
		return fail(comm, call, err)
	}
	all, out := make([][]byte, n), make([][]byte, n)
	for i := range all {
		all[i] = make([]byte, len(mine))
		out[i] = mine
	}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, all) })
	sched.finish = func() error {
		all[me] = mine
		if err := rd.fold(all); err != nil {
			return err
		}
		sz := rd.dt.Size()
		unpack(r, rd.dt, counts[me], rd.result[before*sz:(before+counts[me])*sz])
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Ireduce_scatter_block
func abigo_Ireduce_scatter_block(sbuf, rbuf C.uintptr_t, rcount C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interReduceScatterBlock(sbuf, rbuf, rcount, dtype, op, comm, req)
	}
	o, rc := commOf(comm, "MPI_Ireduce_scatter_block")
	if o == nil {
		return rc
	}
	counts := make([]int, o.c.Size())
	for i := range counts {
		counts[i] = int(rcount)
	}
	return ireduceScatter("MPI_Ireduce_scatter_block", sbuf, rbuf, counts, dtype, op, comm, req)
}

//export abigo_Ireduce_scatter
func abigo_Ireduce_scatter(sbuf, rbuf C.uintptr_t, rcounts *C.int, dtype, op, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interReduceScatterV(sbuf, rbuf, rcounts, dtype, op, comm, req)
	}
	o, rc := commOf(comm, "MPI_Ireduce_scatter")
	if o == nil {
		return rc
	}
	if rcounts == nil {
		return failCode(comm, "MPI_Ireduce_scatter", C.MPI_ERR_ARG, "recvcounts is NULL")
	}
	return ireduceScatter("MPI_Ireduce_scatter", sbuf, rbuf, intsIn(rcounts, C.int(o.c.Size())), dtype, op, comm, req)
}

// alltoallw is MPI_Alltoallw's schedule: per-member counts, byte
// displacements and datatypes on both sides.
func alltoallw(call string, sbuf C.uintptr_t, scounts, sdispls *C.int, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtypes *C.uintptr_t, comm C.uintptr_t) (*schedule, C.int) {
	_, c, tag, rc := nbcArgs(comm, call, new(C.uintptr_t))
	if c == nil {
		return nil, rc
	}
	if sbuf == 1 { // MPI_IN_PLACE: what is sent is taken from rbuf first
		sbuf, scounts, sdispls, stypes = rbuf, rcounts, rdispls, rtypes
	}
	n, me := c.Size(), c.Rank()
	scs, sds, rc := countsIn(comm, call, n, scounts, sdispls)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	rcs, rds, rc := countsIn(comm, call, n, rcounts, rdispls)
	if rc != C.MPI_SUCCESS {
		return nil, rc
	}
	if stypes == nil || rtypes == nil {
		return nil, failCode(comm, call, C.MPI_ERR_ARG, "datatype arrays are NULL")
	}
	sts, rts := reqArray(C.int(n), stypes), reqArray(C.int(n), rtypes)
	sched := &schedule{}
	in, out := make([][]byte, n), make([][]byte, n)
	rdts, rbs := make([]compat.Datatype, n), make([][]byte, n)
	for i := range n {
		sdt, ok1 := typeOf(sts[i], true)
		rdt, ok2 := typeOf(rts[i], true)
		if !ok1 || !ok2 {
			return nil, failCode(comm, call, C.MPI_ERR_TYPE, "datatype for rank %d", i)
		}
		sb, ok1 := tbuf(sbuf+C.uintptr_t(sds[i]), sdt, scs[i])
		rb, ok2 := tbuf(rbuf+C.uintptr_t(rds[i]), rdt, rcs[i])
		if !ok1 || !ok2 {
			return nil, failCode(comm, call, C.MPI_ERR_BUFFER, "buffer for rank %d", i)
		}
		// Block by block: with byte displacements from MPI_BOTTOM the
		// blocks may lie in different allocations, some on the device.
		sb, rb, err := sched.stage(sb, rb)
		if err != nil {
			return nil, fail(comm, call, err)
		}
		out[i] = packed(sb, sdt, scs[i])
		in[i] = make([]byte, rcs[i]*rdt.Size())
		rdts[i], rbs[i] = rdt, rb
	}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, in) })
	sched.finish = func() error {
		copy(in[me], out[me])
		for i := range in {
			unpack(rbs[i], rdts[i], rcs[i], in[i])
		}
		return nil
	}
	return sched, C.MPI_SUCCESS
}

//export abigo_Ialltoallw
func abigo_Ialltoallw(sbuf C.uintptr_t, scounts, sdispls *C.int, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtypes *C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interAlltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, req)
	}
	if req == nil {
		return failCode(comm, "MPI_Ialltoallw", C.MPI_ERR_ARG, "request is NULL")
	}
	s, rc := alltoallw("MPI_Ialltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	if s == nil {
		return rc
	}
	return startNBC(comm, "MPI_Ialltoallw", s, req)
}

//export abigo_Alltoallw
func abigo_Alltoallw(sbuf C.uintptr_t, scounts, sdispls *C.int, stypes *C.uintptr_t, rbuf C.uintptr_t, rcounts, rdispls *C.int, rtypes *C.uintptr_t, comm C.uintptr_t) C.int {
	if isInter(comm) {
		return interAlltoallw(sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm, nil)
	}
	s, rc := alltoallw("MPI_Alltoallw", sbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, comm)
	if s == nil {
		return rc
	}
	if _, err := s.wait(); err != nil {
		return fail(comm, "MPI_Alltoallw", err)
	}
	return C.MPI_SUCCESS
}
