package shmem

import "sync/atomic"

// The OpenSHMEM specification this package follows (SHMEM_MAJOR_VERSION,
// SHMEM_MINOR_VERSION, SHMEM_VENDOR_STRING).
const (
	SpecMajor  = 1
	SpecMinor  = 5
	VendorName = "gshmem"
)

// InfoVersion returns the OpenSHMEM version this package implements
// (shmem_info_get_version), for code that checks it at run time.
func InfoVersion() (major, minor int) { return SpecMajor, SpecMinor }

// InfoName returns the vendor string (shmem_info_get_name).
func InfoName() string { return VendorName }

// ThreadLevel is OpenSHMEM's thread-safety level (SHMEM_THREAD_*).
type ThreadLevel int

// The levels, from the most restricted.
const (
	ThreadSingle ThreadLevel = iota
	ThreadFunneled
	ThreadSerialized
	ThreadMultiple
)

// QueryThread reports the thread level of the World (shmem_query_thread).
// It is always ThreadMultiple, so Init takes no level (shmem_init_thread
// is Init): RMA, atomics, signals, waits, locks, Quiet and Fence, on any
// context, may be called from several goroutines of a PE at once. As in
// OpenSHMEM, collective calls (allocation, barriers, team and collective
// operations) are still issued in the same order on every PE, which means
// one goroutine at a time per team.
func (w *World) QueryThread() ThreadLevel { return ThreadMultiple }

var pcontrolLevel atomic.Int32

// Pcontrol sets the profiling level (shmem_pcontrol): 0 off, 1 on (the
// default), 2 and above as a profiling tool defines. gshmem has no
// profiling library of its own, so the level only records what the program
// asked for; a tool reads it with PcontrolLevel.
func Pcontrol(level int) { pcontrolLevel.Store(int32(level) - 1) }

// PcontrolLevel returns the last level given to Pcontrol (1 when none was).
func PcontrolLevel() int { return int(pcontrolLevel.Load()) + 1 }
