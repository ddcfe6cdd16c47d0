package compat

import (
	"errors"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem"
)

// Collectives on shmem teams.
//
// A communicator made from CommWorld by Dup, Split or Create gets a shmem
// team with the same members in rank order (Team.SplitList), and Barrier,
// Bcast, Reduce, Allreduce, Allgather, Alltoall and ReduceScatterBlock on
// contiguous buffers run as the team's collectives, staged through a
// symmetric scratch area (same offset on every PE) in pieces of its size.
// Reductions go to the team when the type and op are OpenSHMEM's (integers
// and floats; SUM, PROD, MIN, MAX, BAND, BOR, BXOR); the rest, the v forms,
// Gather, Scatter and Scan use point-to-point algorithms. When the team
// limit (shmem.MaxTeams) is reached, new communicators get no team and use
// point-to-point for everything.
//
// A team collective waits inside shmem and does not make point-to-point
// progress. A PE that owes its peers progress (queued sends, posted
// receives a rendezvous may match, staged transfers) runs the team
// collective on a helper goroutine and makes progress until it returns;
// the choice is local and both ways run the same collective, so PEs may
// choose differently.

// teamRun runs f, a team collective, making point-to-point progress while
// it runs when this PE owes any.
func (c *Comm) teamRun(f func() error) error {
	if c.env.owesNoProgress() {
		return wrap(f(), "team collective")
	}
	return c.env.runMakingProgress(f)
}

// runMakingProgress runs f on a helper goroutine and makes point-to-point
// progress until it returns: teamRun's way for a PE that owes progress.
func (e *Env) runMakingProgress(f func() error) error {
	done := make(chan error, 1)
	var finished atomicFlag
	go func() {
		err := f()
		finished.set()
		e.wake()
		done <- err
	}()
	werr := e.waitFor(finished.get)
	err := <-done
	if err == nil {
		err = werr
	}
	return wrap(err, "team collective")
}

// owesNoProgress makes progress and reports whether no peer can be
// waiting for more of it from this PE.
func (e *Env) owesNoProgress() bool {
	e.mu.Lock()
	e.progress()
	busy := e.owesProgress()
	e.mu.Unlock()
	return !busy
}

// owesProgress reports whether a peer may be waiting for this PE to make
// progress. Called with mu held.
func (e *Env) owesProgress() bool {
	if len(e.posted) > 0 || len(e.recvs) > 0 || e.stagedSends > 0 {
		return true
	}
	for p := range e.peers {
		if len(e.peers[p].outq) > 0 {
			return true
		}
	}
	return false
}

// shmemOp maps an op to the team reduction, or reports false.
func shmemOp(op Op, b Basic) (shmem.ReduceOp, bool) {
	if !(isInt(b) || b == BasicByte || b == BasicFloat32 || b == BasicFloat64) {
		return 0, false
	}
	switch op {
	case OpSum:
		return shmem.ReduceSum, true
	case OpProd:
		return shmem.ReduceProd, true
	case OpMin:
		return shmem.ReduceMin, true
	case OpMax:
		return shmem.ReduceMax, true
	case OpBand:
		return shmem.ReduceAnd, true
	case OpBor:
		return shmem.ReduceOr, true
	case OpBxor:
		return shmem.ReduceXor, true
	}
	return 0, false
}

// scratchViews returns the scratch area typed as each reducible basic
// type, indexed by Basic: made once, because shmem.View checks the object
// and the type on every call, a sixth of a small Allreduce's software.
func scratchViews(sc shmem.Sym[byte]) ([numBasic]any, error) {
	var v [numBasic]any
	var errs []error
	add := func(b Basic, view func(shmem.Sym[byte]) (any, error)) {
		var err error
		v[b], err = view(sc)
		errs = append(errs, err)
	}
	add(BasicInt8, viewOf[int8])
	add(BasicInt16, viewOf[int16])
	add(BasicInt32, viewOf[int32])
	add(BasicInt64, viewOf[int64])
	add(BasicUint8, viewOf[uint8])
	add(BasicUint16, viewOf[uint16])
	add(BasicUint32, viewOf[uint32])
	add(BasicUint64, viewOf[uint64])
	add(BasicFloat32, viewOf[float32])
	add(BasicFloat64, viewOf[float64])
	v[BasicByte] = v[BasicUint8]
	return v, errors.Join(errs...)
}

