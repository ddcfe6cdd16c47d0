package main

/*
#include "abi.h"
*/
import "C"

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpitype"
)

// Nonblocking collectives (MPI_Ibarrier, MPI_Iallreduce, ...) as
// schedules: rounds of compat point-to-point operations on a private
// duplicate of the communicator, each round starting when the previous
// one's operations have completed, with local work (packing, reducing,
// unpacking) between rounds. A schedule moves on whenever its request is
// tested or waited on, or another request is waited on with it (request.go),
// as compat's own progress happens only inside calls. Each member runs
// the same collectives in the same order (MPI's rule), so a collective's
// sequence number is the same everywhere and serves as its tag.
//
// The algorithms are the simple ones (linear to and from the root, a
// dissemination barrier): correct for any size, not tuned.

// schedule is a nonblocking collective in progress.
type schedule struct {
	rounds []func() ([]*compat.Request, error) // each does its local work, then starts its operations
	finish func() error                        // local work after the last round
	cur    []*compat.Request
	next   int
	done   bool
	err    error
	status *compat.Status // what the request reports; nil: an empty status
	back   []stagedBuf    // device receive buffers written back after finish (nbcdev.go)
}

// advance runs rounds whose predecessors have completed.
func (s *schedule) advance() {
	for !s.done {
		for _, r := range s.cur {
			ok, _, err := r.Test()
			if err != nil {
				s.done, s.err = true, err
				return
			}
			if !ok {
				return
			}
		}
		if s.next == len(s.rounds) {
			if s.finish != nil {
				s.err = s.finish()
			}
			if s.err == nil && len(s.back) > 0 {
				s.err = s.writeBack()
			}
			s.done = true
			return
		}
		s.cur, s.err = s.rounds[s.next]()
		s.next++
		if s.err != nil {
			s.done = true
		}
	}
}

// status is what a completed collective reports: an empty status.
var collStatus = compat.Status{Source: compat.AnySource, Tag: compat.AnyTag}

func (s *schedule) st() compat.Status {
	if s.status != nil {
		return *s.status
	}
	return collStatus
}

func (s *schedule) test() (bool, compat.Status, error) {
	s.advance()
	return s.done, s.st(), s.err
}

func (s *schedule) wait() (compat.Status, error) {
	for s.advance(); !s.done; s.advance() {
		if err := compat.Waitall(s.cur, nil); err != nil && compat.ClassOf(err) == compat.ClassOther {
			return s.st(), err
		}
	}
	return s.st(), s.err
}

// nbcComm returns the private communicator of o's nonblocking collectives
// and the tag of the next one. The duplicate is made at the first one,
// which every member reaches in the same order.
func nbcComm(o *commObj) (*compat.Comm, int, error) {
	if o.nbc == nil {
		d, err := o.c.Dup()
		if err != nil {
			return nil, 0, err
		}
		o.nbc = d
	}
	o.nbcSeq++
	return o.nbc, int(o.nbcSeq % compat.TagUB), nil
}

// packed copies count instances of dt at b into contiguous bytes.
func packed(b []byte, dt compat.Datatype, count int) []byte {
	out := make([]byte, count*dt.Size())
	mpitype.MapOf(dt).Pack(out, b, count)
	return out
}

func unpack(dst []byte, dt compat.Datatype, count int, src []byte) {
	mpitype.MapOf(dt).Unpack(dst, src, count)
}

func nbSend(c *compat.Comm, b []byte, to, tag int) (*compat.Request, error) {
	return compat.Isend(c, b, len(b), compat.Byte, to, tag)
}

func nbRecv(c *compat.Comm, b []byte, from, tag int) (*compat.Request, error) {
	return compat.Irecv(c, b, len(b), compat.Byte, from, tag)
}

// startNBC starts a schedule for comm and stores its request.
func startNBC(comm C.uintptr_t, call string, s *schedule, req *C.uintptr_t) C.int {
	s.advance()
	if s.done && s.err != nil {
		return fail(comm, call, s.err)
	}
	h, _ := newHandle(C.ABI_KIND_REQUEST, &reqObj{sched: s, owner: comm, kind: C.ABI_KIND_COMM})
	*req = C.uintptr_t(h)
	return C.MPI_SUCCESS
}

