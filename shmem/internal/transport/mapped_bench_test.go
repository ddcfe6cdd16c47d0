package transport

import (
	"testing"
	"time"
)

// The operations on a mapped node-local peer: what put_latency and
// p_latency spend in the transport (compare before and after a change to
// Multi's routing).
func BenchmarkMappedPeer(b *testing.B) {
	jobs, _, _ := connectAll(b, []string{"a", "a"}, testHeap, 5*time.Second)
	m := jobs[0].Transport
	src := make([]byte, 8)
	_ = m.Put(1, 4096, src) // mapped from here on
	b.Run("Put8", func(b *testing.B) {
		for b.Loop() {
			_ = m.Put(1, 4096, src)
		}
	})
	b.Run("AtomicStore", func(b *testing.B) {
		for b.Loop() {
			_, _ = m.Atomic(1, 4096, 8, OpStore, 1, 0)
		}
	})
	b.Run("Get8", func(b *testing.B) {
		for b.Loop() {
			_ = m.Get(1, 4096, src)
		}
	})
	b.Run("Mapped", func(b *testing.B) {
		var tr Transport = m
		for b.Loop() {
			_ = tr.Mapped(1)
		}
	})
}