func viewOf[T shmem.Reducible](sc shmem.Sym[byte]) (any, error) {
	v, err := shmem.View[T](sc)
	return v, err
}

// reduceAs runs the team reduction (or reduce-scatter) of n elements of T
// from the scratch elements at src into those at dst.
func reduceAs[T shmem.Reducible](t *shmem.Team, op shmem.ReduceOp, view any, dst, src, n int, scatter bool) error {
	sc := view.(shmem.Sym[T])
	d := sc.Slice(dst, dst+n)
	if scatter {
		return shmem.ReduceScatter(t, op, d, sc.Slice(src, src+n*t.NPEs()), n)
	}
	return shmem.Reduce(t, op, d, sc.Slice(src, src+n), n)
}

// teamReduce runs a team reduction (or reduce-scatter) of n elements of b
// between the scratch area's elements at src and dst (element offsets).
func (c *Comm) teamReduce(op shmem.ReduceOp, b Basic, dst, src, n int, scatter bool) error {
	t, view := c.coll.team, c.env.scratchAs[b]
	switch b {
	case BasicInt8:
		return reduceAs[int8](t, op, view, dst, src, n, scatter)
	case BasicInt16:
		return reduceAs[int16](t, op, view, dst, src, n, scatter)
	case BasicInt32:
		return reduceAs[int32](t, op, view, dst, src, n, scatter)
	case BasicInt64:
		return reduceAs[int64](t, op, view, dst, src, n, scatter)
	case BasicUint8, BasicByte:
		return reduceAs[uint8](t, op, view, dst, src, n, scatter)
	case BasicUint16:
		return reduceAs[uint16](t, op, view, dst, src, n, scatter)
	case BasicUint32:
		return reduceAs[uint32](t, op, view, dst, src, n, scatter)
	case BasicUint64:
		return reduceAs[uint64](t, op, view, dst, src, n, scatter)
	case BasicFloat32:
		return reduceAs[float32](t, op, view, dst, src, n, scatter)
	default:
		return reduceAs[float64](t, op, view, dst, src, n, scatter)
	}
}

// teamAllreduce reduces acc (packed elements of b) in place on every
// member, in pieces of the scratch size.
func (c *Comm) teamAllreduce(acc []byte, b Basic, op shmem.ReduceOp) error {
	return c.teamAllreduceInto(acc, acc, b, op)
}

