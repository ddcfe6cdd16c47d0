package compat

import (
	"cmp"
	"slices"
	"sync/atomic"

	"github.com/gshmem/gshmem/compat/internal/p2pstate"
	"github.com/gshmem/gshmem/shmem"
)

// collBit marks the context of a communicator's collective traffic, so
// that it never matches its point-to-point traffic.
const collBit = p2pstate.CollBit

// Comm is a communicator (MPI_Comm): a group of PEs and a context that
// keeps its messages apart from every other communicator's. Ranks are
// positions in the group. CommWorld and CommSelf come from the Env; Dup,
// Split and Create make others, collectively.
type Comm struct {
	env    *Env
	ctx    uint32
	group  *Group
	rank   int
	toRank []int32 // world rank -> rank here, -1 if not a member
	name   string
	// peers and fromPE are what point-to-point ranks name: the group's
	// members, or an intercommunicator's remote group (intercomm.go).
	peers  []int
	fromPE []int32 // world rank -> rank in peers, -1 if not there
	remote *Group  // an intercommunicator's remote group, or nil
	local  *Comm   // an intercommunicator's private intracommunicator over its local group
	// side is, on an intercommunicator across jobs (dynproc.go), 1 for
	// the accepting group and -1 for the connecting one: Merge's order
	// when both pass the same high. 0 within one World.
	side  int8
	freed atomic.Bool
	coll  collState
	topo  topology // a virtual topology (topo.go)
	ft    ftState  // revocation and acknowledged losses (ulfm.go)
}

func (c *Comm) init() {
	c.rank = c.group.Rank()
	c.toRank = make([]int32, c.env.npe())
	for i := range c.toRank {
		c.toRank[i] = -1
	}
	for r, pe := range c.group.world {
		c.toRank[pe] = int32(r)
	}
	c.peers, c.fromPE = c.group.world, c.toRank
}

// rankOf returns the point-to-point rank of world PE pe here (in the
// remote group of an intercommunicator).
func (c *Comm) rankOf(pe int) int { return int(c.fromPE[pe]) }

// RankOf returns the rank of world PE pe in the communicator, or Undefined
// when pe is not a member (or not a PE): WorldRank's inverse.
func (c *Comm) RankOf(pe int) int {
	if c == nil || pe < 0 || pe >= len(c.toRank) || c.toRank[pe] < 0 {
		return Undefined
	}
	return int(c.toRank[pe])
}

func (c *Comm) check(what string) error {
	if c != nil && !c.freed.Load() && !c.env.closed.Load() {
		return nil
	}
	return c.checkError(what)
}

func (c *Comm) checkError(what string) error {
	switch {
	case c == nil:
		return errorf(ClassComm, "%s: nil communicator (MPI_COMM_NULL)", what)
	case c.freed.Load():
		return errorf(ClassComm, "%s: communicator %s was freed", what, c.name)
	case c.env.closed.Load():
		return errorf(ClassComm, "%s: the Env was finalized", what)
	}
	return nil
}

// Rank returns this PE's rank in the communicator (MPI_Comm_rank).
func (c *Comm) Rank() int {
	if c == nil {
		return Undefined
	}
	return c.rank
}

// Size returns the number of ranks (MPI_Comm_size).
func (c *Comm) Size() int {
	if c == nil {
		return 0
	}
	return len(c.group.world)
}

// Group returns the communicator's group (MPI_Comm_group).
func (c *Comm) Group() (*Group, error) {
	if err := c.check("Group"); err != nil {
		return nil, err
	}
	return c.group, nil
}

// Env returns the Env the communicator belongs to.
func (c *Comm) Env() *Env { return c.env }

// World returns the shmem World underneath.
func (c *Comm) World() *shmem.World { return c.env.w }

// WorldRank returns the world PE number of rank r, or -1 when r is out of
// range.
func (c *Comm) WorldRank(r int) int {
	if c == nil || r < 0 || r >= len(c.group.world) {
		return -1
	}
	return c.group.world[r]
}

// Name returns the communicator's name (MPI_Comm_get_name).
func (c *Comm) Name() string { return c.name }

// SetName names the communicator (MPI_Comm_set_name).
func (c *Comm) SetName(name string) { c.name = name }

// Free releases the communicator (MPI_Comm_free); later calls on it fail
// with ErrComm. It is local, as MPI's is (collective in name only): the
// members may free it in any order, operations pending on it complete,
// and a member may still send on it to one that freed it. The shmem team
// under it is released (shmem.Team.Release), and its heap slot recycled
// once every member has freed the communicator. CommWorld and CommSelf
// cannot be freed.
func (c *Comm) Free() error {
	if err := c.check("Free"); err != nil {
		return err
	}
	if c == c.env.world || c == c.env.self {
		return errorf(ClassComm, "Free: %s cannot be freed", c.name)
	}
	c.freed.Store(true)
	c.env.unregister(c)
	if c.local != nil {
		return c.local.Free()
	}
	return c.releaseTeam()
}

