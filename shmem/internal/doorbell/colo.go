package doorbell

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Colo lets a waiter notice that a PE it may be waiting for is queued
// behind it on its own CPU, and hand the CPU over at once.
//
// Unpinned PEs of a node with a CPU each (the scheduler places them) are
// often put on one CPU while busy processes hold the others. A wait then
// spins for a PE that cannot run until the spinner gives the CPU up: the
// whole spin (hundreds of microseconds) and the sleep after it are lost on
// every message, and a ping-pong takes a scheduler slice per turn (unpinned
// osu_latency 8 B under one busy loop per CPU: 102 and 344 us in two of
// five runs, Open MPI unpinned 66 and 87 us). No wake-up is lost there: the
// partner's ring comes, but only after it got the CPU the waiter held.
//
// Each PE of a node owns one slot, a cache line of the node's shared
// table: while it is in a wait that has lasted a spin step (YieldEvery
// polls) and has not gone to sleep, the slot holds the CPU it last ran on,
// plus one; otherwise 0. A waiter that finds another PE's slot naming its
// own CPU knows that PE is runnable and not running (this waiter holds
// that CPU), and yields the CPU to it. A slot is at most a spin step out
// of date (a PE that moved rewrites it at its next step), which costs at
// worst one needless sched_yield. Short waits (the quiet machine's) end
// before their first step and touch no slot.
type Colo struct {
	own    *uint32
	others []*uint32
}

// NewColo returns the Colo of the PE whose slot is own, watching the
// slots of the other PEs of its node; nil when there are none.
func NewColo(own *uint32, others []*uint32) *Colo {
	if own == nil || len(others) == 0 {
		return nil
	}
	return &Colo{own: own, others: others}
}

// step publishes the caller's CPU and yields the CPU when another PE's
// slot names it. It reports whether it yielded.
func (c *Colo) step() bool {
	cpu, ok := getcpu()
	if !ok {
		return false
	}
	mark := uint32(cpu) + 1
	if atomic.LoadUint32(c.own) != mark {
		atomic.StoreUint32(c.own, mark)
	}
	for _, s := range c.others {
		if atomic.LoadUint32(s) == mark {
			_, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			return true
		}
	}
	return false
}

// leave clears the caller's slot before a sleep or at the end of a wait.
func (c *Colo) leave() {
	if atomic.LoadUint32(c.own) != 0 {
		atomic.StoreUint32(c.own, 0)
	}
}

// getcpu returns the CPU the calling thread runs on.
func getcpu() (int, bool) {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return 0, false
	}
	return int(cpu), true
}
