package shmem

import "github.com/gshmem/gshmem/shmem/internal/transport"

// MappedPeers returns how many peers' heaps w's PE maps now: for goroutine
// PEs every peer of the process, from the start; for process PEs those it
// has touched (tests).
func MappedPeers(w *World) int {
	if l, ok := w.tr.(transport.Locality); ok {
		return l.MappedPeers()
	}
	n := 0
	for pe := range w.npes {
		if pe != w.pe && w.tr.Mapped(pe) != nil {
			n++
		}
	}
	return n
}
