//go:build race

package racesync

import (
	"runtime"
	"unsafe"
)

var token byte

// Release makes what this goroutine did so far visible to every later
// Acquire (merging with earlier releases by other goroutines).
func Release() { runtime.RaceReleaseMerge(unsafe.Pointer(&token)) }

// Acquire orders what follows after every earlier Release.
func Acquire() { runtime.RaceAcquire(unsafe.Pointer(&token)) }
