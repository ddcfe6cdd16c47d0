package compat

import (
	"cmp"
	"slices"

	"github.com/gshmem/gshmem/internal/mpierr"
)

// Intercommunicators (MPI-4.1 §7.6). An intercommunicator joins two
// disjoint groups: its group is the local one (Rank and Size are there),
// and the ranks of its point-to-point calls and collective roots name the
// remote group. Each one keeps a private intracommunicator over its local
// group for the local phases of its collectives, and its own context, on
// which only messages between the two groups travel.

// Root is MPI_ROOT: the root argument of the root itself in a rooted
// collective on an intercommunicator (the other members of its group pass
// ProcNull).
const Root = -4

// tagInter is the tag of the leaders' exchanges that make and change
// intercommunicators, in the intercommunicator's collective context (or
// the parent's, for the contexts of new ones).
const tagInter int32 = tagScan + 1

// IsInter reports whether c is an intercommunicator (MPI_Comm_test_inter).
func (c *Comm) IsInter() bool { return c != nil && c.remote != nil }

// RemoteSize returns the size of an intercommunicator's remote group
// (MPI_Comm_remote_size), 0 for an intracommunicator.
func (c *Comm) RemoteSize() int {
	if !c.IsInter() {
		return 0
	}
	return len(c.remote.world)
}

// RemoteGroup returns an intercommunicator's remote group
// (MPI_Comm_remote_group); on an intracommunicator it is ErrComm.
func (c *Comm) RemoteGroup() (*Group, error) {
	if err := c.check("RemoteGroup"); err != nil {
		return nil, err
	}
	if c.remote == nil {
		return nil, errorf(ClassComm, "RemoteGroup: %s is not an intercommunicator", c.name)
	}
	return c.remote, nil
}

func (c *Comm) intraOnly(what string) error {
	if err := c.check(what); err != nil {
		return err
	}
	if c.remote != nil {
		return errorf(ClassComm, "%s: %s is an intercommunicator", what, c.name)
	}
	return nil
}

func (c *Comm) interOnly(what string) error {
	if err := c.check(what); err != nil {
		return err
	}
	if c.remote == nil {
		return errorf(ClassComm, "%s: %s is not an intercommunicator", what, c.name)
	}
	return nil
}

// newInter makes the intercommunicator with context ctx between local's
// group (local becomes its private intracommunicator) and the PEs remote.
func (e *Env) newInter(ctx uint32, local *Comm, remote []int, name string) *Comm {
	n := &Comm{env: e, ctx: ctx, group: local.group, name: name, local: local, remote: newGroup(remote, e.me)}
	n.init()
	n.peers = n.remote.world
	n.fromPE = make([]int32, e.npe())
	for i := range n.fromPE {
		n.fromPE[i] = -1
	}
	defer e.register(n)
	for r, pe := range remote {
		n.fromPE[pe] = int32(r)
	}
	return n
}

// swapWith sends mine to world PE pe and returns what pe sent back, both
// of any length, with tag in context ctx (c names the source in errors).
func (c *Comm) swapWith(pe int, tag int32, ctx uint32, mine []int64) ([]int64, error) {
	e := c.env
	n := []int64{int64(len(mine))}
	var rn [1]int64
	s := e.isend(asBytes(n), pe, tag, ctx, false, -1)
	if err := waitReqs([]*Request{e.irecv(c, asBytes(rn[:]), nil, pe, int(tag), ctx), s}); err != nil {
		return nil, err
	}
	if rn[0] < 0 || rn[0] > 1<<26 {
		return nil, errorf(ClassOther, "a peer leader sent a bad length %d", rn[0])
	}
	got := make([]int64, rn[0])
	s = e.isend(asBytes(mine), pe, tag, ctx, false, -1)
	if err := waitReqs([]*Request{e.irecv(c, asBytes(got), nil, pe, int(tag), ctx), s}); err != nil {
		return nil, err
	}
	return got, nil
}

