package compat

import (
	"unsafe"

	"github.com/gshmem/gshmem/compat/internal/p2pstate"
	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// Collectives. Every member of the communicator calls them in the same
// order with matching arguments; they travel in the communicator's
// collective context, apart from its point-to-point messages, and make
// progress on everything while they wait.

// Tags of the collective context.
const (
	tagBarrier int32 = iota + p2pstate.TagBarrier
	tagBcast
	tagReduce
	tagGather
	tagScatter
	tagAllgather
	tagAlltoall
	tagScan
)

// collState is a communicator's collective state: its shmem team, or nil
// when its collectives all use point-to-point.
type collState struct {
	team *shmem.Team
}

var inPlaceSentinel [16]byte

// InPlace returns the MPI_IN_PLACE marker for a send buffer of T: pass it
// as the send buffer of Allreduce, Reduce (at the root), Gather(v) (at the
// root), Scatter(v) (as the root's receive buffer), Allgather(v),
// Alltoall(v), ReduceScatter(Block) and Scan, as MPI allows.
func InPlace[T Elem]() []T { return unsafe.Slice((*T)(unsafe.Pointer(&inPlaceSentinel)), 0) }

func isInPlace[T Elem](b []T) bool {
	return unsafe.Pointer(unsafe.SliceData(b)) == unsafe.Pointer(&inPlaceSentinel)
}

func (c *Comm) cctx() uint32 { return c.ctx | collBit }

// csend and crecv are the collectives' point-to-point: bytes, by rank, in
// the collective context.
func (c *Comm) csend(data []byte, r int, tag int32) *Request {
	return c.env.isend(data, c.group.world[r], tag, c.cctx(), false, -1)
}

func (c *Comm) crecv(buf []byte, unpack func([]byte), r int, tag int32) *Request {
	return c.env.irecv(c, buf, unpack, c.group.world[r], int(tag), c.cctx())
}

// waitReqs waits for every non-nil request and returns the first error.
func waitReqs(rs []*Request) error {
	var first error
	for _, r := range rs {
		if r == nil {
			continue
		}
		if _, err := r.Wait(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (c *Comm) rootArg(root int, what string) error {
	if err := c.collCheck(what); err != nil {
		return err
	}
	if root < 0 || root >= c.Size() {
		return errorf(ClassRoot, "%s: root %d of a communicator of %d", what, root, c.Size())
	}
	return nil
}

// packed returns count instances of d in b as contiguous bytes: b itself
// when d is contiguous, else a packed copy.
func packed(b []byte, d *mpitype.Map, count int) []byte {
	size := count * d.Size()
	if d.Contiguous() {
		return b[:size]
	}
	out := make([]byte, size)
	d.Pack(out, b, count)
	return out
}

// place writes contiguous bytes into count instances of d laid out in b.
func place(b []byte, d *mpitype.Map, count int, src []byte) {
	if d.Contiguous() {
		copy(b[:count*d.Size()], src)
		return
	}
	d.Unpack(b, src, count)
}

// Barrier blocks until every member has called it (MPI_Barrier): a
// dissemination barrier of empty messages.
func (c *Comm) Barrier() error {
	if c.IsInter() {
		return c.checkThen("Barrier", c.interBarrier)
	}
	if err := c.collCheck("Barrier"); err != nil {
		return err
	}
	if t := c.coll.team; t != nil {
		// The common case without teamRun's function value (a method
		// value escapes: an allocation per barrier, a third of a window
		// fence's time).
		if c.env.owesNoProgress() {
			if err := t.Barrier(); err != nil {
				return wrap(err, "team collective")
			}
			return nil
		}
		return c.teamRun(t.Barrier)
	}
	return c.p2pBarrier()
}

// p2pBarrier is Barrier over point-to-point messages.
func (c *Comm) p2pBarrier() error {
	n, me := c.Size(), c.rank
	for d := 1; d < n; d <<= 1 {
		r := c.crecv(nil, nil, (me-d+n)%n, tagBarrier)
		s := c.csend(nil, (me+d)%n, tagBarrier)
		if err := waitReqs([]*Request{s, r}); err != nil {
			return err
		}
	}
	return nil
}

// bcastBytes broadcasts data from root down a binomial tree.
func (c *Comm) bcastBytes(data []byte, root int) error {
	if c.coll.team != nil {
		return c.teamBcast(data, root)
	}
	n := c.Size()
	rel := (c.rank - root + n) % n
	mask := 1
	for ; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			if _, err := wait1(c.crecv(data, nil, (rel-mask+root)%n, tagBcast)); err != nil {
				return err
			}
			break
		}
	}
	var sends []*Request
	for mask >>= 1; mask > 0; mask >>= 1 {
		if rel+mask < n {
			sends = append(sends, c.csend(data, (rel+mask+root)%n, tagBcast))
		}
	}
	return waitReqs(sends)
}

// Bcast sends count instances of dt in buf from root to every member
// (MPI_Bcast).
func Bcast[T Elem](c *Comm, buf []T, count int, dt Datatype, root int) error {
	if c.IsInter() {
		return c.checkThen("Bcast", func() error { return interBcast(c, asBytes(buf), count, dt, root) })
	}
	if err := c.rootArg(root, "Bcast"); err != nil {
		return err
	}
	if c.env.dev {
		if done, err := devBcast(c, buf, count, dt, root); done {
			return err
		}
	}
	b, size, err := view(buf, count, dt, "Bcast")
	if err != nil {
		return err
	}
	d := mapOf(dt)
	data := b[:size]
	if !d.Contiguous() {
		data = make([]byte, size)
		if c.rank == root {
			d.Pack(data, b, count)
		}
	}
	if err := c.bcastBytes(data, root); err != nil {
		return err
	}
	if !d.Contiguous() && c.rank != root {
		d.Unpack(b, data, count)
	}
	return nil
}

// reduceBytes combines every member's acc (which it overwrites) with op
// down a binomial tree; root ends with the result in acc.
func (c *Comm) reduceBytes(acc []byte, b Basic, op Op, root int) error {
	n := c.Size()
	rel := (c.rank - root + n) % n
	var tmp []byte
	for mask := 1; mask < n; mask <<= 1 {
		if rel&mask != 0 {
			_, err := wait1(c.csend(acc, (rel-mask+root)%n, tagReduce))
			return err
		}
		if rel+mask < n {
			if tmp == nil {
				tmp = make([]byte, len(acc))
			}
			if _, err := wait1(c.crecv(tmp, nil, (rel+mask+root)%n, tagReduce)); err != nil {
				return err
			}
			applyOp(op, b, tmp, acc)
		}
	}
	return nil
}

// reduceArgs checks a reduction and returns a private copy of the input,
// packed.
func reduceArgs[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op, useRecv bool, what string) ([]byte, error) {
	if err := dt.Err(); err != nil {
		return nil, err
	}
	if err := checkReduce(op, mapOf(dt).Basic()); err != nil {
		return nil, err
	}
	src := sbuf
	if isInPlace(sbuf) {
		if !useRecv {
			return nil, errorf(ClassBuffer, "%s: InPlace is only for the root's send buffer", what)
		}
		src = rbuf
	}
	b, _, err := srcView(src, count, dt, what)
	if err != nil {
		return nil, err
	}
	acc := packed(b, mapOf(dt), count)
	if mapOf(dt).Contiguous() {
		acc = append([]byte(nil), acc...)
	}
	return acc, nil
}

// Reduce combines count instances of dt from every member's sbuf with op
// into root's rbuf (MPI_Reduce). At the root, sbuf may be InPlace: the
// input is then rbuf. rbuf is not used on other members.
func Reduce[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op, root int) error {
	if c.IsInter() {
		return c.checkThen("Reduce", func() error { return interReduce(c, asBytes(sbuf), asBytes(rbuf), count, dt, op, root) })
	}
	if err := c.rootArg(root, "Reduce"); err != nil {
		return err
	}
	if c.rank == root {
		if err := checkAlias(sbuf, rbuf, "Reduce"); err != nil {
			return err
		}
	}
	if c.env.dev {
		if done, err := devReduce(c, sbuf, rbuf, count, dt, op, root); done {
			return err
		}
	}
	if done, err := teamReduceDirect(c, sbuf, rbuf, count, dt, op, root); done {
		return err
	}
	var rb []byte
	if c.rank == root {
		var err error
		if rb, _, err = view(rbuf, count, dt, "Reduce receive"); err != nil {
			return err
		}
	}
	acc, err := reduceArgs(c, sbuf, rbuf, count, dt, op, c.rank == root, "Reduce")
	if err != nil {
		return err
	}
	if sop, ok := shmemOp(op, mapOf(dt).Basic()); ok && c.coll.team != nil {
		err = c.teamAllreduce(acc, mapOf(dt).Basic(), sop)
	} else {
		err = c.reduceBytes(acc, mapOf(dt).Basic(), op, root)
	}
	if err != nil {
		return err
	}
	if c.rank == root {
		place(rb, mapOf(dt), count, acc)
	}
	return nil
}

// Allreduce combines count instances of dt from every member's sbuf with op
// into every member's rbuf (MPI_Allreduce); sbuf may be InPlace. Every
// member gets bit-for-bit the same result.
func Allreduce[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op) error {
	if c.IsInter() {
		return c.checkThen("Allreduce", func() error { return interAllreduce(c, asBytes(sbuf), asBytes(rbuf), count, dt, op) })
	}
	if err := c.collCheck("Allreduce"); err != nil {
		return err
	}
	if err := checkAlias(sbuf, rbuf, "Allreduce"); err != nil {
		return err
	}
	if c.env.dev {
		if done, err := devReduce(c, sbuf, rbuf, count, dt, op, -1); done {
			return err
		}
	}
	if done, err := teamReduceDirect(c, sbuf, rbuf, count, dt, op, -1); done {
		return err
	}
	rb, _, err := view(rbuf, count, dt, "Allreduce receive")
	if err != nil {
		return err
	}
	acc, err := reduceArgs(c, sbuf, rbuf, count, dt, op, true, "Allreduce")
	if err != nil {
		return err
	}
	if err := c.allreduceBytes(acc, mapOf(dt).Basic(), op); err != nil {
		return err
	}
	place(rb, mapOf(dt), count, acc)
	return nil
}

// Scan gives member i the reduction of the sbufs of members 0..i
// (MPI_Scan); sbuf may be InPlace.
func Scan[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op) error {
	return scan(c, sbuf, rbuf, count, dt, op, false)
}

// Exscan gives member i the reduction of the sbufs of members 0..i-1 and
// leaves member 0's rbuf unchanged (MPI_Exscan); sbuf may be InPlace.
func Exscan[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op) error {
	return scan(c, sbuf, rbuf, count, dt, op, true)
}

func scan[T Elem](c *Comm, sbuf, rbuf []T, count int, dt Datatype, op Op, exclusive bool) error {
	if err := c.intraOnly("Scan"); err != nil {
		return err
	}
	if err := c.collCheck("Scan"); err != nil {
		return err
	}
	if err := checkAlias(sbuf, rbuf, "Scan"); err != nil {
		return err
	}
	rb, _, err := view(rbuf, count, dt, "Scan receive")
	if err != nil {
		return err
	}
	mine, err := reduceArgs(c, sbuf, rbuf, count, dt, op, true, "Scan")
	if err != nil {
		return err
	}
	me, n := c.rank, c.Size()
	acc := mine
	if me > 0 {
		prev := make([]byte, len(mine))
		if _, err := wait1(c.crecv(prev, nil, me-1, tagScan)); err != nil {
			return err
		}
		if exclusive {
			place(rb, mapOf(dt), count, prev)
		}
		acc = append([]byte(nil), mine...)
		applyOp(op, mapOf(dt).Basic(), prev, acc)
	}
	if me+1 < n {
		if _, err := wait1(c.csend(acc, me+1, tagScan)); err != nil {
			return err
		}
	}
	if !exclusive {
		place(rb, mapOf(dt), count, acc)
	}
	return nil
}

// wait1 waits for an internal request; nil means it completed at once.
func wait1(r *Request) (Status, error) {
	if r == nil {
		return Status{}, nil
	}
	return r.Wait()
}

// allreduceBytes reduces acc in place on every member: on the team when
// the type and op allow, else a reduce to rank 0 and a broadcast.
func (c *Comm) allreduceBytes(acc []byte, b Basic, op Op) error {
	if sop, ok := shmemOp(op, b); ok && c.coll.team != nil {
		return c.teamAllreduce(acc, b, sop)
	}
	if err := c.reduceBytes(acc, b, op, 0); err != nil {
		return err
	}
	return c.bcastBytes(acc, 0)
}
