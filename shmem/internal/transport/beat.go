package transport

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"
)

// A node-local peer that dies closes its links, which its linked peers see
// at once (and pass on); one that is stopped (SIGSTOP, a debugger) closes
// nothing, and its heap stays mapped and writable. So the PEs of a node
// share one small table that the node's leader hands out when they join
// (beatTableSize bytes): a heartbeat count per PE of the job, then a
// record per PE naming its process (proc.go). A goroutine of each PE bumps
// its own count and looks at every other node-local PE's every
// beatEvery(timeout). A count that moved is a live peer. A count that did
// not is judged by the peer's process, not by the count alone: a PE whose
// process waits for a CPU (on a loaded machine, possibly for longer than
// the timeout) or sleeps is alive however long its count stands still, and
// is never declared lost; one whose process is gone is lost at once; one
// whose process is stopped is lost once it has stayed stopped for the
// peer timeout. So the timeout bounds how long a PE may stay stopped, not
// how long a busy machine may starve it. Only where the process cannot be
// seen (another pid namespace, no /proc) does the count decide alone, as a
// silent tcp connection does. It costs one wake-up per period (the waiters
// learn of a loss through the World's check, which runs around every
// sleep).
func beatEvery(timeout time.Duration) time.Duration {
	return max(timeout/8, 10*time.Millisecond)
}

// beatTableSize is the size of a node's heartbeat table for n PEs: a word
// per PE, then a record per PE (proc.go), in whole pages.
func beatTableSize(n int) int { return (recBase(n) + n*recSize + 4095) &^ 4095 }

// beat runs until m.beatStop closes; peers are the other PEs of this
// node, table the node's heartbeat table (whose record of this PE join
// has written).
func (m *Multi) beat(stop <-chan struct{}, timeout time.Duration, table []byte, peers []int) {
	defer m.wg.Done()
	every := beatEvery(timeout)
	own := beatWord(table, m.me)
	ns, _ := pidNS()
	seen := make([]uint64, len(peers))
	moved := make([]time.Time, len(peers))
	stopped := make([]time.Time, len(peers)) // when the peer was first seen stopped; zero while it is not
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
				stopped[i] = time.Time{}
			}
		}
		last = now
		for i, pe := range peers {
			v := atomic.LoadUint64(beatWord(table, pe))
			if v != seen[i] {
				seen[i], moved[i], stopped[i] = v, now, time.Time{}
				continue
			}
			if why := judge(readID(rec(table, len(m.bases), pe)), ns, now, moved[i], &stopped[i], timeout); why != "" && !m.h.isGone(pe) {
				m.h.peerLost(pe, why)
			}
		}
	}
}

// judge returns why the PE whose process is id and whose count has not
// moved since moved is lost, or "" while it is not. stopped is when its
// process was first seen stopped (zero while it is not), which judge
// keeps; ns is this process's pid namespace.
func judge(id procID, ns uint64, now, moved time.Time, stopped *time.Time, timeout time.Duration) string {
	switch stateOf(id, ns) {
	case procGone:
		return fmt.Sprintf("exited: its process %d is gone (seen by its node's heartbeat table)", id.pid)
	case procStopped:
		if stopped.IsZero() {
			*stopped = now
		}
		if d := now.Sub(*stopped); d >= timeout {
			return fmt.Sprintf("stopped answering: its process %d has been stopped (a signal or a debugger) for %v (GSHMEM_PEER_TIMEOUT=%v)",
				id.pid, d.Round(time.Millisecond), timeout)
		}
		return ""
	case procUnknown:
		*stopped = time.Time{}
		if still := now.Sub(moved); still >= timeout {
			return fmt.Sprintf("stopped answering: its heartbeat in shared memory has not moved for %v (stopped, hung or not scheduled; GSHMEM_PEER_TIMEOUT=%v)",
				still.Round(time.Millisecond), timeout)
		}
		return ""
	}
	*stopped = time.Time{} // alive, or not started yet: its links report its death
	return ""
}

func beatWord(table []byte, pe int) *uint64 { return (*uint64)(unsafe.Pointer(&table[pe*8])) }
