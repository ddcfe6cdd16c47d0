package compat_test

import (
	"testing"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/shmem"
)

// benchPair runs body on two in-process ranks; rank 0 owns the timer.
func benchPair(b *testing.B, body func(b *testing.B, e *compat.Env, c *compat.Comm) error) {
	b.Helper()
	err := shmem.Run(2, func(w *shmem.World) error {
		e, err := compat.New(w)
		if err != nil {
			return err
		}
		c := e.CommWorld()
		if err := c.Barrier(); err != nil {
			return err
		}
		if err := body(b, e, c); err != nil {
			return err
		}
		return e.Finalize()
	}, shmem.WithSymmetricSize(64<<20))
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLatency8B is osu_latency at 8 bytes: ping-pong, reported per
// one-way message (half the round trip).
func BenchmarkLatency8B(b *testing.B) {
	benchPair(b, func(b *testing.B, e *compat.Env, c *compat.Comm) error {
		buf := make([]byte, 8)
		for range 1000 { // warm-up
			if err := pingpong(c, buf); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := pingpong(c, buf); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/msg")
		}
		return nil
	})
}

func pingpong(c *compat.Comm, buf []byte) error {
	if c.Rank() == 0 {
		if err := compat.Send(c, buf, len(buf), compat.Byte, 1, 1); err != nil {
			return err
		}
		_, err := compat.Recv(c, buf, len(buf), compat.Byte, 1, 1)
		return err
	}
	if _, err := compat.Recv(c, buf, len(buf), compat.Byte, 0, 1); err != nil {
		return err
	}
	return compat.Send(c, buf, len(buf), compat.Byte, 0, 1)
}

// BenchmarkBandwidth1MiB is osu_bw at 1 MiB: windows of 64 Isends
// answered by one short message; bytes/s is the bandwidth.
func BenchmarkBandwidth1MiB(b *testing.B) { benchBW(b, 1<<20, false) }

// BenchmarkBandwidth1MiBAllocMem is the same from AllocMem buffers.
func BenchmarkBandwidth1MiBAllocMem(b *testing.B) { benchBW(b, 1<<20, true) }

func benchBW(b *testing.B, size int, allocMem bool) {
	const window = 64
	benchPair(b, func(b *testing.B, e *compat.Env, c *compat.Comm) error {
		// As osu_bw: every message of the window uses the same buffer.
		var buf []byte
		if allocMem {
			var err error
			if buf, err = e.AllocMem(size); err != nil {
				return err
			}
		} else {
			buf = make([]byte, size)
		}
		ack := make([]byte, 4)
		reqs := make([]*compat.Request, window)
		round := func() error {
			for i := range window {
				var err error
				part := buf
				if c.Rank() == 0 {
					reqs[i], err = compat.Isend(c, part, size, compat.Byte, 1, 2)
				} else {
					reqs[i], err = compat.Irecv(c, part, size, compat.Byte, 0, 2)
				}
				if err != nil {
					return err
				}
			}
			if err := compat.Waitall(reqs, nil); err != nil {
				return err
			}
			if c.Rank() == 0 {
				_, err := compat.Recv(c, ack, 4, compat.Byte, 1, 3)
				return err
			}
			return compat.Send(c, ack, 4, compat.Byte, 0, 3)
		}
		for range 2 {
			if err := round(); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			b.SetBytes(int64(size * window))
			b.ResetTimer()
		}
		for range b.N {
			if err := round(); err != nil {
				return err
			}
		}
		if c.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
}
