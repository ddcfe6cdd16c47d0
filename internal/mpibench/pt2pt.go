package mpibench

import (
	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// Bench runs the OSU point-to-point and collective patterns on a
// compat.Env of its own, for `gshmem perf` (pt2pt_latency, pt2pt_bw,
// allreduce) and compat's Go benchmarks. Every PE of the World makes one
// with the same arguments; each pattern call is one iteration, made on every PE (ranks
// other than 0 and 1 return at once from the point-to-point patterns).
type Bench struct {
	Env      *compat.Env
	Comm     *compat.Comm
	buf      []byte // the message buffer, reused by every message as OSU does
	allocMem bool   // buf came from AllocMem
	ack      []byte
	reqs     []*compat.Request
	vals     []float64
	out      []float64
}

// NewBench sets up MPI over w with a buffer of maxSize bytes, from AllocMem
// (allocMem, MPI_Alloc_mem: the zero-copy rendezvous between processes)
// or from Go memory (malloc, as osu_latency and osu_bw allocate). It is
// collective.
func NewBench(w *shmem.World, maxSize int, allocMem bool, opts ...compat.Option) (*Bench, error) {
	e, err := compat.New(w, opts...)
	if err != nil {
		return nil, err
	}
	b := &Bench{Env: e, Comm: e.CommWorld(), allocMem: allocMem, ack: make([]byte, 4)}
	if allocMem {
		if b.buf, err = e.AllocMem(maxSize); err != nil {
			_ = e.Finalize()
			return nil, err
		}
	} else {
		b.buf = make([]byte, maxSize)
	}
	return b, nil
}

// Buffer returns the message buffer.
func (b *Bench) Buffer() []byte { return b.buf }

// PingPong is one round trip of osu_latency: rank 0 sends size bytes to
// rank 1 and receives them back. It is two messages: one-way latency is
// the time over twice the iterations.
func (b *Bench) PingPong(size int) error {
	c, buf := b.Comm, b.buf[:size]
	switch c.Rank() {
	case 0:
		if err := compat.Send(c, buf, size, compat.Byte, 1, 1); err != nil {
			return err
		}
		_, err := compat.Recv(c, buf, size, compat.Byte, 1, 1)
		return err
	case 1:
		if _, err := compat.Recv(c, buf, size, compat.Byte, 0, 1); err != nil {
			return err
		}
		return compat.Send(c, buf, size, compat.Byte, 0, 1)
	}
	return nil
}

// Window is one window of osu_bw: rank 0 posts window Isends of size bytes
// to rank 1, which posts as many Irecvs; both wait, and rank 1 answers with
// a 4-byte message. Bandwidth is window*size bytes over the time.
func (b *Bench) Window(size, window int) error {
	c, buf := b.Comm, b.buf[:size]
	me := c.Rank()
	if me > 1 {
		return nil
	}
	b.reqs = b.reqs[:0]
	for range window {
		var r *compat.Request
		var err error
		if me == 0 {
			r, err = compat.Isend(c, buf, size, compat.Byte, 1, 2)
		} else {
			r, err = compat.Irecv(c, buf, size, compat.Byte, 0, 2)
		}
		if err != nil {
			return err
		}
		b.reqs = append(b.reqs, r)
	}
	if err := compat.Waitall(b.reqs, nil); err != nil {
		return err
	}
	if me == 0 {
		_, err := compat.Recv(c, b.ack, 4, compat.Byte, 1, 3)
		return err
	}
	return compat.Send(c, b.ack, 4, compat.Byte, 0, 3)
}

// Allreduce is one iteration of osu_allreduce: every rank sums count
// float64s.
func (b *Bench) Allreduce(count int) error {
	if len(b.vals) < count {
		b.vals, b.out = make([]float64, count), make([]float64, count)
	}
	return compat.Allreduce(b.Comm, b.vals[:count], b.out[:count], count, compat.Float64, compat.OpSum)
}

// Close finalizes the Env (collective).
func (b *Bench) Close() error {
	if b.allocMem {
		_ = compat.FreeMem(b.Env, b.buf)
	}
	return b.Env.Finalize()
}
