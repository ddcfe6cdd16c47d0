package shmem

// localTransport is what a process PE's transport (transport.Multi) adds:
// which peers it reaches by load/store before it has mapped them, and how
// many it has mapped. Node-local peers are mapped on first use, so "is pe
// on this node" must not be asked through Mapped, which maps.
type localTransport interface {
	Local(pe int) bool
	MappedPeers() int
}

// local reports whether pe's heap is reached by load/store from this PE
// (mapped already or on first use). Transports that map everything at
// once (goroutine PEs) or nothing (a device heap) answer through Mapped.
func (w *World) local(pe int) bool {
	if l, ok := w.tr.(localTransport); ok {
		return l.Local(pe)
	}
	return w.tr.Mapped(pe) != nil
}
