package doorbell

import (
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	futexWaitOp = 0 // FUTEX_WAIT, shared: keyed by the mapping, works across processes
	futexWakeOp = 1 // FUTEX_WAKE
)

func futexWait(addr *uint32, val uint32, d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	// EAGAIN (value changed), EINTR and ETIMEDOUT all mean "look again".
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitOp,
		uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
}

func futexWake(addr *uint32) {
	_, _, _ = unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp,
		uintptr(1<<31-1), 0, 0, 0)
}

// futexWakeRaw is futexWake without telling Go's runtime: the thread
// keeps its P through the call (FUTEX_WAKE does not block).
func futexWakeRaw(addr *uint32) {
	_, _, _ = unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakeOp,
		uintptr(1<<31-1), 0, 0, 0)
}

func yield() { runtime.Gosched() }

// yieldOS gives the CPU to another process; every 8th call (the i-th of a
// wait's) it first lets this process's other goroutines run. A Gosched
// before every sched_yield took a fifth of a crowded PE's time (the
// scheduler's locks and its search for work) and made the 4-PE barrier on
// 2 CPUs 10 % slower; other goroutines of a crowded PE still run within
// a few sched_yields.
//
// The sched_yield is a raw system call, which Go's runtime does not see:
// among PEs sharing a session (gshmem run's keepers) a yield really hands
// the CPU to a partner still copying, and returns a slice later. Go's
// monitor took such a yield for a blocking call, took the PE's P away
// after 20 us and, having found work to retake, kept waking every 20 us
// on the pinned CPU, preempting the copier: 4 PEs on 2 CPUs, alltoall
// 1 MiB 916-1014 us with 58000-73000 context switches per run, 638-643 us
// and 6000-8600 with the raw call (fcollect 1 MiB 763-945 against
// 508-592). The P stays with the yielder, whose other goroutines wait at
// most the eight yields to the next Gosched. The futex calls stay
// visible: a sleep must give the P up, and a raw wake made the 4-PE
// barrier slower (1.41-1.51 against 1.32-1.44 us).
func yieldOS(i int) {
	if i&7 == 7 {
		runtime.Gosched()
	}
	_, _, _ = unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
}
