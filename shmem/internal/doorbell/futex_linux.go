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

func yield() { runtime.Gosched() }

// yieldOS gives the CPU to another process; every 8th call (the i-th of a
// wait's) it first lets this process's other goroutines run. A Gosched
// before every sched_yield took a fifth of a crowded PE's time (the
// scheduler's locks and its search for work) and made the 4-PE barrier on
// 2 CPUs 10 % slower; other goroutines of a crowded PE still run within
// a few sched_yields.
func yieldOS(i int) {
	if i&7 == 7 {
		runtime.Gosched()
	}
	_, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
}
