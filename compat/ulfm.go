package compat

import (
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gshmem/gshmem/shmem"
)

// User-level fault mitigation (the MPIX_Comm_* extensions of Open MPI and
// MPICH): a survivor of a lost PE learns of the loss as an error of class
// ClassProcFailed (it wraps shmem.ErrPeerLost and names the PE), agrees
// with the other survivors on who is lost (Agree, Shrink) and goes on over
// a communicator of the survivors (Shrink).
//
// The rule, with the shmem core's: until this PE has agreed on a loss
// (Agree or Shrink on a communicator holding the lost PE), the first loss
// of the job ends every wait of this PE, as the job cannot complete as
// written. Agree and Shrink excuse the lost members they agreed on
// (shmem.World.ExcuseLost): from then on only the operations that involve
// them fail (a collective on a communicator holding them, a send to or a
// receive from them), and the rest (point-to-point among survivors, any
// communicator of survivors) go on. Goroutine PEs (shmem.Run) cannot go
// on after a loss: their Agree and Shrink return the loss.

// ftState is a communicator's fault-tolerance state.
type ftState struct {
	revoked  atomic.Bool
	mu       sync.Mutex
	acked    []int  // world PEs whose loss FailureAck acknowledged
	onRevoke func() // OnRevoke's (revoke.go)
}

// The tags of the agreements, in the collective context, apart from the
// others (commgroup.go): the low bits hash the agreeing PE's view of the
// lost members, so that only PEs that see the same losses agree.
const (
	tagAgree    = 1 << 26
	tagShrink   = 1 << 25
	tagFinalize = 1 << 24
)

// excuse records that this PE agreed to go on without the world PEs pes
// (Agree, Shrink): Finalize then does not report their loss.
func (e *Env) excuse(pes []int) {
	e.excuseMu.Lock()
	defer e.excuseMu.Unlock()
	for _, pe := range pes {
		if !slices.Contains(e.excused, pe) {
			e.excused = append(e.excused, pe)
		}
	}
}

// lostMembers returns the world PEs of c's group that are known lost.
func (c *Comm) lostMembers() []int {
	var out []int
	for _, pe := range c.env.w.LostPEs() {
		if pe < len(c.toRank) && c.toRank[pe] >= 0 {
			out = append(out, pe)
		}
	}
	return out
}

// suspect reports whether c may be revoked or hold a lost member: one
// load of the job's loss word on the path of every collective.
func (c *Comm) suspect() bool {
	if c.ft.revoked.Load() {
		return true
	}
	d := c.env.down
	return d != nil && atomic.LoadUint32(d) != 0
}

// ftCheck returns ClassRevoked for a revoked c, and ClassProcFailed for a
// collective (coll) on a communicator holding a lost member or a
// point-to-point call with lost peer pe (a world PE; negative for
// MPI_PROC_NULL and MPI_ANY_SOURCE, which no loss fails here).
func (c *Comm) ftCheck(what string, pe int, coll bool) error {
	if !c.suspect() {
		return nil
	}
	if c.ft.revoked.Load() {
		return errorf(ClassRevoked, "%s: communicator %s was revoked", what, c.name)
	}
	lost := c.lostMembers()
	if !coll {
		if slices.Contains(lost, pe) {
			return errorf(ClassProcFailed, "%s: world rank %d (rank %d of %s) is lost", what, pe, c.rankOf(pe), c.name)
		}
		return nil
	}
	if len(lost) > 0 {
		return errorf(ClassProcFailed, "%s: world rank %d (rank %d of %s) is lost", what, lost[0], c.toRank[lost[0]], c.name)
	}
	return nil
}

// Revoke revokes c (MPIX_Comm_revoke) at every member (revoke.go): this
// PE's and the other members' pending operations on c end with
// ClassRevoked (a send already matched completes), and every later call
// on c but Agree, Shrink, FailureAck, FailureGetAcked, GetFailed, Revoke,
// Group and Free returns ClassRevoked. The other members learn of it at
// their next progress (any call; a wait makes progress).
func (c *Comm) Revoke() error {
	if err := c.checkError("Revoke"); err != nil {
		return err
	}
	e := c.env
	e.mu.Lock()
	e.revoke(c, -1)
	e.progress()
	e.mu.Unlock()
	return nil
}

