package shmem_test

import (
	"fmt"
	"testing"

	"github.com/gshmem/gshmem/shmem"
)

// benchTeam runs body b.N times on every PE of an in-process job of n PEs
// and times the loop (the setup and a warm-up are excluded). The time per
// op is a collective's latency as PE 0 sees it.
func benchTeam(b *testing.B, n int, setup func(w *shmem.World) (func() error, error)) {
	b.Helper()
	err := shmem.Run(n, func(w *shmem.World) error {
		op, err := setup(w)
		if err != nil {
			return err
		}
		for range 10 {
			if err := op(); err != nil {
				return err
			}
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			b.ResetTimer()
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		for range b.N {
			if err := op(); err != nil {
				return err
			}
		}
		if err := w.BarrierAll(); err != nil {
			return err
		}
		if w.MyPE() == 0 {
			b.StopTimer()
		}
		return nil
	}, shmem.WithSymmetricSize(64<<20))
	if err != nil {
		b.Fatal(err)
	}
}

func benchPEs(b *testing.B, bytes int64, setup func(w *shmem.World) (func() error, error)) {
	for _, n := range []int{2, 4} {
		b.Run(fmt.Sprintf("pes=%d", n), func(b *testing.B) {
			b.SetBytes(bytes)
			benchTeam(b, n, setup)
		})
	}
}

func BenchmarkBarrier(b *testing.B) {
	benchPEs(b, 0, func(w *shmem.World) (func() error, error) {
		return w.TeamWorld().Barrier, nil
	})
}

func benchAllreduce(b *testing.B, n int) {
	benchPEs(b, int64(4*n), func(w *shmem.World) (func() error, error) {
		src, err := shmem.Calloc[float32](w, n)
		if err != nil {
			return nil, err
		}
		dst, err := shmem.Calloc[float32](w, n)
		if err != nil {
			return nil, err
		}
		return func() error { return shmem.Reduce(w.TeamWorld(), shmem.ReduceSum, dst, src, n) }, nil
	})
}

// BenchmarkAllreduce8B reduces two float32 (8 bytes), summing.
func BenchmarkAllreduce8B(b *testing.B) { benchAllreduce(b, 2) }

// BenchmarkAllreduce1MiB reduces 256Ki float32 (1 MiB), summing.
func BenchmarkAllreduce1MiB(b *testing.B) { benchAllreduce(b, 1<<18) }

// BenchmarkBroadcast1MiB broadcasts 1 MiB from team PE 0.
func BenchmarkBroadcast1MiB(b *testing.B) {
	benchPEs(b, 1<<20, func(w *shmem.World) (func() error, error) {
		src, err := shmem.Calloc[byte](w, 1<<20)
		if err != nil {
			return nil, err
		}
		dst, err := shmem.Calloc[byte](w, 1<<20)
		if err != nil {
			return nil, err
		}
		return func() error { return shmem.Broadcast(w.TeamWorld(), dst, src, 1<<20, 0) }, nil
	})
}

// BenchmarkAlltoall1MiB sends 1 MiB from every PE to every PE (as
// osu_alltoall -m 1048576: the size is that of one block).
func BenchmarkAlltoall1MiB(b *testing.B) {
	benchPEs(b, 1<<20, func(w *shmem.World) (func() error, error) {
		np := w.NPEs()
		src, err := shmem.Calloc[byte](w, np<<20)
		if err != nil {
			return nil, err
		}
		dst, err := shmem.Calloc[byte](w, np<<20)
		if err != nil {
			return nil, err
		}
		return func() error { return shmem.Alltoall(w.TeamWorld(), dst, src, 1<<20) }, nil
	})
}
