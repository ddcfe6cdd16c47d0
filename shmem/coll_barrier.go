package shmem

// Sync waits until every member of the team has entered it
// (shmem_team_sync). It does not complete outstanding RMA: puts issued
// before it may still be in flight. It is a recursive-doubling barrier
// (dissemination when the team's size is not a power of two) over
// cache-line words in the team's heap slot: ceil(log2 n) rounds, each one
// atomic write to a peer and one wait on this PE's own word (spinning
// briefly, then sleeping on the heap's futex). Members that called a
// different collective get ErrSizeMismatch, all of them.
func (t *Team) Sync() error {
	if err := t.usable(); err != nil {
		return err
	}
	return t.barrier()
}

// barrier is Sync on a usable team. Outside GSHMEM_DEBUG a barrier's
// descriptor is a constant, so its hash is sent without building one.
func (t *Team) barrier() error {
	t.open()
	if t.w.opts.Debug != "" {
		d := newDesc(kSync)
		return t.agree(&d, nil)
	}
	same, err := t.sync(syncHash)
	if err != nil || same {
		return err
	}
	d := newDesc(kSync)
	d[dSeq] = t.cseq
	return t.mismatch(d, "")
}

// Barrier completes this PE's outstanding operations (Quiet) and then waits
// until every member has entered it (shmem_barrier on a team,
// nvshmem_barrier): after it, every put and atomic that any member issued
// before the barrier is visible to every member.
func (t *Team) Barrier() error {
	if err := t.usable(); err != nil {
		return err
	}
	if err := t.w.Quiet(); err != nil {
		return err
	}
	return t.barrier()
}
