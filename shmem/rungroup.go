package shmem

import (
	"sync/atomic"
	"time"
)

// runGroup is what the goroutine PEs of one Run know of each other's end:
// when the first of them finalized. A goroutine PE cannot die alone (a
// panic or an error aborts the whole Run), but it can finalize while a
// peer still waits for it: a PE that called one collective more than the
// others. That peer's wait ends with ErrPeerLost once the finalized PE has
// been gone for the peer timeout, as over the process transports; within
// it, peers still finishing the last barrier are left alone. Waiters sleep
// at most the wait policy's MaxSleep, so nobody needs to ring them.
type runGroup struct {
	goneAt atomic.Int64 // unix nanoseconds of the first Finalize, 0 before
	gonePE atomic.Int32
}

// leave records that pe finalized (its last barrier done).
func (g *runGroup) leave(pe int) {
	g.gonePE.CompareAndSwap(0, int32(pe)+1)
	g.goneAt.CompareAndSwap(0, time.Now().UnixNano())
}

// lost is check's answer for PE me: a peer finalized grace ago.
func (g *runGroup) lost(me int, grace time.Duration) error {
	at := g.goneAt.Load()
	if at == 0 {
		return nil
	}
	pe := int(g.gonePE.Load()) - 1
	if pe == me || time.Since(time.Unix(0, at)) < grace {
		return nil
	}
	return errf(ErrPeerLost, "PE %d has finalized and PE %d still waits (for %v: did it call a collective or a wait that the others did not?)", pe, me, grace)
}
