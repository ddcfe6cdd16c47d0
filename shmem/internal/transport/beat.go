package transport

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// HeartbeatOff is where, in the control page at the start of every heap,
// a process PE counts its heartbeats. It is the line after the doorbell
// and the two lines of the allocator's agreement (package shmem checks
// that they do not meet).
const HeartbeatOff = 192

// A node-local peer that dies closes its end of the heap socket, which its
// link sees at once; one that is stopped (SIGSTOP, a debugger) or not
// scheduled closes nothing, and its heap stays mapped and writable. So
// each process PE counts heartbeats in its own heap, and a goroutine of
// each PE bumps its count and reads its mapped peers' counts every
// beatEvery(timeout): a count that has not moved for the peer timeout
// makes that peer lost, as a silent tcp connection does. It costs one
// wake-up per period (the waiters learn of a loss through the World's
// check, which runs around every sleep).
func beatEvery(timeout time.Duration) time.Duration {
	return max(timeout/8, 10*time.Millisecond)
}

// beat runs until m.beatStop closes; peers are the PEs whose heaps are
// mapped here.
func (m *Multi) beat(stop <-chan struct{}, timeout time.Duration, peers []int) {
	defer m.wg.Done()
	every := beatEvery(timeout)
	own := beatWord(m.heaps[m.me])
	seen := make([]uint64, len(peers))
	moved := make([]time.Time, len(peers))
	last := time.Now()
	for i, pe := range peers {
		seen[i], moved[i] = atomic.LoadUint64(beatWord(m.heaps[pe])), last
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		atomic.AddUint64(own, 1)
		now := time.Now()
		if now.Sub(last) > timeout/2 {
			// This PE did not run for a while itself (stopped, or the
			// host was): its peers' counts could not be judged meanwhile.
			for i := range moved {
				moved[i] = now
			}
		}
		last = now
		for i, pe := range peers {
			v := atomic.LoadUint64(beatWord(m.heaps[pe]))
			if v != seen[i] {
				seen[i], moved[i] = v, now
				continue
			}
			if still := now.Sub(moved[i]); still >= timeout && !m.h.isGone(pe) {
				m.h.peerLost(pe, fmt.Sprintf("stopped answering: its heartbeat in shared memory has not moved for %v (stopped, hung or not scheduled; GSHMEM_PEER_TIMEOUT=%v)",
					still.Round(time.Millisecond), timeout))
			}
		}
	}
}

func beatWord(heap []byte) *uint64 { return (*uint64)(unsafe.Pointer(&heap[HeartbeatOff])) }
