package shmem

// On-stream team collectives for a World whose heap is device memory
// (nvshmemx_<op>_on_stream): each enqueues the collective's kernels on
// stream, a CUstream of the PE's context, and returns without waiting. The
// arguments are checked on this PE only (there is no entry barrier to
// compare them across members): every member must issue the same
// collectives of the team in the same order, with the same arguments, on
// streams ordered so that its kernels of one collective follow those of the
// previous one. They fail with ErrUnsupported when the team's collectives
// cannot run as kernels (host heap, a member's heap not mapped here, more
// than 64 members).

func (t *Team) streamable() error {
	if err := t.usable(); err != nil {
		return err
	}
	if !t.onDevice() {
		return errf(ErrUnsupported, "team collectives on a stream need a device heap that maps every member of %s", t)
	}
	return nil
}

// SyncOnDeviceStream is a barrier of the team's members when stream reaches
// it: afterwards the stream sees every member's stream work issued before
// its barrier (nvshmemx_team_sync_on_stream; a barrier, since stream work
// is complete when the next starts).
func (t *Team) SyncOnDeviceStream(stream uintptr) error {
	if err := t.streamable(); err != nil {
		return err
	}
	return t.w.dev.collSync(stream, t.devTeam())
}

// ReduceOnDeviceStream is Reduce (an all-reduce) on stream.
func ReduceOnDeviceStream[T Reducible](stream uintptr, t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	if err := t.streamable(); err != nil {
		return err
	}
	if _, err := reduceDesc(t, op, dst, src, n); err != nil {
		return err
	}
	if err := checkDevOp[T](op); err != nil {
		return err
	}
	if n == 0 || elemSize[T]() == 0 {
		return nil
	}
	if _, err := t.DeviceHandle(); err != nil { // once: a write and a wait on the PE's stream
		return err
	}
	return t.w.dev.collReduce(stream, t.devTeam(), devType[T](), int(op), devSize[T](), dst.off, src.off, devCount[T](n), false)
}

// ReduceScatterOnDeviceStream is ReduceScatter on stream.
func ReduceScatterOnDeviceStream[T Reducible](stream uintptr, t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	if err := t.streamable(); err != nil {
		return err
	}
	np := len(t.members)
	nb := uint64(max(n, 0)) * elemSize[T]()
	err := checkOp[T](op)
	if err == nil {
		err = checkDevOp[T](op)
	}
	if err == nil && n < 0 {
		err = errf(ErrInvalid, "ReduceScatter of %d elements", n)
	}
	if err == nil {
		if err = checkObj(t, src, "ReduceScatter src", min(n, src.n+1)*np); err == nil {
			err = checkObj(t, dst, "ReduceScatter dst", n)
		}
	}
	if err == nil && overlap(dst.off, nb, src.off, nb*uint64(np)) {
		err = errf(ErrInvalid, "ReduceScatter dst and src overlap")
	}
	if err != nil || nb == 0 {
		return err
	}
	return t.w.dev.collReduce(stream, t.devTeam(), devType[T](), int(op), devSize[T](), dst.off, src.off, devCount[T](n), true)
}

// BroadcastOnDeviceStream is Broadcast on stream.
func BroadcastOnDeviceStream[T any](stream uintptr, t *Team, dst, src Sym[T], n, root int) error {
	if err := t.streamable(); err != nil {
		return err
	}
	if err := checkBroadcast(t, dst, src, n, root); err != nil {
		return err
	}
	nb := uint64(n) * elemSize[T]()
	if nb == 0 {
		return nil
	}
	return t.w.dev.collBroadcast(stream, t.devTeam(), root, dst.off, src.off, nb)
}

// FCollectOnDeviceStream is FCollect on stream.
func FCollectOnDeviceStream[T any](stream uintptr, t *Team, dst, src Sym[T], n int) error {
	if err := t.streamable(); err != nil {
		return err
	}
	np := len(t.members)
	nb := uint64(max(n, 0)) * elemSize[T]()
	var err error
	if n < 0 {
		err = errf(ErrInvalid, "FCollect of %d elements", n)
	} else if err = checkObj(t, src, "FCollect src", n); err == nil {
		if err = checkObj(t, dst, "FCollect dst", n*np); err == nil && overlap(dst.off, nb*uint64(np), src.off, nb) {
			err = errf(ErrInvalid, "FCollect dst and src overlap")
		}
	}
	if err != nil || nb == 0 {
		return err
	}
	return t.w.dev.collFCollect(stream, t.devTeam(), dst.off, src.off, nb)
}

// AlltoallOnDeviceStream is Alltoall on stream.
func AlltoallOnDeviceStream[T any](stream uintptr, t *Team, dst, src Sym[T], n int) error {
	if err := t.streamable(); err != nil {
		return err
	}
	np := len(t.members)
	blk := uint64(max(n, 0)) * elemSize[T]()
	all := blk * uint64(np)
	var err error
	if n < 0 {
		err = errf(ErrInvalid, "Alltoall of %d elements", n)
	} else if err = checkObj(t, src, "Alltoall src", min(n, src.n+1)*np); err == nil {
		if err = checkObj(t, dst, "Alltoall dst", n*np); err == nil && overlap(dst.off, all, src.off, all) {
			err = errf(ErrInvalid, "Alltoall dst and src overlap")
		}
	}
	if err != nil || blk == 0 {
		return err
	}
	return t.pullDevice(stream, alltoallPieces(t, dst.off, src.off, blk), false)
}
