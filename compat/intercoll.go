package compat

// Collectives on intercommunicators (MPI-4.1 §6.2.2): data flows from
// one group to the other. In a rooted one the root passes Root, the other
// members of its group ProcNull, and the members of the other group the
// root's rank there; the all-to-all ones give each group what the other
// sent. The local phases (reducing a group's contributions, spreading a
// result over a group) run on the intercommunicator's private
// intracommunicator; the rest are messages between the groups in its
// collective context. MPI_IN_PLACE has no meaning on an intercommunicator,
// and Scan and Exscan are not defined there.

// role is what a member does in a rooted collective on an
// intercommunicator.
type role int

const (
	roleRoot role = iota // the root
	roleIdle             // another member of the root's group
	roleLeaf             // a member of the other group
)

func (c *Comm) interRole(root int, what string) (role, error) {
	switch {
	case root == Root:
		return roleRoot, nil
	case root == ProcNull:
		return roleIdle, nil
	case root >= 0 && root < len(c.peers):
		return roleLeaf, nil
	}
	return 0, errorf(ClassRoot, "%s: root %d on an intercommunicator whose remote group has %d members (Root, ProcNull or a remote rank)", what, root, len(c.peers))
}

func (c *Comm) icsend(data []byte, r int, tag int32) *Request {
	return c.env.isend(data, c.peers[r], tag, c.cctx(), false, -1)
}

func (c *Comm) icrecv(buf []byte, unpack func([]byte), r int, tag int32) *Request {
	return c.env.irecv(c, buf, unpack, c.peers[r], int(tag), c.cctx())
}

func noInPlace(what string, bufs ...[]byte) error {
	for _, b := range bufs {
		if isInPlace(b) {
			return errorf(ClassBuffer, "%s: InPlace on an intercommunicator", what)
		}
	}
	return nil
}

// interBarrier: a barrier in each group around the leaders' exchange.
func (c *Comm) interBarrier() error {
	if err := c.local.Barrier(); err != nil {
		return err
	}
	if c.local.rank == 0 {
		if err := waitReqs([]*Request{c.icrecv([]byte{}, nil, 0, tagBarrier), c.icsend([]byte{}, 0, tagBarrier)}); err != nil {
			return err
		}
	}
	return c.local.Barrier()
}

// recvInto receives count instances of dt into b from remote rank r.
func (c *Comm) recvInto(b []byte, count int, dt Datatype, r int, tag int32, what string) error {
	v, size, err := view(b, count, dt, what)
	if err != nil {
		return err
	}
	dst, un := recvBuffer(v, size, count, mapOf(dt))
	_, err = wait1(c.icrecv(dst, un, r, tag))
	return err
}

func interBcast(c *Comm, b []byte, count int, dt Datatype, root int) error {
	ro, err := c.interRole(root, "Bcast")
	if err != nil {
		return err
	}
	switch ro {
	case roleRoot:
		data, err := sendData(b, count, dt, "Bcast")
		if err != nil {
			return err
		}
		_, err = wait1(c.icsend(data, 0, tagBcast))
		return err
	case roleIdle:
		return nil
	}
	if c.local.rank == 0 {
		if err := c.recvInto(b, count, dt, root, tagBcast, "Bcast"); err != nil {
			return err
		}
	}
	return Bcast(c.local, b, count, dt, 0)
}

// localReduce reduces the local group's sb into local rank 0 and returns
// the result there, packed (nil elsewhere).
func (c *Comm) localReduce(sb []byte, count int, dt Datatype, op Op) ([]byte, error) {
	if err := dt.Err(); err != nil {
		return nil, err
	}
	d := mapOf(dt)
	var tmp []byte
	if c.local.rank == 0 {
		tmp = make([]byte, d.Span(count))
	}
	if err := Reduce(c.local, sb, tmp, count, dt, op, 0); err != nil {
		return nil, err
	}
	if c.local.rank != 0 {
		return nil, nil
	}
	return packed(tmp, d, count), nil
}

func interReduce(c *Comm, sb, rb []byte, count int, dt Datatype, op Op, root int) error {
	ro, err := c.interRole(root, "Reduce")
	if err != nil {
		return err
	}
	switch ro {
	case roleRoot:
		if err := errorsOf(dt.Err(), checkReduce(op, mapOf(dt).Basic()), noInPlace("Reduce", rb)); err != nil {
			return err
		}
		return c.recvInto(rb, count, dt, 0, tagReduce, "Reduce receive")
	case roleIdle:
		return nil
	}
	if err := noInPlace("Reduce", sb); err != nil {
		return err
	}
	acc, err := c.localReduce(sb, count, dt, op)
	if err != nil || acc == nil {
		return err
	}
	_, err = wait1(c.icsend(acc, root, tagReduce))
	return err
}

// swapLeaders has local rank 0 send mine to the remote rank 0 and receive
// n bytes from it.
func (c *Comm) swapLeaders(mine []byte, n int, tag int32) ([]byte, error) {
	got := make([]byte, n)
	r, s := c.icrecv(got, nil, 0, tag), c.icsend(mine, 0, tag)
	st, err := wait1(r)
	if err := errorsOf(err, waitReqs([]*Request{s})); err != nil {
		return nil, err
	}
	if st.bytes != n {
		return nil, errorf(ClassTruncate, "the remote group reduced %d bytes, this group %d", st.bytes, n)
	}
	return got, nil
}