// releaseTeam gives up c's shmem team, without waiting for the other
// members (shmem.Team.Release).
func (c *Comm) releaseTeam() error {
	t := c.coll.team
	if t == nil {
		return nil
	}
	c.coll.team = nil
	e := c.env
	e.teamComms = slices.DeleteFunc(e.teamComms, func(x *Comm) bool { return x == c })
	return wrap(t.Release(), "freeing the communicator's team")
}

// newContext agrees on a fresh context id over c: one above every id any
// member has used, so it is unique among the members (ctxalloc.go).
func (c *Comm) newContext() (uint32, error) {
	return c.env.agreeContext(parentPrio(c), func(mine uint64) (uint64, error) {
		out := []uint64{0}
		err := Allreduce(c, []uint64{mine}, out, 1, Uint64, OpMax)
		return out[0], err
	})
}

func (c *Comm) derive(ctx uint32, g *Group, name string, t *shmem.Team) *Comm {
	n := &Comm{env: c.env, ctx: ctx, group: g, name: name}
	n.init()
	if t != nil {
		n.coll.team = t
		c.env.teamComms = append(c.env.teamComms, n)
	}
	c.env.register(n)
	return n
}

// splitTeams makes the shmem teams of new communicators, one SplitList of
// c's team per list of c's ranks, in the same order on every member, and
// returns this PE's (nil when it is in none, or c has no team, or the team
// limit is reached: the new communicator then runs its collectives over
// point-to-point).
func (c *Comm) splitTeams(lists [][]int) *shmem.Team {
	if c.coll.team == nil || c.env.multiple {
		return nil
	}
	var mine *shmem.Team
	for _, l := range lists {
		var t *shmem.Team
		err := c.teamRun(func() (err error) { t, err = c.coll.team.SplitList(l); return err })
		if err != nil {
			c.env.w.Logger().Debugf("compat: no team for a new communicator, using point-to-point collectives: %v", err)
			continue
		}
		if t != nil {
			mine = t
		}
	}
	return mine
}

func ranks(n int) []int {
	l := make([]int, n)
	for i := range l {
		l[i] = i
	}
	return l
}

// Dup returns a communicator with the same group and a new context
// (MPI_Comm_dup). Collective over c.
func (c *Comm) Dup() (*Comm, error) {
	if err := c.check("Dup"); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return c.interDup()
	}
	ctx, err := c.newContext()
	if err != nil {
		return nil, err
	}
	t := c.splitTeams([][]int{ranks(c.Size())})
	d := c.derive(ctx, c.group, c.name+"'", t)
	d.topo = c.topo // a duplicate keeps the topology
	return d, nil
}

// Split partitions c by color; within a color, ranks are ordered by key,
// then by rank in c (MPI_Comm_split). Collective over c. A PE that passes
// Undefined as its color gets nil (MPI_COMM_NULL).
func (c *Comm) Split(color, key int) (*Comm, error) {
	if err := c.check("Split"); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		return nil, errorf(ClassArg, "Split: color %d: colors are non-negative or Undefined", color)
	}
	if c.remote != nil {
		return c.interSplit(color, key)
	}
	all := make([]int64, 2*c.Size())
	if err := Allgather(c, []int64{int64(color), int64(key)}, 2, Int64, all, 2, Int64); err != nil {
		return nil, err
	}
	ctx, err := c.newContext()
	if err != nil {
		return nil, err
	}
	// Every member computes every color's ranks, ordered by key then rank.
	type member struct{ color, key, rank int }
	ms := make([]member, 0, c.Size())
	for r := range c.Size() {
		if col := int(all[2*r]); col != Undefined {
			ms = append(ms, member{col, int(all[2*r+1]), r})
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int {
		return cmp.Or(cmp.Compare(a.color, b.color), cmp.Compare(a.key, b.key), cmp.Compare(a.rank, b.rank))
	})
	var lists [][]int
	var mine []int
	for i, m := range ms {
		if i == 0 || ms[i-1].color != m.color {
			lists = append(lists, nil)
		}
		lists[len(lists)-1] = append(lists[len(lists)-1], m.rank)
		if m.color == color {
			mine = lists[len(lists)-1]
		}
	}
	t := c.splitTeams(lists)
	if color == Undefined {
		return nil, nil
	}
	w := make([]int, len(mine))
	for i, r := range mine {
		w[i] = c.group.world[r]
	}
	return c.derive(ctx, newGroup(w, c.env.me), c.name+"/split", t), nil
}

