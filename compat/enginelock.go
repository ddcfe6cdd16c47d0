package compat

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// engineMutex is the Env's one lock: the critical section of every change
// to the engine's state (queues, rings' cursors, requests' matching). Its
// word lives in the published state (p2pstate.Engine.Lock, memory outside
// Go's heap) once New has laid that out, so that code outside Go that
// advances the same state (compat/abi's C fast paths, when its callers may
// be several threads at once: MPI_THREAD_MULTIPLE) takes the very same
// lock with the same protocol: 0 free, 1 held, a compare-and-swap to take
// it and a store to let it go.
//
// The engine holds it only for bounded work (a drain, a flush, a match);
// every wait lets it go before it polls or sleeps (waitFor), so a taker
// that finds it held spins briefly, then yields its CPU, then sleeps in
// microsecond steps: never a CPU burnt for long behind a holder.
type engineMutex struct {
	own  uint32  // the word until New points word at the published state
	word *uint32 // nil: own
}

func (m *engineMutex) w() *uint32 {
	if m.word != nil {
		return m.word
	}
	return &m.own
}

// Lock takes m, waiting as the type's doc says while another holds it.
func (m *engineMutex) Lock() {
	w := m.w()
	if !atomic.CompareAndSwapUint32(w, 0, 1) {
		m.lockSlow(w)
	}
	raceAcquire(unsafe.Pointer(&m.own))
}

func (m *engineMutex) lockSlow(w *uint32) {
	for i := 0; ; i++ {
		if atomic.LoadUint32(w) == 0 && atomic.CompareAndSwapUint32(w, 0, 1) {
			return
		}
		switch {
		case i < 256:
		case i < 512:
			runtime.Gosched()
		default:
			time.Sleep(time.Microsecond)
		}
	}
}

// TryLock takes m if it is free and reports whether it did.
func (m *engineMutex) TryLock() bool {
	if !atomic.CompareAndSwapUint32(m.w(), 0, 1) {
		return false
	}
	raceAcquire(unsafe.Pointer(&m.own))
	return true
}

// Unlock lets m go.
func (m *engineMutex) Unlock() {
	raceRelease(unsafe.Pointer(&m.own))
	atomic.StoreUint32(m.w(), 0)
}
