package compat

import (
	"encoding/binary"

	"github.com/gshmem/gshmem/internal/mpitype"
	"github.com/gshmem/gshmem/shmem"
)

// Gather(v), Scatter(v), Allgatherv and Alltoallv on a device World
// (coll_device.go): no team kernel fits their per-member counts, so they
// run as an exchange through the symmetric device scratch. Each member
// copies its blocks into its own scratch (device-to-device, or
// host-to-device for a host buffer), puts each into its destination's
// scratch at the slot of the sender (a copy-engine or IPC copy between the
// GPUs' heaps), and after the team's barrier every destination copies its
// slots out to its receive buffer. No device byte crosses the host.
//
// The members first gather, through one FCollect of a few words each,
// every member's byte counts to and from every other member and whether
// its own arguments were valid. So all of them know, before any data
// moves, how many rounds of the scratch the largest pair needs, whether a
// sender sends more than its receiver takes (ClassTruncate, on every
// member) and whether one member's arguments were bad (its class, on every
// member): they never disagree on the path or the rounds, and none waits
// for a member that gave up.
//
// A member's non-contiguous datatype is packed or unpacked on the host
// (its device buffer then crosses the host, as for any collective the
// kernels cannot do); the other members do not notice. The whole call
// runs on host copies only where there is no team or the scratch is too
// small for the counts of a communicator this large, which every member
// sees alike.

// devV reports whether the v-collectives take the device path: on a
// device World, or in tests that run it on host buffers.
func (e *Env) devV() bool { return e.dev || e.cfg.devV }

// vside is one member's buffer in an exchange: per member, the byte offset
// and length in s of the block sent to (or received from) that member.
type vside struct {
	s       dspan
	off, ln []int
}

func newVside(n int) vside { return vside{off: make([]int, n), ln: make([]int, n)} }

// vMeta is the bytes of one member's row of the exchange's counts: its
// error class, then what it sends to and expects from each member.
func vMeta(n int) int { return (2*n + 1) * 8 }

// vLayout returns where the exchange's data area starts in the scratch and
// the bytes of one slot (one pair's share of a round); slot < 1 when the
// scratch cannot hold the counts of a communicator of this size.
func (c *Comm) vLayout() (base, slot int) {
	n, m := c.Size(), vMeta(c.Size())
	base = (m + n*m + 255) &^ 255
	slot = (c.env.scratch.Len() - base) / (2 * n) &^ 15
	return base, slot
}

// vEligible reports whether the exchange runs here: the same answer on
// every member.
func (c *Comm) vEligible() bool {
	_, slot := c.vLayout()
	return c.coll.team != nil && slot >= 1
}

// bufSide describes count[i] instances of d at byte at[i] of b (device
// address dev when not 0) as a side of an exchange. A non-contiguous d is
// packed on the host for a send side; for a receive side the returned
// finish unpacks what arrived (got[i] bytes from member i) into b.
func (e *Env) bufSide(b []byte, dev uintptr, d *mpitype.Map, at, counts []int, recv bool) (vside, func(got []int) error, error) {
	n := len(at)
	s := newVside(n)
	if d.Contiguous() {
		s.s = dspan{host: b, dev: dev}
		if dev != 0 {
			s.s.host = nil
		}
		for i := range n {
			s.off[i], s.ln[i] = at[i], counts[i]*d.Size()
		}
		return s, nil, nil
	}
	total := 0
	for i := range n {
		s.off[i], s.ln[i] = total, counts[i]*d.Size()
		total += s.ln[i]
	}
	pk := make([]byte, total)
	s.s = dspan{host: pk}
	hostOf := func() ([]byte, error) {
		if dev == 0 {
			return b, nil
		}
		h := make([]byte, len(b))
		return h, wrap(e.w.CopyDeviceToHost(h, dev), "copying a device buffer of a non-contiguous datatype to the host")
	}
	if !recv {
		h, err := hostOf()
		if err != nil {
			return s, nil, err
		}
		for i := range n {
			if counts[i] > 0 {
				d.Pack(pk[s.off[i]:], h[at[i]:], counts[i])
			}
		}
		return s, nil, nil
	}
	finish := func(got []int) error {
		h, err := hostOf()
		if err != nil {
			return err
		}
		for i := range n {
			if k := min(counts[i], got[i]/max(d.Size(), 1)); k > 0 {
				d.Unpack(h[at[i]:], pk[s.off[i]:s.off[i]+k*d.Size()], k)
			}
		}
		if dev == 0 {
			return nil
		}
		return wrap(e.w.CopyHostToDevice(dev, h), "copying a result to a device buffer")
	}
	return s, finish, nil
}