// Revoked reports whether Revoke was called on c.
func (c *Comm) Revoked() bool { return c.ft.revoked.Load() }

// FailureAck acknowledges the losses of c's members this PE knows of
// (MPIX_Comm_failure_ack): FailureGetAcked returns them, Agree no longer
// reports them, and receives from AnySource on c wait again instead of
// failing for them (anysource.go). This PE's waits elsewhere no longer end
// for those losses either (shmem.World.ExcuseLost), as they would until an
// Agree: what still involves the lost PEs (a collective on a communicator
// holding them, a receive naming them) fails as before.
func (c *Comm) FailureAck() error {
	if err := c.checkError("FailureAck"); err != nil {
		return err
	}
	lost := c.lostMembers()
	c.ft.mu.Lock()
	c.ft.acked = lost
	c.ft.mu.Unlock()
	if len(lost) > 0 {
		_ = c.env.w.ExcuseLost(lost) // goroutine PEs cannot go on: their waits keep failing
	}
	return nil
}

// FailureGetAcked returns the group of the members whose loss the last
// FailureAck acknowledged (MPIX_Comm_failure_get_acked), in the order of
// their world ranks.
func (c *Comm) FailureGetAcked() (*Group, error) {
	if err := c.checkError("FailureGetAcked"); err != nil {
		return nil, err
	}
	c.ft.mu.Lock()
	acked := slices.Clone(c.ft.acked)
	c.ft.mu.Unlock()
	return newGroup(acked, c.env.me), nil
}

// GetFailed returns the group of the members this PE knows to be lost
// (MPIX_Comm_get_failed), in the order of their world ranks.
func (c *Comm) GetFailed() (*Group, error) {
	if err := c.checkError("GetFailed"); err != nil {
		return nil, err
	}
	return newGroup(c.lostMembers(), c.env.me), nil
}

// Agree returns the bitwise AND of flag over the members of c that are
// not lost (MPIX_Comm_agree), the same on every one of them, which also
// agree on the lost members. It works on a revoked c. When a lost member
// was not acknowledged by this PE's FailureAck, it returns the value and
// an error of class ClassProcFailed naming that member.
func (c *Comm) Agree(flag int) (int, error) {
	const what = "Agree"
	if err := errorsOf(c.checkError(what), c.intraOnly(what)); err != nil {
		return flag, err
	}
	v, lost, err := c.agreeSurvivors(tagAgree, uint64(uint32(flag)), func(a, b uint64) uint64 { return a & b })
	if err != nil {
		return flag, err
	}
	c.ft.mu.Lock()
	acked := slices.Clone(c.ft.acked)
	c.ft.mu.Unlock()
	for _, pe := range lost {
		if !slices.Contains(acked, pe) {
			return int(int32(v)), errorf(ClassProcFailed, "%s: world rank %d (rank %d of %s) is lost and not acknowledged (FailureAck)", what, pe, c.toRank[pe], c.name)
		}
	}
	return int(int32(v)), nil
}

// Shrink returns a communicator over the members of c that are not lost
// (MPIX_Comm_shrink), in c's rank order, after agreeing with them on the
// lost ones. It works on a revoked c. Its collectives run over
// point-to-point messages.
func (c *Comm) Shrink() (*Comm, error) {
	const what = "Shrink"
	if err := errorsOf(c.checkError(what), c.intraOnly(what)); err != nil {
		return nil, err
	}
	_, lost, err := c.agreeSurvivors(tagShrink, 0, func(a, b uint64) uint64 { return a })
	if err != nil {
		return nil, err
	}
	var alive []int
	for _, pe := range c.group.world {
		if !slices.Contains(lost, pe) {
			alive = append(alive, pe)
		}
	}
	g := newGroup(alive, c.env.me)
	// The same tag as the agreement's: its messages were all matched
	// before (non-overtaking order per pair).
	n, err := c.groupComm(g, tagShrink|int32(hashPEs(lost)&(tagShrink-1)), what)
	if err != nil {
		return nil, err
	}
	n.name = c.name + "/shrunk"
	return n, nil
}

