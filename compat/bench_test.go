package compat_test

import (
	"testing"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/mpibench"
	"github.com/gshmem/gshmem/shmem"
)

// benchRun runs body on n in-process ranks with an mpibench.Bench; rank 0
// owns the timer, and ops is what one body call counts for.
func benchRun(b *testing.B, n, maxSize int, allocMem bool, body func(*mpibench.Bench) error) {
	b.Helper()
	err := shmem.Run(n, func(w *shmem.World) error {
		bn, err := mpibench.NewBench(w, maxSize, allocMem)
		if err != nil {
			return err
		}
		for range 100 { // warm-up
			if err := body(bn); err != nil {
				return err
			}
		}
		if err := bn.Comm.Barrier(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			b.ResetTimer()
		}
		for range b.N {
			if err := body(bn); err != nil {
				return err
			}
		}
		if w.MyPE() == 0 {
			b.StopTimer()
		}
		return bn.Close()
	}, shmem.WithSymmetricSize(64<<20))
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLatency8B is osu_latency at 8 bytes on 2 in-process ranks;
// ns/msg is the one-way latency (half the round trip).
func BenchmarkLatency8B(b *testing.B) {
	benchRun(b, 2, 8, false, func(bn *mpibench.Bench) error { return bn.PingPong(8) })
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/msg")
}

// BenchmarkBandwidth1MiB is osu_bw at 1 MiB (windows of 64) on 2
// in-process ranks, from Go memory.
func BenchmarkBandwidth1MiB(b *testing.B) {
	b.SetBytes(64 << 20)
	benchRun(b, 2, 1<<20, false, func(bn *mpibench.Bench) error { return bn.Window(1<<20, 64) })
}

// BenchmarkBandwidth1MiBAllocMem is BenchmarkBandwidth1MiB from AllocMem.
func BenchmarkBandwidth1MiBAllocMem(b *testing.B) {
	b.SetBytes(64 << 20)
	benchRun(b, 2, 1<<20, true, func(bn *mpibench.Bench) error { return bn.Window(1<<20, 64) })
}

// BenchmarkAllreduce8B is osu_allreduce of one float64 on 2 ranks.
func BenchmarkAllreduce8B(b *testing.B) {
	benchRun(b, 2, 8, false, func(bn *mpibench.Bench) error { return bn.Allreduce(1) })
}

// BenchmarkAllreduce1MiB is osu_allreduce of 1 MiB on 2 ranks.
func BenchmarkAllreduce1MiB(b *testing.B) {
	b.SetBytes(1 << 20)
	benchRun(b, 2, 8, false, func(bn *mpibench.Bench) error { return bn.Allreduce(1 << 17) })
}

// BenchmarkSelfSendRecv8B is a Send to this rank and its Recv, one rank:
// the layer's software cost per message pair, with no cache line crossing
// between cores (the ping-pong's floor is this plus the line transfers).
func BenchmarkSelfSendRecv8B(b *testing.B) {
	err := shmem.Run(1, func(w *shmem.World) error {
		env, err := compat.New(w)
		if err != nil {
			return err
		}
		c := env.CommWorld()
		buf := make([]byte, 8)
		b.ResetTimer()
		for range b.N {
			if err := compat.Send(c, buf, 8, compat.Byte, 0, 1); err != nil {
				return err
			}
			if _, err := compat.Recv(c, buf, 8, compat.Byte, 0, 1); err != nil {
				return err
			}
		}
		b.StopTimer()
		return env.Finalize()
	}, shmem.WithSymmetricSize(64<<20))
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSoloAllreduce8B is an Allreduce of one float64 on one rank: the
// layer's software cost over the team reduction it runs (shmem's
// BenchmarkSoloAllreduce8B is that reduction alone).
func BenchmarkSoloAllreduce8B(b *testing.B) {
	benchRun(b, 1, 8, false, func(bn *mpibench.Bench) error { return bn.Allreduce(1) })
}
