//go:build race

package compat

import (
	"runtime"
	"unsafe"
)

// The race detector follows atomics in Go's memory only, and the engine
// lock's word is outside it: tell it the lock's order (engineMutex).
func raceAcquire(p unsafe.Pointer) { runtime.RaceAcquire(p) }
func raceRelease(p unsafe.Pointer) { runtime.RaceRelease(p) }