// share gives every member of the intercommunicator's local group what
// the remote group's rank 0 passed as mine (a leaders' swap, then a
// broadcast over the local group).
func (c *Comm) share(mine []int64) ([]int64, error) {
	var got []int64
	var err error
	if c.local.rank == 0 {
		if got, err = c.swapWith(c.remote.world[0], tagInter, c.cctx(), mine); err != nil {
			return nil, err
		}
	}
	return bcastInts(c.local, got, 0)
}

// bcastInts broadcasts root's vals (of any length) over the
// intracommunicator l.
func bcastInts(l *Comm, vals []int64, root int) ([]int64, error) {
	n := []int64{int64(len(vals))}
	if err := Bcast(l, n, 1, Int64, root); err != nil {
		return nil, err
	}
	if l.rank != root {
		vals = make([]int64, n[0])
	}
	if err := Bcast(l, vals, len(vals), Int64, root); err != nil {
		return nil, err
	}
	return vals, nil
}

// interContext agrees on a context id over both groups of c: one above
// every id any member of either has used (ctxalloc.go).
func (c *Comm) interContext() (uint32, error) {
	return c.env.agreeContext(parentPrio(c), func(mine uint64) (uint64, error) {
		out := []uint64{0}
		if err := Allreduce(c.local, []uint64{mine}, out, 1, Uint64, OpMax); err != nil {
			return 0, err
		}
		got, err := c.share([]int64{int64(out[0])})
		if err != nil {
			return 0, err
		}
		return max(out[0], uint64(got[0])), nil
	})
}

// takeContext takes the agreed id v: called by the agreement holding
// e.ctxa.
func (e *Env) takeContext(v uint64) (uint32, error) { return takeID(&e.nextCtx, v) }

// takeID takes the agreed id v of an allocator whose next id is *next.
func takeID(next *uint32, v uint64) (uint32, error) {
	if v >= collBit-1 {
		return 0, errorf(ClassOther, "out of communicator contexts")
	}
	*next = max(*next, uint32(v)+1)
	return uint32(v), nil
}

// IntercommCreate makes an intercommunicator between the group of c (the
// local communicator) and another, disjoint group (MPI_Intercomm_create).
// Collective over both groups: every member of each passes its group's
// leader (a rank in c); the leaders also pass a communicator holding both
// (peer; other members' peer is not used), the other leader's rank in it
// and a tag, and exchange the groups over it.
func (c *Comm) IntercommCreate(localLeader int, peer *Comm, remoteLeader, tag int) (*Comm, error) {
	const what = "IntercommCreate"
	if err := c.intraOnly(what); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= c.Size() {
		return nil, errorf(ClassRank, "%s: local leader %d of a communicator of %d", what, localLeader, c.Size())
	}
	var leaderPE int
	leaderArgs := func() error {
		if err := peer.check(what); err != nil {
			return err
		}
		if peer.Spans() {
			// The leaders swap world PE numbers, which are each
			// process's own across jobs.
			return errorf(mpierr.ClassUnsupportedOperation, "%s: a peer communicator with members in another job (use the intercommunicator to that job, or its Merge, directly)", what)
		}
		pe, err := peer.peerArg(remoteLeader, false, what)
		if err == nil && pe == ProcNull {
			err = errorf(ClassRank, "%s: the remote leader is ProcNull", what)
		}
		leaderPE = pe
		return errorsOf(err, tagArg(tag, false, what))
	}
	return c.intercomm(localLeader, what, leaderArgs, func(mine []int64) ([]int64, error) {
		return peer.swapWith(leaderPE, int32(tag), peer.ctx, mine)
	})
}

