package windows

import (
	"runtime"
	"sync/atomic"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

func (win *Win) check() error {
	if win == nil {
		return errorf(compat.ClassWin, "nil window")
	}
	return win.alive()
}

// quiet completes this PE's operations (every operation on the host
// transports completes as it is issued; this also orders them).
func (win *Win) quiet() error {
	win.settle()
	if err := win.world.Quiet(); err != nil {
		return wrap(err, "completing RMA")
	}
	return nil
}

// leaveFence ends a fence epoch no RMA used, so that another kind of
// epoch may start; an epoch with RMA in it must be closed by Fence.
func (win *Win) leaveFence(call string) error {
	switch win.ep.fence {
	case fenceActive:
		return errorf(compat.ClassRMASync, "%s inside a fence epoch with RMA issued: close it with Fence(ModeNoSucceed)", call)
	case fenceMaybe:
		win.ep.fence = fenceNone
		clear(win.access)
	}
	return nil
}

// Fence closes the current fence epoch and opens the next
// (MPI_Win_fence): collective over every PE of the window. When it
// returns, every RMA issued by any PE before it is complete at its target.
// ModeNoSucceed closes without opening another; ModeNoStore skips pushing
// local stores to the public copy (separate model). A Fence inside a lock
// or post/start epoch fails with ErrRMASync (after taking part in the
// barrier, so the other PEs do not wait for it).
func (win *Win) Fence(assert Assert) error {
	if err := win.check(); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoStore|ModeNoPut|ModeNoPrecede|ModeNoSucceed, "Fence"); err != nil {
		return err
	}
	var bad error
	if atomic.LoadInt32(&win.ep.nlocks) > 0 || win.ep.lockAll != 0 || win.ep.inStart || win.inPost {
		bad = errorf(compat.ClassRMASync, "Fence inside a lock or post/start epoch")
	}
	if err := win.quiet(); err != nil {
		return err
	}
	if bad == nil {
		win.syncAll(assert&ModeNoStore == 0, false)
	}
	if err := win.comm.Barrier(); err != nil {
		return wrap(err, "Fence")
	}
	if bad != nil {
		return bad
	}
	win.syncAll(false, true)
	if assert&ModeNoSucceed != 0 {
		win.ep.fence = fenceNone
		clear(win.access)
	} else {
		win.ep.fence = fenceMaybe
		for i := range win.access {
			win.access[i] = accFence
		}
	}
	return nil
}

func (win *Win) postedIdx(rank int) int    { return ctrlPosted/8 + rank }
func (win *Win) completedIdx(rank int) int { return ctrlPosted/8 + win.n + rank }

// Post opens an exposure epoch for the origins in group (MPI_Win_post):
// they may access this PE's window between their Start and Complete. It
// does not block. Takes ModeNoCheck, ModeNoStore, ModeNoPut.
func (win *Win) Post(group *compat.Group, assert Assert) error {
	if err := win.check(); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoCheck|ModeNoStore|ModeNoPut, "Post"); err != nil {
		return err
	}
	ranks, err := win.groupRanks(group, win.postG[:0])
	if err != nil {
		return err
	}
	if win.inPost {
		return errorf(compat.ClassRMASync, "Post while an exposure epoch is open (Wait for it first)")
	}
	if err := win.leaveFence("Post"); err != nil {
		return err
	}
	win.syncAll(assert&ModeNoStore == 0, false)
	for _, r := range ranks {
		win.postsTo[r]++
		if err := shmem.Add(win.posted, 1, win.pes[r]); err != nil {
			return wrap(err, "posting to rank %d", r)
		}
	}
	win.postG, win.inPost = ranks, true
	return nil
}

// Start opens an access epoch to the targets in group (MPI_Win_start). It
// does not block: the first operation to a target waits for its Post.
// ModeNoCheck says every target has posted already.
func (win *Win) Start(group *compat.Group, assert Assert) error {
	if err := win.check(); err != nil {
		return err
	}
	if err := checkAssert(assert, ModeNoCheck, "Start"); err != nil {
		return err
	}
	ranks, err := win.groupRanks(group, win.startG[:0])
	if err != nil {
		return err
	}
	if win.ep.inStart || atomic.LoadInt32(&win.ep.nlocks) > 0 || win.ep.lockAll != 0 {
		return errorf(compat.ClassRMASync, "Start while an access epoch is open")
	}
	if err := win.leaveFence("Start"); err != nil {
		return err
	}
	for _, t := range ranks {
		win.startsTo[t]++
		win.access[t] = accWaitPost
		if assert&ModeNoCheck != 0 {
			win.access[t] = accOK
		}
	}
	win.startG, win.ep.inStart = ranks, true
	return nil
}