func nbcArgs(comm C.uintptr_t, call string, req *C.uintptr_t) (*commObj, *compat.Comm, int, C.int) {
	o, rc := commOf(comm, call)
	if o == nil {
		return nil, nil, 0, rc
	}
	if req == nil {
		return nil, nil, 0, failCode(comm, call, C.MPI_ERR_ARG, "request is NULL")
	}
	c, tag, err := nbcComm(o)
	if err != nil {
		return nil, nil, 0, fail(comm, call, err)
	}
	return o, c, tag, C.MPI_SUCCESS
}

//export abigo_Ibarrier
func abigo_Ibarrier(comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interBarrier(comm, req)
	}
	_, c, tag, rc := nbcArgs(comm, "MPI_Ibarrier", req)
	if c == nil {
		return rc
	}
	n, me := c.Size(), c.Rank()
	s := &schedule{}
	for k := 1; k < n; k <<= 1 { // dissemination: round k talks to rank +-k
		k := k
		s.rounds = append(s.rounds, func() ([]*compat.Request, error) {
			r1, err := nbRecv(c, []byte{}, (me-k+n)%n, tag)
			if err != nil {
				return nil, err
			}
			r2, err := nbSend(c, []byte{}, (me+k)%n, tag)
			return []*compat.Request{r1, r2}, err
		})
	}
	return startNBC(comm, "MPI_Ibarrier", s, req)
}

//export abigo_Ibcast
func abigo_Ibcast(buf C.uintptr_t, count C.int, dtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interBcast(buf, count, dtype, root, comm, req)
	}
	const call = "MPI_Ibcast"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	b, dt, rc := msgBuf(comm, call, buf, count, dtype)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	if root < 0 || int(root) >= c.Size() {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of %d", int(root), c.Size())
	}
	s := &schedule{}
	var err error
	if int(root) == c.Rank() { // the root only reads b; the others only write it
		b, err = s.hostIn(b)
	} else {
		b, err = s.hostOut(b)
	}
	if err != nil {
		return fail(comm, call, err)
	}
	s.rounds = append(s.rounds, bcastRound(c, tag, int(root), b, dt, int(count), s)...)
	return startNBC(comm, call, s, req)
}

// bcastRound sends root's count instances at b to every member, which
// unpack them into b when the schedule finishes.
func bcastRound(c *compat.Comm, tag, root int, b []byte, dt compat.Datatype, count int, s *schedule) []func() ([]*compat.Request, error) {
	me := c.Rank()
	return []func() ([]*compat.Request, error){func() ([]*compat.Request, error) {
		if me == root {
			data := packed(b, dt, count)
			var rs []*compat.Request
			for i := range c.Size() {
				if i != root {
					r, err := nbSend(c, data, i, tag)
					if err != nil {
						return rs, err
					}
					rs = append(rs, r)
				}
			}
			return rs, nil
		}
		tmp := make([]byte, count*dt.Size())
		prev := s.finish
		s.finish = func() error {
			if prev != nil {
				if err := prev(); err != nil {
					return err
				}
			}
			unpack(b, dt, count, tmp)
			return nil
		}
		r, err := nbRecv(c, tmp, root, tag)
		return []*compat.Request{r}, err
	}}
}

// reduction is what Ireduce and Iallreduce fold: each member's packed
// contribution, combined in rank order with a predefined or a user op.
type reduction struct {
	op     compat.Op
	user   *userOp
	dtype  C.uintptr_t
	dt     compat.Datatype
	count  int
	result []byte // packed, at the root once folded
}

// fold combines contributions (by rank) into x0 op (x1 op (... op xn-1)).
func (rd *reduction) fold(parts [][]byte) error {
	acc := append([]byte(nil), parts[len(parts)-1]...)
	for i := len(parts) - 2; i >= 0; i-- {
		if rd.user != nil {
			rd.user.apply(parts[i], acc, rd.count, rd.dtype, rd.dt)
		} else { // packed elements of the basic type, the op checked by reduceSetup
			mpitype.Reduce(rd.dt.Basic(), rd.op, acc, parts[i])
		}
	}
	rd.result = acc
	return nil
}

