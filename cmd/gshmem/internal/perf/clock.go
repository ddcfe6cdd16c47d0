package perf

import _ "unsafe" // for go:linkname

// nanotime is the runtime's monotonic clock: one vDSO
// clock_gettime(CLOCK_MONOTONIC), what time.Since reads, without the wall
// clock read time.Now adds. Timing "op" brackets each operation with it.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