// layoutAt is the byte offsets of l's regions.
func layoutAt(l layout) []int {
	at := make([]int, len(l.counts))
	for i := range at {
		if l.counts[i] > 0 { // an empty region's displacement may point anywhere
			at[i] = l.displs[i] * l.d.Extent()
		}
	}
	return at
}

// devExchange moves send.ln[j] bytes of this member's send side to every
// member j, which places them in its receive side; bad is this member's
// argument error (it then only takes part in the count exchange, and every
// member returns an error). finish, when not nil, completes a receive side.
func (c *Comm) devExchange(what string, send, recv vside, finish func(got []int) error, bad error) error {
	e, t := c.env, c.coll.team
	n, me := c.Size(), c.rank
	m := vMeta(n)
	row := make([]byte, m)
	if bad != nil {
		cl := ClassOf(bad)
		if cl == ClassSuccess {
			cl = ClassOther
		}
		binary.LittleEndian.PutUint64(row, uint64(cl))
	} else {
		for j := range n {
			binary.LittleEndian.PutUint64(row[8+8*j:], uint64(send.ln[j]))
			binary.LittleEndian.PutUint64(row[8+8*(n+j):], uint64(recv.ln[j]))
		}
	}
	if err := e.scratchIn(0, row); err != nil {
		return err
	}
	if err := c.teamRun(func() error { return shmem.FCollect(t, e.scratch.Slice(m, m+n*m), e.scratch.Slice(0, m), m) }); err != nil {
		return err
	}
	all := make([]byte, n*m)
	if err := e.scratchOut(all, m); err != nil {
		return err
	}
	word := func(i, k int) int { return int(binary.LittleEndian.Uint64(all[i*m+8*k:])) }
	for i := range n {
		if cl := word(i, 0); cl != 0 {
			if bad != nil {
				return bad
			}
			return errorf(Class(cl), "%s: member %d's arguments are invalid", what, i)
		}
	}
	big := 0
	for i := range n {
		for j := range n {
			sent, room := word(i, 1+j), word(j, 1+n+i)
			if sent > room {
				return errorf(ClassTruncate, "%s: member %d sends %d bytes to member %d, which takes %d", what, i, sent, j, room)
			}
			big = max(big, sent)
		}
	}
	base, p := c.vLayout()
	outSlot := func(j int) int { return base + j*p }
	inSlot := func(i int) int { return base + (n+i)*p }
	for off := 0; off < big; off += p {
		if off > 0 {
			// Every member has copied out the last round's slots.
			if err := c.teamRun(t.Barrier); err != nil {
				return err
			}
		}
		for k := 1; k <= n; k++ {
			j := (me + k) % n // spread the puts over the destinations
			sz := min(p, send.ln[j]-off)
			if sz <= 0 {
				continue
			}
			if j == me {
				if err := e.spanIn(inSlot(me), send.s, send.off[j]+off, sz); err != nil {
					return err
				}
				continue
			}
			if err := e.spanIn(outSlot(j), send.s, send.off[j]+off, sz); err != nil {
				return err
			}
			dst, src := e.scratch.Slice(inSlot(me), inSlot(me)+sz), e.scratch.Slice(outSlot(j), outSlot(j)+sz)
			if err := shmem.PutSymNBI(dst, src, c.group.world[j]); err != nil {
				return wrap(err, "%s: putting into member %d's device scratch", what, j)
			}
		}
		// Quiet, then every member's puts of this round have landed.
		if err := c.teamRun(t.Barrier); err != nil {
			return err
		}
		for i := range n {
			if sz := min(p, word(i, 1+me)-off); sz > 0 {
				if err := e.spanOut(recv.s, recv.off[i]+off, inSlot(i), sz); err != nil {
					return err
				}
			}
		}
	}
	if err := e.devDone(); err != nil {
		return err
	}
	if finish == nil {
		return nil
	}
	got := make([]int, n)
	for i := range n {
		got[i] = word(i, 1+me)
	}
	return finish(got)
}