func interAllreduce(c *Comm, sb, rb []byte, count int, dt Datatype, op Op) error {
	if err := noInPlace("Allreduce", sb, rb); err != nil {
		return err
	}
	rv, size, err := view(rb, count, dt, "Allreduce receive")
	if err != nil {
		return err
	}
	acc, err := c.localReduce(sb, count, dt, op)
	if err != nil {
		return err
	}
	if c.local.rank == 0 {
		got, err := c.swapLeaders(acc, size, tagReduce)
		if err != nil {
			return err
		}
		place(rv, mapOf(dt), count, got)
	}
	return Bcast(c.local, rb, count, dt, 0)
}

// interReduceScatter reduces the other group's vectors and scatters the
// result over this group by rcounts (this group's).
func interReduceScatter(c *Comm, sb, rb []byte, rcounts []int, dt Datatype, op Op, what string) error {
	if err := noInPlace(what, sb, rb); err != nil {
		return err
	}
	if len(rcounts) != c.Size() {
		return errorf(ClassCount, "%s: %d counts for a local group of %d", what, len(rcounts), c.Size())
	}
	total := 0
	displs := make([]int, len(rcounts))
	for i, k := range rcounts {
		if k < 0 {
			return errorf(ClassCount, "%s: count %d for rank %d", what, k, i)
		}
		displs[i] = total
		total += k
	}
	acc, err := c.localReduce(sb, total, dt, op)
	if err != nil {
		return err
	}
	var all []byte
	if c.local.rank == 0 {
		got, err := c.swapLeaders(acc, total*dt.Size(), tagReduce)
		if err != nil {
			return err
		}
		all = make([]byte, mapOf(dt).Span(total))
		place(all, mapOf(dt), total, got)
	}
	return Scatterv(c.local, all, rcounts, displs, dt, rb, rcounts[c.rank], dt, 0)
}

func interGatherv(c *Comm, sb []byte, scount int, sdt Datatype, rb []byte, rcounts, displs []int, rdt Datatype, root int) error {
	ro, err := c.interRole(root, "Gatherv")
	if err != nil {
		return err
	}
	switch ro {
	case roleRoot:
		rl, err := makeLayout(rb, rdt, rcounts, displs, c.RemoteSize(), "Gatherv receive")
		if err != nil {
			return err
		}
		var reqs []*Request
		for i := range c.RemoteSize() {
			dst, un := rl.into(i)
			reqs = append(reqs, c.icrecv(dst, un, i, tagGather))
		}
		return waitReqs(reqs)
	case roleIdle:
		return nil
	}
	mine, err := sendData(sb, scount, sdt, "Gatherv send")
	if err != nil {
		return err
	}
	_, err = wait1(c.icsend(mine, root, tagGather))
	return err
}

func interScatterv(c *Comm, sb []byte, scounts, displs []int, sdt Datatype, rb []byte, rcount int, rdt Datatype, root int) error {
	ro, err := c.interRole(root, "Scatterv")
	if err != nil {
		return err
	}
	switch ro {
	case roleRoot:
		sl, err := makeLayout(sb, sdt, scounts, displs, c.RemoteSize(), "Scatterv send")
		if err != nil {
			return err
		}
		var reqs []*Request
		for i := range c.RemoteSize() {
			reqs = append(reqs, c.icsend(sl.data(i), i, tagScatter))
		}
		return waitReqs(reqs)
	case roleIdle:
		return nil
	}
	return c.recvInto(rb, rcount, rdt, root, tagScatter, "Scatterv receive")
}

// interAllgatherv: every member sends its part to every remote member.
func interAllgatherv(c *Comm, sb []byte, scount int, sdt Datatype, rb []byte, rcounts, displs []int, rdt Datatype) error {
	if err := noInPlace("Allgatherv", sb, rb); err != nil {
		return err
	}
	mine, err := sendData(sb, scount, sdt, "Allgatherv send")
	if err != nil {
		return err
	}
	rl, err := makeLayout(rb, rdt, rcounts, displs, c.RemoteSize(), "Allgatherv receive")
	if err != nil {
		return err
	}
	var reqs []*Request
	for i := range c.RemoteSize() {
		dst, un := rl.into(i)
		reqs = append(reqs, c.icrecv(dst, un, i, tagAllgather), c.icsend(mine, i, tagAllgather))
	}
	return waitReqs(reqs)
}

func interAlltoallv(c *Comm, sb []byte, scounts, sdispls []int, sdt Datatype, rb []byte, rcounts, rdispls []int, rdt Datatype) error {
	if err := noInPlace("Alltoallv", sb, rb); err != nil {
		return err
	}
	n := c.RemoteSize()
	sl, err := makeLayout(sb, sdt, scounts, sdispls, n, "Alltoallv send")
	if err != nil {
		return err
	}
	rl, err := makeLayout(rb, rdt, rcounts, rdispls, n, "Alltoallv receive")
	if err != nil {
		return err
	}
	var reqs []*Request
	for i := range n {
		dst, un := rl.into(i)
		reqs = append(reqs, c.icrecv(dst, un, i, tagAlltoall), c.icsend(sl.data(i), i, tagAlltoall))
	}
	return waitReqs(reqs)
}

// checkThen runs f once c passes check.
func (c *Comm) checkThen(what string, f func() error) error {
	if err := c.check(what); err != nil {
		return err
	}
	return f()
}
