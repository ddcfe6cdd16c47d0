package shmem

import "github.com/gshmem/gshmem/shmem/internal/transport"

// local reports whether pe's heap is reached by load/store from this PE
// (mapped already or on first use). Transports that map everything at
// once (goroutine PEs) or nothing (a device heap) answer through Mapped.
func (w *World) local(pe int) bool {
	if l, ok := w.tr.(transport.Locality); ok {
		return l.Local(pe)
	}
	return w.tr.Mapped(pe) != nil
}