// sideOrBad builds a side unless an earlier argument error stands.
func (e *Env) sideOrBad(bad *error, b []byte, dev uintptr, d *mpitype.Map, at, counts []int, recv bool) (vside, func([]int) error) {
	if *bad != nil {
		return newVside(len(at)), nil
	}
	s, fin, err := e.bufSide(b, dev, d, at, counts, recv)
	if err != nil {
		*bad = err
		return newVside(len(at)), nil
	}
	return s, fin
}

// oneBlock is a single region of count instances at byte 0, for member
// peer (every member when peer < 0, except skip when skip >= 0).
func oneBlock(n, count, peer, skip int) (at, counts []int) {
	at, counts = make([]int, n), make([]int, n)
	for i := range n {
		if (peer < 0 || i == peer) && i != skip {
			counts[i] = count
		}
	}
	return at, counts
}

// viaHostAll runs f, a v-collective's host path, on host copies of the
// device buffers among sbuf and rbuf (their whole length: a v layout may
// reach anywhere in them) and copies rbuf's back, untouched parts too.
func viaHostAll[S, R Elem](c *Comm, sbuf []S, sdev uintptr, rbuf []R, rdev uintptr, f func(s []S, r []R) error) error {
	w := c.env.w
	if err := c.env.afterCaller(sdev, rdev); err != nil {
		return err
	}
	s, r := sbuf, rbuf
	if sdev != 0 {
		s = make([]S, len(sbuf))
		if err := w.CopyDeviceToHost(asBytes(s), sdev); err != nil {
			return wrap(err, "copying a send buffer to the host")
		}
	}
	if rdev != 0 {
		r = make([]R, len(rbuf))
		if err := w.CopyDeviceToHost(asBytes(r), rdev); err != nil {
			return wrap(err, "copying a receive buffer to the host")
		}
	}
	if err := f(s, r); err != nil {
		return err
	}
	if rdev == 0 {
		return nil
	}
	return wrap(w.CopyHostToDevice(rdev, asBytes(r)), "copying a result to a device buffer")
}

// devGatherv runs Gatherv on a device World; done reports whether it did.
func devGatherv[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcounts, displs []int, rdt Datatype, root int) (bool, error) {
	e := c.env
	n, me := c.Size(), c.rank
	sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
	if me != root {
		rdev = 0
	}
	if !c.vEligible() {
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHostAll(c, sbuf, sdev, rbuf, rdev, func(s []S, r []R) error {
			return Gatherv(c, s, scount, sdt, r, rcounts, displs, rdt, root)
		})
	}
	inPlace := isInPlace(sbuf) && me == root
	var bad error
	if err := e.afterCaller(sdev, rdev); err != nil {
		return true, err
	}
	send, recv := newVside(n), newVside(n)
	var fin func([]int) error
	if !inPlace {
		sb, _, err := srcView(sbuf, scount, sdt, "Gatherv send")
		bad = err
		at, counts := oneBlock(n, scount, root, -1)
		send, _ = e.sideOrBad(&bad, sb, sdev, mapOf(sdt), at, counts, false)
	}
	if me == root && bad == nil {
		rl, err := makeLayout(rbuf, rdt, rcounts, displs, n, "Gatherv receive")
		bad = err
		if bad == nil {
			counts := append([]int(nil), rl.counts...)
			if inPlace {
				counts[me] = 0
			}
			recv, fin = e.sideOrBad(&bad, rl.b, rdev, rl.d, layoutAt(rl), counts, true)
		}
	}
	return true, c.devExchange("Gatherv", send, recv, fin, bad)
}