// intercomm is IntercommCreate's and IntercommFromGroups' body: a private
// duplicate of c, the leaders' exchange of contexts and groups (swap, at
// the leader once leaderArgs passes), and its broadcast.
func (c *Comm) intercomm(leader int, what string, leaderArgs func() error, swap func([]int64) ([]int64, error)) (*Comm, error) {
	ctx, err := c.newContext()
	if err != nil {
		return nil, err
	}
	// No shmem team for the local phases: a team collective uses the
	// Env's one scratch area, and the C ABI runs an intercommunicator's
	// nonblocking collectives on goroutines beside the caller's own.
	lc := c.derive(ctx, c.group, c.name+"/local", nil)
	// got is, at the leader: 1 (or 0 and the error), the remote side's
	// local context (which, with this side's, makes the agreement's
	// priority, the same on both sides), then the remote group's PEs.
	var got []int64
	var lerr error
	if c.rank == leader {
		lerr = leaderArgs()
		if lerr == nil {
			mine := append([]int64{int64(lc.ctx)}, ints64(c.group.world)...)
			var r []int64
			if r, lerr = swap(mine); lerr == nil && len(r) < 1 {
				lerr = errorf(ClassOther, "%s: the remote leader sent nothing", what)
			}
			if lerr == nil {
				got = append([]int64{1}, r...)
			}
		}
		if lerr != nil {
			got = []int64{0, 0}
		}
	}
	if got, err = bcastInts(lc, got, leader); err != nil {
		return nil, errorsOf(err, freeIf(lc))
	}
	if got[0] != 1 {
		if lerr == nil {
			lerr = errorf(ClassOther, "%s: the local leader failed", what)
		}
		return nil, errorsOf(lerr, freeIf(lc))
	}
	remote := make([]int, len(got)-2)
	for i, v := range got[2:] {
		remote[i] = int(v)
		if v < 0 || int(v) >= c.env.npe() || c.toRank[v] >= 0 {
			return nil, errorsOf(errorf(ClassComm, "%s: the groups overlap (world PE %d) or the remote group is bad", what, v), freeIf(lc))
		}
	}
	a, b := uint64(lc.ctx), uint64(got[1])
	prio := ctxPrio{min(a, b), prioInter, max(a, b)}
	// Each round: the maximum over this side, the leaders' exchange, the
	// larger of the two sides broadcast (-1: the leader's exchange failed).
	ictx, err := c.env.agreeContext(prio, func(mine uint64) (uint64, error) {
		mx := []uint64{0}
		if err := Allreduce(lc, []uint64{mine}, mx, 1, Uint64, OpMax); err != nil {
			return 0, err
		}
		var v []int64
		if c.rank == leader {
			v = []int64{-1}
			r, err := swap([]int64{int64(mx[0])})
			if lerr = err; err == nil && len(r) == 1 {
				v[0] = max(int64(mx[0]), r[0])
			}
		}
		v, err := bcastInts(lc, v, leader)
		if err == nil && (len(v) != 1 || v[0] < 0) {
			err = cmp.Or(lerr, errorf(ClassOther, "%s: the leaders' exchange of contexts failed", what))
		}
		if err != nil {
			return 0, err
		}
		return uint64(v[0]), nil
	})
	if err != nil {
		return nil, errorsOf(err, freeIf(lc))
	}
	return c.env.newInter(ictx, lc, remote, c.name+"/inter"), nil
}

func ints64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// Merge returns the intracommunicator over both groups of the
// intercommunicator c (MPI_Intercomm_merge): the group whose members pass
// high false first; when both pass the same, the group whose rank 0 has
// the lower world rank first. Collective over both groups; every member
// of a group passes the same high.
func (c *Comm) Merge(high bool) (*Comm, error) {
	if err := c.interOnly("Merge"); err != nil {
		return nil, err
	}
	h := int64(0)
	if high {
		h = 1
	}
	got, err := c.share([]int64{h})
	if err != nil {
		return nil, err
	}
	if len(got) != 1 {
		return nil, errorf(ClassOther, "Merge: a bad reply from the remote leader")
	}
	ctx, err := c.interContext()
	if err != nil {
		return nil, err
	}
	first := h < got[0] || h == got[0] && c.lowFirst()
	w := slices.Concat(c.group.world, c.remote.world)
	if !first {
		w = slices.Concat(c.remote.world, c.group.world)
	}
	return c.derive(ctx, newGroup(w, c.env.me), c.name+"/merged", nil), nil
}

// lowFirst says whether c's local group comes first in Merge when both
// groups pass the same high: the one whose rank 0 has the lower world
// rank, or across jobs, where world ranks are this process's own, the
// accepting side (side).
func (c *Comm) lowFirst() bool {
	if c.side != 0 {
		return c.side > 0
	}
	return c.group.world[0] < c.remote.world[0]
}

