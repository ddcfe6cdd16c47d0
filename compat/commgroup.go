package compat

import (
	"hash/fnv"
	"slices"
)

// Communicators made collectively over the members of a group only
// (MPI_Comm_create_group, and MPI-4's MPI_Comm_create_from_group and
// MPI_Intercomm_create_from_groups): the members agree on a context among
// themselves through point-to-point messages in the parent's collective
// context (the world's, for the calls made from groups), with a tag of
// their own, so that the parent's other members may do anything
// meanwhile.

// The tags of those agreements: a user's tag of MPI_Comm_create_group, a
// string tag's hash, and the leaders' exchange of the intercommunicator
// made from groups, in disjoint ranges above the collectives' own tags.
const (
	tagCreateGroup = 1 << 30
	tagFromGroup   = 1 << 29
	tagFromLeaders = 1 << 28
	tagDupAsync    = 1 << 27
)

// asyncBase is where the contexts DupAsync takes start: apart from the
// others, which the calling goroutine may be agreeing on meanwhile.
const asyncBase = 1 << 30

// CreateGroup returns a communicator over g, a subgroup of c
// (MPI_Comm_create_group). Collective only over g's members, which pass
// the same tag; concurrent calls over overlapping groups need different
// tags. A PE outside g gets nil.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	const what = "CreateGroup"
	if err := c.intraOnly(what); err != nil {
		return nil, err
	}
	if err := errorsOf(g.check(what), tagArg(tag, false, what)); err != nil {
		return nil, err
	}
	return c.groupComm(g, int32(tagCreateGroup|tag&(tagCreateGroup-1)), what)
}

// CommFromGroup returns a communicator over g (MPI_Comm_create_from_group):
// collective over g's members, which pass the same string tag (concurrent
// calls over overlapping groups need different ones).
func (e *Env) CommFromGroup(g *Group, tag string) (*Comm, error) {
	const what = "CommFromGroup"
	if err := g.check(what); err != nil {
		return nil, err
	}
	return e.world.groupComm(g, int32(tagFromGroup|strTag(tag)&(tagFromGroup-1)), what)
}

func strTag(s string) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() & 0x7fffffff)
}

// groupComm makes the communicator over g, a subgroup of c, agreeing on
// its context over g's members only: each sends its next context to g's
// rank 0, which sends back the largest.
func (c *Comm) groupComm(g *Group, tag int32, what string) (*Comm, error) {
	for _, pe := range g.world {
		if c.toRank[pe] < 0 {
			return nil, errorf(ClassGroup, "%s: world PE %d is not in communicator %s", what, pe, c.name)
		}
	}
	me := g.Rank()
	if me == Undefined {
		if g.Size() == 0 {
			return nil, nil
		}
		return nil, errorf(ClassGroup, "%s: the calling PE is not a member of the group", what)
	}
	e := c.env
	id, err := e.agreeContext(ctxPrio{uint64(c.ctx), prioGroup, uint64(uint32(tag))}, func(mine uint64) (uint64, error) {
		return c.agreeMax(g, tag, mine)
	})
	if err != nil {
		return nil, err
	}
	return c.derive(id, newGroup(slices.Clone(g.world), e.me), c.name+"/group", nil), nil
}

// IntercommFromGroups makes an intercommunicator between the local group
// and the remote one (MPI_Intercomm_create_from_groups): collective over
// both; each group's members pass the same leaders (ranks in their
// groups: the local one in local, the remote one in remote) and every
// member of both the same string tag.
func (e *Env) IntercommFromGroups(local *Group, localLeader int, remote *Group, remoteLeader int, tag string) (*Comm, error) {
	const what = "IntercommFromGroups"
	if err := errorsOf(local.check(what), remote.check(what)); err != nil {
		return nil, err
	}
	if localLeader < 0 || localLeader >= local.Size() || remoteLeader < 0 || remoteLeader >= remote.Size() {
		return nil, errorf(ClassRank, "%s: leaders %d of %d and %d of %d", what, localLeader, local.Size(), remoteLeader, remote.Size())
	}
	lc, err := e.CommFromGroup(local, tag)
	if err != nil {
		return nil, err
	}
	if lc == nil {
		return nil, errorf(ClassGroup, "%s: the calling PE is not in the local group", what)
	}
	peerPE, t := remote.world[remoteLeader], int32(tagFromLeaders|strTag(tag)&(tagFromLeaders-1))
	ic, err := lc.intercomm(localLeader, what, func() error { return nil }, func(mine []int64) ([]int64, error) {
		return e.world.swapWith(peerPE, t, e.world.cctx(), mine)
	})
	return ic, errorsOf(err, lc.Free())
}

// agreeMax returns the largest v of g's members (g a subgroup of c, the
// calling PE in it), through messages with tag in c's collective context.
func (c *Comm) agreeMax(g *Group, tag int32, mine uint64) (uint64, error) {
	return c.agreeOp(g, tag, mine, func(a, b uint64) uint64 { return max(a, b) })
}

// agreeOp combines mine over g's members with op (associative and
// commutative), as agreeMax: g's rank 0 gathers and answers.
func (c *Comm) agreeOp(g *Group, tag int32, mine uint64, op func(a, b uint64) uint64) (uint64, error) {
	e, ctx, me := c.env, c.cctx(), g.Rank()
	v := []uint64{mine}
	if me != 0 {
		s := e.isend(asBytes(v), g.world[0], tag, ctx, false, -1)
		err := waitReqs([]*Request{s, e.irecv(c, asBytes(v), nil, g.world[0], int(tag), ctx)})
		return v[0], err
	}
	got := make([]uint64, g.Size())
	var reqs []*Request
	for i := 1; i < g.Size(); i++ {
		reqs = append(reqs, e.irecv(c, asBytes(got[i:i+1]), nil, g.world[i], int(tag), ctx))
	}
	if err := waitReqs(reqs); err != nil {
		return 0, err
	}
	for _, x := range got[1:] {
		v[0] = op(v[0], x)
	}
	reqs = reqs[:0]
	for i := 1; i < g.Size(); i++ {
		reqs = append(reqs, e.isend(asBytes(v), g.world[i], tag, ctx, false, -1))
	}
	return v[0], waitReqs(reqs)
}

// DupAsync is Dup for a goroutine that runs while the caller goes on using
// c, as MPI_Comm_idup does: it agrees on the context with messages of its
// own tag, from a range of contexts of its own, and the new communicator
// runs its collectives over point-to-point (making a shmem team would be a
// collective on c's). Calls on one c must not overlap (the C library's
// MPI_Comm_idup runs them in call order); calls on different
// communicators may, from any goroutines: their agreements take turns at
// each PE's allocator of DupAsync contexts, as the blocking calls' do at
// theirs (ctxalloc.go), so two with members in common never pick one
// context.
func (c *Comm) DupAsync() (*Comm, error) {
	if err := c.check("DupAsync"); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return c.interDup()
	}
	e := c.env
	ctx, err := agreeOn(&e.asynca, &e.asyncNext, parentPrio(c), func(mine uint64) (uint64, error) {
		return c.agreeMax(c.group, tagDupAsync, mine)
	})
	if err != nil {
		return nil, err
	}
	return c.derive(ctx, c.group, c.name+"'", nil), nil
}