// agreeSurvivors combines mine over the members of c that are not lost
// with op, and returns the result and the lost members all of them saw.
// Each round excuses the lost members this PE knows of (their loss then
// no longer ends the round's waits) and agrees, with a tag naming that
// view, over the others: only PEs with the same view match. A PE whose
// view misses a loss waits for the lost PE (or for a survivor that waits
// in another round) until it learns of the loss (within
// GSHMEM_PEER_TIMEOUT), which ends its round; it then tries again with the
// larger view. Views only grow, and c has at most Size rounds' worth.
func (c *Comm) agreeSurvivors(tag int32, mine uint64, op func(a, b uint64) uint64) (uint64, []int, error) {
	w := c.env.w
	var last error
	for range c.group.Size() + 1 {
		lost := c.lostMembers()
		if len(lost) > 0 {
			if err := w.ExcuseLost(lost); err != nil {
				return 0, nil, wrap(err, "agreeing on the lost members of %s", c.name)
			}
		}
		var alive []int
		for _, pe := range c.group.world {
			if !slices.Contains(lost, pe) {
				alive = append(alive, pe)
			}
		}
		g := newGroup(alive, c.env.me)
		v, err := c.agreeOp(g, tag|int32(hashPEs(lost)&(int(tag)-1)), mine, op)
		if err == nil {
			if tag != tagFinalize {
				c.env.excuse(lost)
			}
			return v, lost, nil
		}
		last = err
		if len(c.lostMembers()) == len(lost) {
			return 0, nil, wrap(err, "agreeing on the lost members of %s", c.name)
		}
	}
	return 0, nil, wrap(last, "agreeing on the lost members of %s", c.name)
}

// finalizeSurvivors is Finalize in a job that lost PEs (or revoked
// MPI_COMM_WORLD, whose team collectives may have ended midway): the
// barrier over every PE, the teams' release and the collective frees can
// never complete, so the survivors agree among themselves (agreeSurvivors, over
// point-to-point: it ends, whatever the others do, once each of them has
// finalized, exited or been found lost) and each leaves its World without
// the others (shmem.World.FinalizeSurvivors). It returns nil when every
// lost PE was one that this PE had agreed to go on without (Agree or Shrink
// on a communicator holding it, before Finalize), else an error of class
// ClassProcFailed naming a lost PE: the job lost it and the program never
// said it could do without it.
func (e *Env) finalizeSurvivors() error {
	const what = "Finalize"
	e.excuseMu.Lock()
	excused := slices.Clone(e.excused)
	e.excuseMu.Unlock()
	_, lost, err := e.world.agreeSurvivors(tagFinalize, 0, func(a, b uint64) uint64 { return a })
	e.closed.Store(true)
	for _, pe := range lost {
		if err == nil && !slices.Contains(excused, pe) {
			err = errorf(ClassProcFailed, "%s: world rank %d is lost (the survivors finalized without it)", what, pe)
		}
	}
	if e.own {
		ferr := e.w.FinalizeSurvivors()
		if errors.Is(ferr, shmem.ErrInvalid) {
			ferr = e.w.Finalize() // goroutine PEs: a revoked world, no loss
		}
		if err == nil {
			err = wrap(ferr, what)
		}
	}
	return err
}

// hashPEs hashes a list of world PEs, for the agreements' tags.
func hashPEs(pes []int) int {
	h := fnv.New32a()
	for _, pe := range pes {
		fmt.Fprintf(h, "%d,", pe)
	}
	return int(h.Sum32() & 0x7fffffff)
}

// collCheck is check for a collective: it also fails on a revoked c or one
// holding a lost member (ftCheck).
func (c *Comm) collCheck(what string) error {
	if err := c.check(what); err != nil {
		return err
	}
	return c.ftCheck(what, -1, true)
}
