package compat

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"time"
)

// A new communicator's context id must differ from every context any of
// its members uses. The members agree on one above every id each has
// taken (Env.nextCtx, the largest over them all); that is safe as long as
// no other agreement of the same PE runs between reading its nextCtx and
// raising it. Goroutines (MPI_THREAD_MULTIPLE's threads) may create
// communicators from different parents at once, and two such agreements
// sharing a PE could then both read its old nextCtx and pick one id for
// two communicators.
//
// So a PE's agreements take turns at its nextCtx, as MPICH's context-id
// mask does: an agreement runs in rounds, and in each round every member
// contributes its nextCtx if it holds its PE's allocator for this
// agreement, or notHeld if another agreement of that PE holds it. A round
// whose combined value (the maximum) has notHeld set decides nothing and
// every member tries again; one without it gives the id to every member
// at once, while each holds its allocator. The members see one combined
// value, so they end after the same round.
//
// A PE's allocator goes, when free, to the agreement of least priority
// among those of that PE in progress. A priority is the same on every
// member of an agreement (the parent communicator's context, or what a
// creation's members share), so the agreement of least priority across
// the whole job in progress is first at each of its members: once the
// rounds of the others it waits behind end (a round ends whatever its
// members contribute), it holds at every member in one round and ends.
// No PE waits for an allocator across a round, so rounds never deadlock.
type ctxAlloc struct {
	mu      sync.Mutex
	holder  *ctxClaim
	pending []*ctxClaim
	seq     uint64
}

// ctxPrio orders a PE's agreements in progress, lowest first; compared
// element by element.
type ctxPrio [3]uint64

// The kinds of agreement (a ctxPrio's second element), so that the
// priorities of different kinds never tie.
const (
	prioParent = iota // over a parent communicator: Dup, Split, Create, intercommunicator calls
	prioGroup         // over a group of a parent, with a tag: CommCreateGroup, CommFromGroup
	prioInter         // over two groups: IntercommCreate, IntercommFromGroups
)

// parentPrio is the priority of an agreement over all of communicator c.
func parentPrio(c *Comm) ctxPrio { return ctxPrio{uint64(c.ctx), prioParent, 0} }

type ctxClaim struct {
	prio ctxPrio
	seq  uint64 // ties (only between calls MPI forbids to overlap) by arrival
}

func (a *ctxClaim) less(b *ctxClaim) bool {
	return cmp.Or(slices.Compare(a.prio[:], b.prio[:]), cmp.Compare(a.seq, b.seq)) < 0
}

// notHeld is a member's contribution to a round while another agreement
// holds its PE's allocator: above every context id, so that it survives
// the maximum.
const notHeld = 1 << 62

func (a *ctxAlloc) enter(prio ctxPrio) *ctxClaim {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	c := &ctxClaim{prio: prio, seq: a.seq}
	a.pending = append(a.pending, c)
	return c
}

func (a *ctxAlloc) leave(c *ctxClaim) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending = slices.DeleteFunc(a.pending, func(x *ctxClaim) bool { return x == c })
	if a.holder == c {
		a.holder = nil
	}
}

// take gives the allocator to c if it is free and c is first among the
// agreements in progress, and reports whether c holds it.
func (a *ctxAlloc) take(c *ctxClaim) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.holder == nil {
		first := c
		for _, x := range a.pending {
			if x.less(first) {
				first = x
			}
		}
		if first == c {
			a.holder = c
		}
	}
	return a.holder == c
}

func (a *ctxAlloc) release(c *ctxClaim) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.holder == c {
		a.holder = nil
	}
}

// agreeContext runs the rounds of an agreement of priority prio: agree
// combines every member's contribution by maximum (a collective over the
// members that will share the id; every member calls agreeContext with
// the same prio) and returns the result. It returns the id agreed.
func (e *Env) agreeContext(prio ctxPrio, agree func(mine uint64) (uint64, error)) (uint32, error) {
	return agreeOn(&e.ctxa, &e.nextCtx, prio, agree)
}

// agreeOn runs the rounds of an agreement on allocator a, whose holder
// alone reads and raises next (one above every id a's agreements took).
// DupAsync's agreements use an allocator and ids of their own: they run
// on goroutines beside the caller's own agreements.
func agreeOn(a *ctxAlloc, next *uint32, prio ctxPrio, agree func(mine uint64) (uint64, error)) (uint32, error) {
	cl := a.enter(prio)
	defer a.leave(cl)
	for try := 0; ; try++ {
		held := a.take(cl)
		mine := uint64(notHeld)
		if held {
			mine = uint64(*next) // only the holder reads or writes it
		}
		v, err := agree(mine)
		if err == nil && v < notHeld {
			// Every member holds its allocator: take v now.
			return takeID(next, v)
		}
		a.release(cl)
		if err != nil {
			return 0, err
		}
		if !held {
			// This PE's allocator is another agreement's: let that one's
			// rounds run before this one's next.
			backoff(try)
		}
	}
}

// backoff waits a little before a round that found the allocator taken:
// a yield at first, then sleeps that grow to a millisecond.
func backoff(try int) {
	if try < 4 {
		runtime.Gosched()
		return
	}
	time.Sleep(min(time.Microsecond<<min(try-4, 10), time.Millisecond))
}