// groupRanks appends to ranks (reusing its array: no allocation per epoch)
// the window ranks of g's members, which must all belong to the window's
// communicator. A compat.Group holds no member twice.
func (win *Win) groupRanks(g *compat.Group, ranks []int) ([]int, error) {
	if g == nil {
		return ranks, errorf(compat.ClassGroup, "nil group (MPI_GROUP_NULL)")
	}
	for i := range g.Size() {
		pe := g.WorldRank(i)
		r := win.comm.RankOf(pe)
		if r == compat.Undefined {
			return ranks, errorf(compat.ClassGroup, "group member %d (PE %d) is not in the window's communicator", i, pe)
		}
		ranks = append(ranks, r)
	}
	return ranks, nil
}

// reached reports whether this PE's control word idx is at least v.
func (win *Win) reached(idx int, v uint64) (bool, error) {
	if win.ctrlLocal != nil {
		return atomic.LoadUint64(&win.ctrlLocal[idx]) >= v, nil
	}
	return shmem.Test(win.ctrl.At(idx), shmem.CmpGE, v)
}

// waitCtrl waits until this PE's control word idx is at least v, looking
// once before it pays for a wait.
func (win *Win) waitCtrl(idx int, v uint64) error {
	if ok, _ := win.reached(idx, v); ok {
		return nil
	}
	return shmem.WaitUntil(win.ctrl.At(idx), shmem.CmpGE, v)
}

func (win *Win) waitPosted(t int) error {
	if err := win.waitCtrl(win.postedIdx(t), win.startsTo[t]); err != nil {
		return wrap(err, "waiting for rank %d to Post", t)
	}
	return nil
}

// Complete closes the access epoch opened by Start (MPI_Win_complete): the
// operations are complete at the origin, and each target's Wait returns
// once all its origins have completed.
func (win *Win) Complete() error {
	if err := win.check(); err != nil {
		return err
	}
	if !win.ep.inStart {
		return errorf(compat.ClassRMASync, "Complete without Start")
	}
	if err := win.quiet(); err != nil {
		return err
	}
	for _, t := range win.startG {
		// A target that got no operation need not have posted yet: its
		// Wait matches this completion whenever it comes.
		win.access[t] = accNone
		if err := shmem.Add(win.completed, 1, win.pes[t]); err != nil {
			return wrap(err, "completing to rank %d", t)
		}
	}
	win.startG, win.ep.inStart = win.startG[:0], false
	return nil
}

// Wait closes the exposure epoch opened by Post (MPI_Win_wait): it blocks
// until every origin in the group has called Complete, and then the
// window holds their updates. It fails with ErrOther when the World's
// context is cancelled.
func (win *Win) Wait() error {
	raceSynced() // race builds: peers' copies into this memory came before
	if err := win.check(); err != nil {
		return err
	}
	if !win.inPost {
		return errorf(compat.ClassRMASync, "Wait without Post")
	}
	// One origin at a time: waiting for all is waiting for each, and a
	// scalar wait is cheaper than a vector one (an epoch costs a few of
	// them).
	for _, r := range win.postG {
		if err := win.waitCtrl(win.completedIdx(r), win.postsTo[r]); err != nil {
			return wrap(err, "waiting for rank %d to Complete", r)
		}
	}
	win.endPost()
	return nil
}

// Test is Wait that does not block (MPI_Win_test): it reports whether the
// exposure epoch is over, and closes it if so.
func (win *Win) Test() (bool, error) {
	raceSynced() // race builds: peers' copies into this memory came before
	if err := win.check(); err != nil {
		return false, err
	}
	if !win.inPost {
		return false, errorf(compat.ClassRMASync, "Test without Post")
	}
	for _, r := range win.postG {
		ok, err := win.reached(win.completedIdx(r), win.postsTo[r])
		if err != nil {
			return false, wrap(err, "testing for rank %d's Complete", r)
		}
		if !ok {
			// Callers poll Test in a loop: let the origins (goroutine
			// PEs, perhaps on this very thread) run.
			runtime.Gosched()
			return false, nil
		}
	}
	win.endPost()
	return true, nil
}

func (win *Win) endPost() {
	win.syncAll(false, true)
	win.postG, win.inPost = win.postG[:0], false
}
