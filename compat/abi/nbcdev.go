//go:build cgo

package main

// Device buffers in the schedules (nbc.go) of the nonblocking, persistent
// and neighborhood collectives and MPI_Alltoallw, in a CUDA-aware job
// (heap on the GPU). A schedule packs and unpacks on the host between
// rounds that may run in any later MPI call, so a device buffer cannot be
// read or written where it lies: at the start (the call, or MPI_Start for
// a persistent collective, whose start makes a new schedule) each device
// buffer is replaced by a host copy, the rounds run over the copies, and
// the copies of receive buffers are written back as the schedule's last
// step, after its finish, so MPI_Wait and MPI_Test report completion only
// once the result is in device memory. The copies are the synchronous ones
// the rest of the ABI uses (ordered after the legacy default stream), never
// on a stream of the user's. They live as long as the schedule, which goes
// with its request. With host buffers, or a heap in host memory, nothing
// is copied or allocated (onDevice answers before asking the driver).

// stagedBuf is a device receive buffer and the host copy written back to it.
type stagedBuf struct{ dev, host []byte }

// hostIn returns b for the host to read: b itself, or a host copy of
// device memory taken now (MPI forbids changing a send buffer before
// completion, so now and later read the same bytes).
func (s *schedule) hostIn(b []byte) ([]byte, error) {
	if !onDevice(b) {
		return b, nil
	}
	return hostView(b)
}

// hostOut returns b for the host to write: b itself, or a host copy of
// device memory (its bytes copied in, as the collective may leave parts of
// it alone or read it in place) that the schedule writes back to b when it
// completes.
func (s *schedule) hostOut(b []byte) ([]byte, error) {
	if !onDevice(b) {
		return b, nil
	}
	h, err := hostView(b)
	if err != nil {
		return nil, err
	}
	s.back = append(s.back, stagedBuf{dev: b, host: h})
	return h, nil
}

// stage is hostIn of a send buffer and hostOut of a receive buffer.
func (s *schedule) stage(snd, rcv []byte) ([]byte, []byte, error) {
	hs, err := s.hostIn(snd)
	if err != nil {
		return nil, nil, err
	}
	hr, err := s.hostOut(rcv)
	return hs, hr, err
}

// writeBack copies the host copies of device receive buffers back, once
// the schedule has finished, and lets the copies go.
func (s *schedule) writeBack() error {
	back := s.back
	s.back = nil
	for _, d := range back {
		if err := env.e.World().CopyHostToDevice(uintptr(ptrOf(d.dev)), d.host); err != nil {
			return err
		}
	}
	return nil
}
