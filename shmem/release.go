package shmem

import (
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/gshmem/gshmem/shmem/internal/transport"
)

// Releasing a team without waiting for its members.
//
// Destroy is collective: it waits until no member uses the team, then
// recycles the slot. MPI_Comm_free is local (members free a communicator
// in any order, and a member may still send on it after another freed
// it), so compat needs a way to drop a team without meeting the others.
// Release is that: this PE stops using the team and counts itself out in
// every member's copy of the slot (the sigReleased line), and a PE's slot
// is recycled once every member has counted itself out there. A member's
// count comes after everything it did to the slot (a fence orders its
// writes before it, and its reads ended when its last collective
// returned), so a recycled slot is quiet. Until then the slot stays taken
// in this PE's used mask, which the next split publishes, so no new team
// lands on it anywhere it may still be written.

// Release gives up this PE's handle on the team without waiting for the
// other members: unlike Destroy it is local. The team's slot is recycled
// here once every member has released it (checked again by every later
// split and release on this PE), so a program that makes and releases
// teams in a loop keeps a bounded number of slots. A member that never
// releases (or is lost) keeps the slot taken on the members that did.
// Every member must release or destroy a team the same way: a team
// released by some members and destroyed by others is an error the
// destroyers wait on forever. Afterwards every call on the handle fails.
func (t *Team) Release() error {
	if err := t.usable(); err != nil {
		return err
	}
	if t.fixed {
		return errf(ErrInvalid, "the %s team cannot be released", t.name)
	}
	w := t.w
	// This PE's puts into members' slots reach them before its count.
	if err := w.tr.Fence(); err != nil {
		w.log.Debugf("releasing %s: fence: %v", t, err)
	}
	lost := w.LostPEs()
	off := t.sigOff(sigReleased)
	for p, pe := range t.members {
		if _, gone := slices.BinarySearch(lost, pe); gone {
			continue
		}
		if m := t.remote(p); m != nil {
			atomic.AddUint64((*uint64)(unsafe.Pointer(&m[off])), 1)
			continue
		}
		if _, err := w.tr.Atomic(pe, off, 8, transport.OpAdd|transport.OpRuntime, 1, 0); err != nil {
			// A member that is gone never counts itself out either: the
			// slot stays taken on the members that released it.
			w.log.Debugf("releasing %s: counting out at PE %d: %v", t, pe, err)
		}
	}
	w.teams.released[t.slot] = len(t.members)
	w.teams.pending |= 1 << t.slot
	t.dead = true
	t.bufs = nil
	w.reclaimTeams()
	return nil
}

// reclaimTeams recycles the slots of released teams that every member has
// released here.
func (w *World) reclaimTeams() {
	p := &w.teams
	for m := p.pending; m != 0; m &= m - 1 {
		s := bits.TrailingZeros64(m)
		off := p.base + uint64(s)*p.slotSize
		if loadLocal[uint64](w.heap, off+p.sigOff()+sigReleased*64) < uint64(p.released[s]) {
			continue
		}
		if w.dev != nil {
			if err := w.dev.clear(off, devTeamBytes(0)); err != nil {
				w.log.Debugf("recycling team slot %d: %v", s, err)
				continue // retried by the next split
			}
		}
		clear(w.heap[off : off+p.slotSize])
		p.used &^= 1 << s
		p.pending &^= 1 << s
		p.released[s] = 0
	}
}

// ReleasedTeams returns how many teams this PE has released whose slots
// are not recycled yet (every member has not released them): for tests
// that check a loop of splits and releases stays bounded.
func (w *World) ReleasedTeams() int {
	return bits.OnesCount64(w.teams.pending)
}
