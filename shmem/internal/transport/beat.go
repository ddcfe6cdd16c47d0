package transport

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// A node-local peer that dies closes its links, which its linked peers see
// at once (and pass on); one that is stopped (SIGSTOP, a debugger) or not
// scheduled closes nothing, and its heap stays mapped and writable. So the
// PEs of a node count heartbeats in one small table that the node's leader
// hands out when they join (beatTableSize bytes, one word per PE of the
// job), and a goroutine of each PE bumps its own count and reads every
// other node-local PE's every beatEvery(timeout): a count that has not
// moved for the peer timeout makes that peer lost, as a silent tcp
// connection does. The table, not the peers' heaps, carries the counts, so
// that watching every PE of the node maps no heap. It costs one wake-up
// per period (the waiters learn of a loss through the World's check, which
// runs around every sleep).
func beatEvery(timeout time.Duration) time.Duration {
	return max(timeout/8, 10*time.Millisecond)
}

// beatTableSize is the size of a node's heartbeat table for n PEs: a word
// per PE, in whole pages.
func beatTableSize(n int) int { return (n*8 + 4095) &^ 4095 }

// beat runs until m.beatStop closes; peers are the other PEs of this
// node, table the node's heartbeat table.
func (m *Multi) beat(stop <-chan struct{}, timeout time.Duration, table []byte, peers []int) {
	defer m.wg.Done()
	every := beatEvery(timeout)
	own := beatWord(table, m.me)
	seen := make([]uint64, len(peers))
	moved := make([]time.Time, len(peers))
	last := time.Now()
	for i, pe := range peers {
		seen[i], moved[i] = atomic.LoadUint64(beatWord(table, pe)), last
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
			v := atomic.LoadUint64(beatWord(table, pe))
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

func beatWord(table []byte, pe int) *uint64 { return (*uint64)(unsafe.Pointer(&table[pe*8])) }