// reduceSetup checks a reduction's arguments and packs this member's
// contribution (from the receive buffer with MPI_IN_PLACE). The receive
// buffer it returns is where s's finish writes the result (a host copy of
// device memory, written back after).
func reduceSetup(s *schedule, comm C.uintptr_t, call string, sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, recvUsed bool) (*reduction, []byte, []byte, C.int) {
	rd := &reduction{dtype: dtype, count: int(count)}
	if u, ok := userOpOf(op); ok {
		rd.user = u
	} else if o, ok := opOf(op); ok {
		rd.op = o
	} else {
		return nil, nil, nil, failCode(comm, call, C.MPI_ERR_OP, "invalid op")
	}
	dt, ok := typeOf(dtype, true)
	if !ok {
		return nil, nil, nil, failCode(comm, call, C.MPI_ERR_TYPE, "invalid or uncommitted datatype")
	}
	rd.dt = dt
	if rd.user == nil {
		if err := compat.ReduceLocal([]byte{}, []byte{}, 0, dt, rd.op); err != nil {
			return nil, nil, nil, fail(comm, call, err)
		}
	}
	var r []byte
	if recvUsed || rbuf >= minAddr {
		var rc C.int
		if r, _, rc = msgBuf(comm, call, rbuf, count, dtype); rc != C.MPI_SUCCESS {
			return nil, nil, nil, rc
		}
	}
	src := r
	if sbuf != 1 {
		b, _, rc := msgBuf(comm, call, sbuf, count, dtype)
		if rc != C.MPI_SUCCESS {
			return nil, nil, nil, rc
		}
		src = b
	} else if src == nil {
		return nil, nil, nil, failCode(comm, call, C.MPI_ERR_BUFFER, "MPI_IN_PLACE without a receive buffer")
	}
	var err error
	if recvUsed {
		if r, err = s.hostOut(r); err != nil {
			return nil, nil, nil, fail(comm, call, err)
		}
	}
	if sbuf != 1 || !recvUsed { // in place with the result here: r is the input, already staged
		if src, err = s.hostIn(src); err != nil {
			return nil, nil, nil, fail(comm, call, err)
		}
	} else {
		src = r
	}
	return rd, packed(src, dt, int(count)), r, C.MPI_SUCCESS
}

func ireduce(call string, sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, root int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	all := root < 0
	if all {
		root = 0
	}
	if root >= c.Size() {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of %d", root, c.Size())
	}
	me := c.Rank()
	s := &schedule{}
	rd, mine, r, rc := reduceSetup(s, comm, call, sbuf, rbuf, count, dtype, op, all || me == root)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	// Round one: the members' contributions go to the root.
	var recv [][]byte
	s.rounds = append(s.rounds, func() ([]*compat.Request, error) {
		if me != root {
			r, err := nbSend(c, mine, root, tag)
			return []*compat.Request{r}, err
		}
		recv = make([][]byte, c.Size())
		var rs []*compat.Request
		for i := range recv {
			if i == root {
				recv[i] = mine
				continue
			}
			recv[i] = make([]byte, len(mine))
			q, err := nbRecv(c, recv[i], i, tag)
			if err != nil {
				return rs, err
			}
			rs = append(rs, q)
		}
		return rs, nil
	})
	if all {
		// Round two: the root folds and sends the result to every member.
		result := make([]byte, len(mine))
		s.rounds = append(s.rounds, func() ([]*compat.Request, error) {
			if me != root {
				q, err := nbRecv(c, result, root, tag)
				return []*compat.Request{q}, err
			}
			if err := rd.fold(recv); err != nil {
				return nil, err
			}
			copy(result, rd.result)
			var rs []*compat.Request
			for i := range c.Size() {
				if i != root {
					q, err := nbSend(c, result, i, tag)
					if err != nil {
						return rs, err
					}
					rs = append(rs, q)
				}
			}
			return rs, nil
		})
		s.finish = func() error { unpack(r, rd.dt, rd.count, result); return nil }
	} else {
		s.finish = func() error {
			if me != root {
				return nil
			}
			if err := rd.fold(recv); err != nil {
				return err
			}
			unpack(r, rd.dt, rd.count, rd.result)
			return nil
		}
	}
	return startNBC(comm, call, s, req)
}

