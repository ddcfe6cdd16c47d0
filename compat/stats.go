package compat

import (
	"sync/atomic"
	"time"
)

// Counters is what a PE's engine has done since Init, for tools (the MPI
// tools interface's performance variables): every message the engine sent
// and received (point-to-point and the messages collectives are made of),
// with their payload bytes, and the time its goroutines spent idle in
// blocking waits. Messages that the C library's fast paths move without
// the engine are not in it; libmpi_abi adds its own counts of those.
type Counters struct {
	SentMessages, SentBytes uint64
	RecvMessages, RecvBytes uint64
	WaitTime                time.Duration
}

// counters are an Env's Counters, each an atomic so that a tool reads them
// without the engine's lock; they are added to under the lock, where an
// uncontended atomic add costs a few nanoseconds.
type counters struct {
	sentMsgs, sentBytes, recvMsgs, recvBytes, waitNanos atomic.Uint64
}

func (k *counters) sent(n int) {
	k.sentMsgs.Add(1)
	k.sentBytes.Add(uint64(n))
}

func (k *counters) received(n int) {
	k.recvMsgs.Add(1)
	k.recvBytes.Add(uint64(n))
}

// Counters returns the engine's counts so far; they keep their values
// after Finalize.
func (e *Env) Counters() Counters {
	k := &e.count
	return Counters{
		SentMessages: k.sentMsgs.Load(), SentBytes: k.sentBytes.Load(),
		RecvMessages: k.recvMsgs.Load(), RecvBytes: k.recvBytes.Load(),
		WaitTime: time.Duration(k.waitNanos.Load()),
	}
}

// Unexpected returns how many arrived messages wait for a matching
// receive now, and PostedRecvs how many posted receives wait for a message.
func (e *Env) Unexpected() (unexpected, posted int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.unexpected), len(e.posted)
}