// teamAllreduceInto reduces src (packed elements of b) into dst (nil: only
// take part) through the scratch area, piece by piece: one copy in, one
// out. src and dst may be the same.
func (c *Comm) teamAllreduceInto(src, dst []byte, b Basic, op shmem.ReduceOp) error {
	e := c.env
	esz := b.Size()
	piece := e.scratch.Len() / esz * esz
	for off := 0; off < len(src); off += piece {
		n := min(piece, len(src)-off)
		if err := e.scratchIn(0, src[off:off+n]); err != nil {
			return err
		}
		var err error
		if c.env.owesNoProgress() { // teamRun's test, without a closure to build: the usual case
			err = wrap(c.teamReduce(op, b, 0, 0, n/esz, false), "team collective")
		} else {
			err = c.env.runMakingProgress(func() error { return c.teamReduce(op, b, 0, 0, n/esz, false) })
		}
		if err != nil {
			return err
		}
		if dst != nil {
			if err := e.scratchOut(dst[off:off+n], 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// teamReduceDirect runs Allreduce (root < 0) or Reduce on the team
// straight between the user's contiguous buffers and the scratch area,
// when it can; done reports whether it did.
func teamReduceDirect[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op, root int) (bool, error) {
	if c.coll.team == nil || dt.Err() != nil || !mapOf(dt).Contiguous() || checkReduce(op, mapOf(dt).Basic()) != nil {
		return false, nil
	}
	sop, ok := shmemOp(op, mapOf(dt).Basic())
	if !ok {
		return false, nil
	}
	var rb []byte
	if root < 0 || c.rank == root {
		var err error
		if rb, _, err = view(rbuf, count, dt, "reduction receive"); err != nil {
			return true, err
		}
	}
	src := sbuf
	if isInPlace(sbuf) {
		if root >= 0 && c.rank != root {
			return true, errorf(ClassBuffer, "Reduce: InPlace is only for the root's send buffer")
		}
		src = rbuf
	}
	sb, size, err := srcView(src, count, dt, "reduction send")
	if err != nil {
		return true, err
	}
	if rb != nil {
		rb = rb[:size]
	}
	return true, c.teamAllreduceInto(sb[:size], rb, mapOf(dt).Basic(), sop)
}

// teamBcast broadcasts data from root in pieces of the scratch size.
func (c *Comm) teamBcast(data []byte, root int) error {
	e, t := c.env, c.coll.team
	for off := 0; off < len(data); off += e.scratch.Len() {
		n := min(e.scratch.Len(), len(data)-off)
		if c.rank == root {
			if err := e.scratchIn(0, data[off:off+n]); err != nil {
				return err
			}
		}
		obj := e.scratch.Slice(0, n)
		if err := c.teamRun(func() error { return shmem.Broadcast(t, obj, obj, n, root) }); err != nil {
			return err
		}
		if c.rank != root {
			if err := e.scratchOut(data[off:off+n], 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// fitsScratch reports whether k bytes fit the scratch area.
func (c *Comm) fitsScratch(k int) bool { return k <= c.env.scratch.Len() }

// teamFCollect gathers m bytes from every member into out (m*Size bytes).
func (c *Comm) teamFCollect(mine, out []byte) error {
	e, m, n := c.env, len(mine), c.Size()
	if err := e.scratchIn(0, mine); err != nil {
		return err
	}
	src, dst := e.scratch.Slice(0, m), e.scratch.Slice(m, m+m*n)
	if err := c.teamRun(func() error { return shmem.FCollect(c.coll.team, dst, src, m) }); err != nil {
		return err
	}
	return e.scratchOut(out[:m*n], m)
}

// teamAlltoall exchanges blocks of m bytes; in and out hold m*Size bytes.
func (c *Comm) teamAlltoall(in, out []byte, m int) error {
	e, k := c.env, len(in)
	if err := e.scratchIn(0, in); err != nil {
		return err
	}
	src, dst := e.scratch.Slice(0, k), e.scratch.Slice(k, 2*k)
	if err := c.teamRun(func() error { return shmem.Alltoall(c.coll.team, dst, src, m) }); err != nil {
		return err
	}
	return e.scratchOut(out[:k], k)
}

// teamReduceScatter reduces in (Size blocks of m bytes of b) and leaves this
// member's block in out.
func (c *Comm) teamReduceScatter(in, out []byte, b Basic, op shmem.ReduceOp) error {
	e, k, m := c.env, len(in), len(out)
	if err := e.scratchIn(0, in); err != nil {
		return err
	}
	esz := b.Size()
	err := c.teamRun(func() error { return c.teamReduce(op, b, k/esz, 0, m/esz, true) })
	if err != nil {
		return err
	}
	return e.scratchOut(out, k)
}

// atomicFlag is set once, by the helper goroutine of teamRun.
type atomicFlag struct{ v atomic.Bool }

func (f *atomicFlag) set()      { f.v.Store(true) }
func (f *atomicFlag) get() bool { return f.v.Load() }

// The team forms of the uniform collectives decide by byte sizes alone
// (which MPI requires to agree between members), pack what is not
// contiguous, and report done=false when the communicator has no team or the
// data does not fit the scratch area; then the point-to-point form runs.

// teamAllgather runs Allgather on the team when it can.
func teamAllgather[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype) (bool, error) {
	n := c.Size()
	if c.check("Allgather") != nil || c.coll.team == nil || rdt.Err() != nil || rcount <= 0 {
		return false, nil
	}
	m := rcount * mapOf(rdt).Size()
	if m == 0 || !c.fitsScratch(m*(n+1)) {
		return false, nil
	}
	counts, displs := uniform(n, rcount)
	rl, err := makeLayout(rbuf, rdt, counts, displs, n, "Allgather receive")
	if err != nil {
		return true, err
	}
	var mine []byte
	if isInPlace(sbuf) {
		mine = rl.data(c.rank)
	} else if mine, err = sendData(sbuf, scount, sdt, "Allgather send"); err != nil {
		return true, err
	}
	if len(mine) != m {
		return true, errorf(ClassTruncate, "Allgather: %d bytes sent, %d expected", len(mine), m)
	}
	out := make([]byte, m*n)
	if err := c.teamFCollect(mine, out); err != nil {
		return true, err
	}
	for i := range n {
		place(rl.region(i), rl.d, rcount, out[i*m:(i+1)*m])
	}
	return true, nil
}

// teamAlltoall runs Alltoall on the team when it can.
func teamAlltoall[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcount int, rdt Datatype) (bool, error) {
	n := c.Size()
	if c.check("Alltoall") != nil || c.coll.team == nil || rdt.Err() != nil || rcount <= 0 {
		return false, nil
	}
	m := rcount * mapOf(rdt).Size()
	if m == 0 || !c.fitsScratch(2*m*n) {
		return false, nil
	}
	rc, rd := uniform(n, rcount)
	rl, err := makeLayout(rbuf, rdt, rc, rd, n, "Alltoall receive")
	if err != nil {
		return true, err
	}
	sl := rl
	if !isInPlace(sbuf) {
		if sdt.Err() != nil {
			return true, sdt.Err()
		}
		sc, sd := uniform(n, scount)
		if sl, err = makeLayout(sbuf, sdt, sc, sd, n, "Alltoall send"); err != nil {
			return true, err
		}
	}
	in := make([]byte, 0, m*n)
	for j := range n {
		in = append(in, sl.data(j)...)
	}
	if len(in) != m*n {
		return true, errorf(ClassTruncate, "Alltoall: %d bytes sent, %d expected", len(in), m*n)
	}
	out := make([]byte, m*n)
	if err := c.teamAlltoall(in, out, m); err != nil {
		return true, err
	}
	for j := range n {
		place(rl.region(j), rl.d, rcount, out[j*m:(j+1)*m])
	}
	return true, nil
}

// teamReduceScatterBlock runs ReduceScatterBlock on the team when it can.
func teamReduceScatterBlock[T Elem](c *Comm, sbuf, rbuf []T, rcount int, dt Datatype, op Op) (bool, error) {
	n := c.Size()
	if c.coll.team == nil || dt.Err() != nil || rcount <= 0 || checkReduce(op, mapOf(dt).Basic()) != nil {
		return false, nil
	}
	sop, ok := shmemOp(op, mapOf(dt).Basic())
	m := rcount * mapOf(dt).Size()
	if !ok || !c.fitsScratch(m*(n+1)) {
		return false, nil
	}
	in, err := reduceArgs(c, sbuf, rbuf, rcount*n, dt, op, true, "ReduceScatterBlock")
	if err != nil {
		return true, err
	}
	rb, _, err := view(rbuf, rcount, dt, "ReduceScatterBlock receive")
	if err != nil {
		return true, err
	}
	out := make([]byte, m)
	if err := c.teamReduceScatter(in, out, mapOf(dt).Basic(), sop); err != nil {
		return true, err
	}
	place(rb, mapOf(dt), rcount, out)
	return true, nil
}