//export abigo_Ireduce
func abigo_Ireduce(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interReduce(sbuf, rbuf, count, dtype, op, root, comm, req)
	}
	if root < 0 {
		return failCode(comm, "MPI_Ireduce", C.MPI_ERR_ROOT, "root %d", int(root))
	}
	return ireduce("MPI_Ireduce", sbuf, rbuf, count, dtype, op, int(root), comm, req)
}

//export abigo_Iallreduce
func abigo_Iallreduce(sbuf, rbuf C.uintptr_t, count C.int, dtype, op C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interAllreduce(sbuf, rbuf, count, dtype, op, comm, req)
	}
	return ireduce("MPI_Iallreduce", sbuf, rbuf, count, dtype, op, -1, comm, req)
}

// slot is instance block i of count instances of dt in b.
func slot(b []byte, dt compat.Datatype, i, count int) []byte {
	off := i * count * dt.Extent()
	return b[off : off+span(dt, count)]
}

// exchange is one round in which this member sends out[i] to member i
// and receives into in[i] from member i, for every member with a non-nil
// slice (its own excluded).
func exchange(c *compat.Comm, tag int, out, in [][]byte) ([]*compat.Request, error) {
	var rs []*compat.Request
	me := c.Rank()
	for i := range c.Size() {
		if i == me {
			continue
		}
		if in != nil && in[i] != nil {
			r, err := nbRecv(c, in[i], i, tag)
			if err != nil {
				return rs, err
			}
			rs = append(rs, r)
		}
		if out != nil && out[i] != nil {
			r, err := nbSend(c, out[i], i, tag)
			if err != nil {
				return rs, err
			}
			rs = append(rs, r)
		}
	}
	return rs, nil
}

// blockArgs checks the two buffers of a gather, scatter, allgather or
// alltoall: the send side (count instances, or per member blocks when
// sBlocks) and the receive side.
func blockArgs(comm C.uintptr_t, call string, n int, sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, sBlocks, sUsed bool,
	rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, rBlocks, rUsed bool) (s []byte, sdt compat.Datatype, r []byte, rdt compat.Datatype, rc C.int) {
	side := func(buf C.uintptr_t, count C.int, dtype C.uintptr_t, blocks, used bool) ([]byte, compat.Datatype, C.int) {
		if !used || buf == 1 { // not significant here, or MPI_IN_PLACE
			dt, _ := typeOf(dtype, true)
			return nil, dt, C.MPI_SUCCESS
		}
		if blocks {
			count *= C.int(n)
		}
		return msgBuf(comm, call, buf, count, dtype)
	}
	if s, sdt, rc = side(sbuf, scount, stype, sBlocks, sUsed); rc != C.MPI_SUCCESS {
		return
	}
	r, rdt, rc = side(rbuf, rcount, rtype, rBlocks, rUsed)
	return
}

