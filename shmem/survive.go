package shmem

// Going on without lost PEs, for fault-tolerant layers above the core
// (compat's MPIX_Comm_shrink): by default the first loss ends every wait
// of the World, since the job cannot complete; a layer that has agreed
// with the survivors to continue without the lost PEs excuses them, and
// from then on only the waits and operations that name an excused PE fail.

// LostPEs returns the PEs this PE knows to be lost (they died, or stayed
// stopped past GSHMEM_PEER_TIMEOUT; not those that finalized), in
// increasing order. It is nil for goroutine PEs (Run), whose losses end
// the whole run.
func (w *World) LostPEs() []int {
	if w == nil || w.live == nil {
		return nil
	}
	return w.live.LostPEs()
}

// ExcuseLost lets this PE go on without the PEs pes once they are lost:
// their loss no longer ends waits that do not name them, while a wait on
// their words or an operation aimed at them still fails with ErrPeerLost.
// The caller must make sure that nothing it still waits for depends on
// them (it moved to a communicator of the survivors). A PE of pes that is
// alive is excused when it is lost later. It returns ErrInvalid for
// goroutine PEs (Run), which cannot go on after a loss.
func (w *World) ExcuseLost(pes []int) error {
	if w == nil || w.live == nil {
		return errf(ErrInvalid, "ExcuseLost: this World's transport does not report losses (goroutine PEs)")
	}
	w.live.Excuse(pes)
	return nil
}