// Create returns a communicator over g, a subgroup of c (MPI_Comm_create).
// Collective over c, every member passing the same group; members outside
// g get nil.
func (c *Comm) Create(g *Group) (*Comm, error) {
	if err := c.check("Create"); err != nil {
		return nil, err
	}
	if err := g.check("Create"); err != nil {
		return nil, err
	}
	if c.remote != nil {
		return c.interCreate(g)
	}
	for _, pe := range g.world {
		if c.toRank[pe] < 0 {
			return nil, errorf(ClassGroup, "Create: world PE %d is not in communicator %s", pe, c.name)
		}
	}
	ctx, err := c.newContext()
	if err != nil {
		return nil, err
	}
	list := make([]int, len(g.world))
	for i, pe := range g.world {
		list[i] = int(c.toRank[pe])
	}
	var t *shmem.Team
	if len(list) > 0 {
		t = c.splitTeams([][]int{list})
	}
	if g.Rank() == Undefined {
		return nil, nil
	}
	return c.derive(ctx, newGroup(slices.Clone(g.world), c.env.me), c.name+"/create", t), nil
}

// Compare compares two communicators (MPI_Comm_compare): Ident for the
// same communicator, Congruent for the same group in the same order,
// Similar for the same members, else Unequal.
func (c *Comm) Compare(d *Comm) (int, error) {
	if err := errorsOf(c.check("Compare"), d.check("Compare")); err != nil {
		return Unequal, err
	}
	if c == d {
		return Ident, nil
	}
	if c.remote != nil || d.remote != nil {
		return c.interCompare(d), nil
	}
	r, _ := c.group.Compare(d.group)
	if r == Ident {
		return Congruent, nil
	}
	return r, nil
}

// peerArg checks a peer rank: in range, or ProcNull, or (for receives and
// probes) AnySource; it returns the world rank or the special value. As
// check, tagArg and Datatype.Err, which every call makes, it keeps its
// common case small and the rest in a function of its own.
func (c *Comm) peerArg(r int, wild bool, what string) (int, error) {
	if w := c.peers; uint(r) < uint(len(w)) {
		return w[r], nil
	}
	return c.specialPeer(r, wild, what)
}

func (c *Comm) specialPeer(r int, wild bool, what string) (int, error) {
	switch {
	case r == ProcNull:
		return ProcNull, nil
	case r == AnySource && wild:
		return AnySource, nil
	}
	return 0, errorf(ClassRank, "%s: rank %d of a communicator of %d", what, r, len(c.peers))
}

func tagArg(tag int, wild bool, what string) error {
	if uint(tag) <= TagUB || (tag == AnyTag && wild) {
		return nil
	}
	return tagError(tag, wild, what)
}

func tagError(tag int, wild bool, what string) error {
	return errorf(ClassTag, "%s: tag %d (tags are 0 to %d%s)", what, tag, TagUB, map[bool]string{true: ", or AnyTag", false: ""}[wild])
}

// Probe blocks until a message from src with tag can be received and
// returns its Status without receiving it (MPI_Probe). src may be
// AnySource and tag AnyTag.
func (c *Comm) Probe(src, tag int) (Status, error) {
	st, _, err := c.probe(src, tag, true)
	return st, err
}

// Iprobe is Probe that does not block: ok reports whether such a message
// is there (MPI_Iprobe).
func (c *Comm) Iprobe(src, tag int) (ok bool, st Status, err error) {
	st, ok, err = c.probe(src, tag, false)
	return ok, st, err
}

func (c *Comm) probe(src, tag int, block bool) (Status, bool, error) {
	if err := c.check("Probe"); err != nil {
		return Status{}, false, err
	}
	pe, err := c.peerArg(src, true, "Probe")
	if err != nil {
		return Status{}, false, err
	}
	if err := errorsOf(tagArg(tag, true, "Probe"), c.ftCheck("Probe", pe, false)); err != nil {
		return Status{}, false, err
	}
	if pe == ProcNull {
		return nullStatus(), true, nil
	}
	e := c.env
	var st Status
	ok := false
	var lost error // another job's process that is gone (dynclose.go)
	found := func() bool {
		if c.ft.revoked.Load() {
			return true // revoked meanwhile (revoke.go): below
		}
		i := e.findUnexpected(c.ctx, pe, tag)
		if i >= 0 {
			m := e.unexpected[i]
			st = Status{Source: c.rankOf(m.src), Tag: int(m.tag), bytes: m.size}
		}
		ok = i >= 0
		if !ok {
			lost = c.linkLostErr(pe, "Probe")
		}
		return ok || lost != nil || c.probeLoss("Probe", pe, nil) != nil // anysource.go
	}
	if block {
		err := e.waitFor(found)
		switch {
		case c.ft.revoked.Load():
			err = errorf(ClassRevoked, "Probe: communicator %s was revoked", c.name)
		case ok:
			err = nil
		case err == nil && lost != nil:
			err = lost
		default:
			err = probeFailed(c, "Probe", pe, err)
		}
		return st, err == nil, err
	}
	e.mu.Lock()
	e.progress()
	found()
	e.mu.Unlock()
	if c.ft.revoked.Load() {
		return Status{}, false, errorf(ClassRevoked, "Iprobe: communicator %s was revoked", c.name)
	}
	if lost != nil {
		return Status{}, false, lost
	}
	if !ok {
		return Status{}, false, c.probeLoss("Iprobe", pe, nil)
	}
	return st, ok, nil
}