// sameSide gives n, made from the intercommunicator c, c's side.
func (c *Comm) sameSide(n *Comm) *Comm {
	if n != nil {
		n.side = c.side
	}
	return n
}

func (c *Comm) interDup() (*Comm, error) {
	lc, err := c.local.Dup()
	if err != nil {
		return nil, err
	}
	ctx, err := c.interContext()
	if err != nil {
		return nil, errorsOf(err, freeIf(lc))
	}
	return c.sameSide(c.env.newInter(ctx, lc, c.remote.world, c.name+"'")), nil
}

// interSplit is Split on an intercommunicator: the new one joins the
// members of each group that passed the same color, ordered by key then
// rank; a PE whose color has no members in the other group gets nil.
func (c *Comm) interSplit(color, key int) (*Comm, error) {
	nl := c.Size()
	all := make([]int64, 2*nl)
	if err := Allgather(c.local, []int64{int64(color), int64(key)}, 2, Int64, all, 2, Int64); err != nil {
		return nil, err
	}
	theirs, err := c.share(all)
	if err != nil {
		return nil, err
	}
	if len(theirs) != 2*c.RemoteSize() {
		return nil, errorf(ClassOther, "Split: the remote leader sent %d values for %d members", len(theirs), c.RemoteSize())
	}
	lc, err := c.local.Split(color, key)
	if err != nil {
		return nil, err
	}
	ctx, err := c.interContext()
	if err != nil || color == Undefined {
		return nil, errorsOf(err, freeIf(lc))
	}
	type member struct{ key, rank int }
	var ms []member
	for r := range c.RemoteSize() {
		if int(theirs[2*r]) == color {
			ms = append(ms, member{int(theirs[2*r+1]), r})
		}
	}
	if len(ms) == 0 {
		return nil, freeIf(lc)
	}
	slices.SortStableFunc(ms, func(a, b member) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.rank, b.rank)) })
	remote := make([]int, len(ms))
	for i, m := range ms {
		remote[i] = c.remote.world[m.rank]
	}
	return c.sameSide(c.env.newInter(ctx, lc, remote, c.name+"/split")), nil
}

// interCreate is Create on an intercommunicator: g is a subgroup of the
// local group; the new intercommunicator joins it and the group the other
// side passed, and is nil where either is empty or the PE is outside g.
func (c *Comm) interCreate(g *Group) (*Comm, error) {
	for _, pe := range g.world {
		if c.toRank[pe] < 0 {
			return nil, errorf(ClassGroup, "Create: world PE %d is not in the local group of %s", pe, c.name)
		}
	}
	mine := make([]int64, len(g.world))
	for i, pe := range g.world {
		mine[i] = int64(c.toRank[pe])
	}
	theirs, err := c.share(mine)
	if err != nil {
		return nil, err
	}
	lc, err := c.local.Create(g)
	if err != nil {
		return nil, err
	}
	ctx, err := c.interContext()
	if err != nil || lc == nil {
		return nil, errorsOf(err, freeIf(lc))
	}
	if len(theirs) == 0 {
		return nil, freeIf(lc)
	}
	remote := make([]int, len(theirs))
	for i, v := range theirs {
		if v < 0 || int(v) >= len(c.remote.world) {
			return nil, errorsOf(errorf(ClassGroup, "Create: the remote group names rank %d outside it", v), freeIf(lc))
		}
		remote[i] = c.remote.world[v]
	}
	return c.sameSide(c.env.newInter(ctx, lc, remote, c.name+"/create")), nil
}

// interCompare is Compare where either is an intercommunicator: Congruent
// when both groups are the same in the same order, Similar when they have
// the same members, else Unequal.
func (c *Comm) interCompare(d *Comm) int {
	if c.remote == nil || d.remote == nil {
		return Unequal
	}
	l, _ := c.group.Compare(d.group)
	r, _ := c.remote.Compare(d.remote)
	switch {
	case l == Ident && r == Ident:
		return Congruent
	case l != Unequal && r != Unequal:
		return Similar
	}
	return Unequal
}

// freeIf frees c unless it is nil.
func freeIf(c *Comm) error {
	if c == nil {
		return nil
	}
	return c.Free()
}