// devScatterv runs Scatterv on a device World; done reports whether it did.
func devScatterv[S, R Elem](c *Comm, sbuf []S, scounts, displs []int, sdt Datatype, rbuf []R, rcount int, rdt Datatype, root int) (bool, error) {
	e := c.env
	n, me := c.Size(), c.rank
	sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
	if me != root {
		sdev = 0
	}
	if !c.vEligible() {
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHostAll(c, sbuf, sdev, rbuf, rdev, func(s []S, r []R) error {
			return Scatterv(c, s, scounts, displs, sdt, r, rcount, rdt, root)
		})
	}
	inPlace := isInPlace(rbuf) && me == root
	var bad error
	if err := e.afterCaller(sdev, rdev); err != nil {
		return true, err
	}
	send, recv := newVside(n), newVside(n)
	var fin func([]int) error
	if !inPlace {
		rb, _, err := view(rbuf, rcount, rdt, "Scatterv receive")
		bad = err
		at, counts := oneBlock(n, rcount, root, -1)
		recv, fin = e.sideOrBad(&bad, rb, rdev, mapOf(rdt), at, counts, true)
	}
	if me == root && bad == nil {
		sl, err := makeLayout(sbuf, sdt, scounts, displs, n, "Scatterv send")
		bad = err
		if bad == nil {
			counts := append([]int(nil), sl.counts...)
			if inPlace {
				counts[me] = 0
			}
			send, _ = e.sideOrBad(&bad, sl.b, sdev, sl.d, layoutAt(sl), counts, false)
		}
	}
	return true, c.devExchange("Scatterv", send, recv, fin, bad)
}

// devAllgatherv runs Allgatherv on a device World; done reports whether it
// did.
func devAllgatherv[S, R Elem](c *Comm, sbuf []S, scount int, sdt Datatype, rbuf []R, rcounts, displs []int, rdt Datatype) (bool, error) {
	e := c.env
	n, me := c.Size(), c.rank
	sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
	if !c.vEligible() {
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHostAll(c, sbuf, sdev, rbuf, rdev, func(s []S, r []R) error {
			return Allgatherv(c, s, scount, sdt, r, rcounts, displs, rdt)
		})
	}
	inPlace := isInPlace(sbuf)
	send, recv := newVside(n), newVside(n)
	var fin func([]int) error
	rl, bad := makeLayout(rbuf, rdt, rcounts, displs, n, "Allgatherv receive")
	if bad == nil {
		bad = e.afterCaller(sdev, rdev)
	}
	if bad == nil {
		counts := append([]int(nil), rl.counts...)
		if inPlace {
			counts[me] = 0
			// Member me's region of rbuf goes to every other member.
			at, cs := oneBlock(n, rl.counts[me], -1, me)
			for j := range at {
				at[j] = rl.displs[me] * rl.d.Extent()
			}
			send, _ = e.sideOrBad(&bad, rl.b, rdev, rl.d, at, cs, false)
		} else {
			sb, _, err := srcView(sbuf, scount, sdt, "Allgatherv send")
			bad = err
			at, cs := oneBlock(n, scount, -1, -1)
			send, _ = e.sideOrBad(&bad, sb, sdev, mapOf(sdt), at, cs, false)
		}
		recv, fin = e.sideOrBad(&bad, rl.b, rdev, rl.d, layoutAt(rl), counts, true)
	}
	return true, c.devExchange("Allgatherv", send, recv, fin, bad)
}