//export abigo_Igather
func abigo_Igather(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interGather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req)
	}
	const call = "MPI_Igather"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me, rt := c.Size(), c.Rank(), int(root)
	if rt < 0 || rt >= n {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of %d", rt, n)
	}
	s, sdt, r, rdt, rc := blockArgs(comm, call, n, sbuf, scount, stype, false, true, rbuf, rcount, rtype, true, me == rt)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	sched := &schedule{}
	s, r, err := sched.stage(s, r)
	if err != nil {
		return fail(comm, call, err)
	}
	var mine []byte
	if sbuf != 1 {
		mine = packed(s, sdt, int(scount))
	}
	in := make([][]byte, n)
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
		if me != rt {
			q, err := nbSend(c, mine, rt, tag)
			return []*compat.Request{q}, err
		}
		for i := range in {
			in[i] = make([]byte, int(rcount)*rdt.Size())
		}
		return exchange(c, tag, nil, in)
	})
	sched.finish = func() error {
		if me != rt {
			return nil
		}
		for i := range in {
			if i == rt && sbuf == 1 {
				continue
			}
			if i == rt {
				copy(in[i], mine)
			}
			unpack(slot(r, rdt, i, int(rcount)), rdt, int(rcount), in[i])
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Iscatter
func abigo_Iscatter(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, root C.int, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interScatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req)
	}
	const call = "MPI_Iscatter"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me, rt := c.Size(), c.Rank(), int(root)
	if rt < 0 || rt >= n {
		return failCode(comm, call, C.MPI_ERR_ROOT, "root %d of %d", rt, n)
	}
	s, sdt, r, rdt, rc := blockArgs(comm, call, n, sbuf, scount, stype, true, me == rt, rbuf, rcount, rtype, false, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	sched := &schedule{}
	s, r, err := sched.stage(s, r)
	if err != nil {
		return fail(comm, call, err)
	}
	mine := make([]byte, int(rcount)*rdt.Size())
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) {
		if me != rt {
			q, err := nbRecv(c, mine, rt, tag)
			return []*compat.Request{q}, err
		}
		out := make([][]byte, n)
		for i := range out {
			out[i] = packed(slot(s, sdt, i, int(scount)), sdt, int(scount))
		}
		copy(mine, out[rt])
		return exchange(c, tag, out, nil)
	})
	sched.finish = func() error {
		if rbuf != 1 {
			unpack(r, rdt, int(rcount), mine)
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Iallgather
func abigo_Iallgather(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interAllgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req)
	}
	const call = "MPI_Iallgather"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	n, me := c.Size(), c.Rank()
	s, sdt, r, rdt, rc := blockArgs(comm, call, n, sbuf, scount, stype, false, true, rbuf, rcount, rtype, true, true)
	if rc != C.MPI_SUCCESS {
		return rc
	}
	sched := &schedule{}
	s, r, err := sched.stage(s, r)
	if err != nil {
		return fail(comm, call, err)
	}
	var mine []byte
	if sbuf == 1 { // in place: this member's block is already in rbuf
		mine = packed(slot(r, rdt, me, int(rcount)), rdt, int(rcount))
	} else {
		mine = packed(s, sdt, int(scount))
	}
	in, out := make([][]byte, n), make([][]byte, n)
	for i := range in {
		in[i] = make([]byte, int(rcount)*rdt.Size())
		out[i] = mine
	}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, in) })
	sched.finish = func() error {
		copy(in[me], mine)
		for i := range in {
			unpack(slot(r, rdt, i, int(rcount)), rdt, int(rcount), in[i])
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}

//export abigo_Ialltoall
func abigo_Ialltoall(sbuf C.uintptr_t, scount C.int, stype C.uintptr_t, rbuf C.uintptr_t, rcount C.int, rtype C.uintptr_t, comm C.uintptr_t, req *C.uintptr_t) C.int {
	if isInter(comm) {
		return interAlltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req)
	}
	const call = "MPI_Ialltoall"
	_, c, tag, rc := nbcArgs(comm, call, req)
	if c == nil {
		return rc
	}
	if sbuf == 1 { // MPI_IN_PLACE: what is sent is taken from rbuf first
		sbuf, scount, stype = rbuf, rcount, rtype
	}
	n, me := c.Size(), c.Rank()
	s, sdt, r, rdt, rc := blockArgs(comm, call, n, sbuf, scount, stype, true, true, rbuf, rcount, rtype, true, true)
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
		in[i] = make([]byte, int(rcount)*rdt.Size())
		out[i] = packed(slot(s, sdt, i, int(scount)), sdt, int(scount))
	}
	sched.rounds = append(sched.rounds, func() ([]*compat.Request, error) { return exchange(c, tag, out, in) })
	sched.finish = func() error {
		copy(in[me], out[me])
		for i := range in {
			unpack(slot(r, rdt, i, int(rcount)), rdt, int(rcount), in[i])
		}
		return nil
	}
	return startNBC(comm, call, sched, req)
}