// devAlltoallv runs Alltoallv on a device World; done reports whether it
// did. In place, member j's block is sent from the region member j's block
// arrives in: round by round the bytes a round sends are staged before any
// member's bytes of that round are copied out over them.
func devAlltoallv[S, R Elem](c *Comm, sbuf []S, scounts, sdispls []int, sdt Datatype, rbuf []R, rcounts, rdispls []int, rdt Datatype) (bool, error) {
	e := c.env
	n, me := c.Size(), c.rank
	sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
	if !c.vEligible() {
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		return true, viaHostAll(c, sbuf, sdev, rbuf, rdev, func(s []S, r []R) error {
			return Alltoallv(c, s, scounts, sdispls, sdt, r, rcounts, rdispls, rdt)
		})
	}
	inPlace := isInPlace(sbuf)
	send, recv := newVside(n), newVside(n)
	var fin func([]int) error
	rl, bad := makeLayout(rbuf, rdt, rcounts, rdispls, n, "Alltoallv receive")
	if bad == nil {
		bad = e.afterCaller(sdev, rdev)
	}
	if bad == nil {
		counts := append([]int(nil), rl.counts...)
		if inPlace {
			counts[me] = 0
			send, _ = e.sideOrBad(&bad, rl.b, rdev, rl.d, layoutAt(rl), counts, false)
		} else {
			sl, err := makeLayout(sbuf, sdt, scounts, sdispls, n, "Alltoallv send")
			bad = err
			if bad == nil {
				send, _ = e.sideOrBad(&bad, sl.b, sdev, sl.d, layoutAt(sl), sl.counts, false)
			}
		}
		recv, fin = e.sideOrBad(&bad, rl.b, rdev, rl.d, layoutAt(rl), counts, true)
	}
	return true, c.devExchange("Alltoallv", send, recv, fin, bad)
}

// devReduceScatter runs ReduceScatter(Block) on a device World: the
// device all-reduce of the whole vector through the scratch, piece by
// piece, each member copying out the part of each piece that is its block.
// done reports whether it ran here.
func devReduceScatter[T Elem](c *Comm, sbuf, rbuf []T, rcounts []int, dt Datatype, op Op, what string) (bool, error) {
	e := c.env
	me := c.rank
	total, lo := 0, 0
	for i, k := range rcounts {
		if k < 0 {
			return true, errorf(ClassCount, "%s: count %d for rank %d", what, k, i)
		}
		if i == me {
			lo = total
		}
		total += k
	}
	sop, ok := c.reduceEligible(dt, op)
	sdev, rdev := devAddr(e, sbuf), devAddr(e, rbuf)
	if !ok {
		if sdev == 0 && rdev == 0 {
			return false, nil
		}
		rn := rcounts[me]
		if isInPlace(sbuf) {
			rn = total
		}
		return true, viaHostPair(c, sbuf, total, dt, sdev, rbuf, rn, dt, rdev, func(s, r []T) error {
			return reduceScatter(c, s, r, rcounts, dt, op, what)
		})
	}
	src, srcDev, n := sbuf, sdev, total
	if isInPlace(sbuf) {
		src, srcDev = rbuf, rdev
	}
	sb, size, err := srcView(src, n, dt, what+" send")
	if err != nil {
		return true, err
	}
	rb, _, err := view(rbuf, rcounts[me], dt, what+" receive")
	if err != nil {
		return true, err
	}
	if err := e.afterCaller(sdev, rdev); err != nil {
		return true, err
	}
	b := mapOf(dt).Basic()
	esz := b.Size()
	in, out := spanOf(sb, srcDev, size), spanOf(rb, rdev, rcounts[me]*esz)
	mlo, mhi := lo*esz, (lo+rcounts[me])*esz
	piece := e.scratch.Len() / esz * esz
	for off := 0; off < size; off += piece {
		k := min(piece, size-off)
		if err := e.spanIn(0, in, off, k); err != nil {
			return true, err
		}
		if err := c.teamRun(func() error { return c.teamReduce(sop, b, 0, 0, k/esz, false) }); err != nil {
			return true, err
		}
		if a, z := max(off, mlo), min(off+k, mhi); a < z {
			if err := e.spanOut(out, a-mlo, a-off, z-a); err != nil {
				return true, err
			}
		}
	}
	return true, e.devDone()
}
