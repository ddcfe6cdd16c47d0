package streams_test

import (
	"fmt"
	"testing"

	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

// windows is how many distinct source and destination buffers a benchmark
// cycles through, so that large copies come from memory (64 MiB in all at
// 1 MiB), not from a cache.
const windows = 32

// benchPE0 runs body on PE 0 of an in-process job of two PEs (PE 1 only
// takes part in the collectives) with windows destinations of size bytes
// and as many sources.
func benchPE0(b *testing.B, size int, body func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte)) {
	err := shmem.Run(2, func(w *shmem.World) error {
		all, err := shmem.Calloc[byte](w, size*windows)
		if err != nil {
			return err
		}
		dst := make([]shmem.Sym[byte], windows)
		src := make([][]byte, windows)
		for i := range dst {
			dst[i] = all.Slice(i*size, (i+1)*size)
			src[i] = make([]byte, size)
			for j := range src[i] {
				src[i][j] = byte(i + j)
			}
		}
		if w.MyPE() == 0 {
			body(b, w, dst, src)
		}
		return w.BarrierAll()
	}, shmem.WithSymmetricSize(uint64(size*windows)+(4<<20)))
	if err != nil {
		b.Fatal(err)
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkPutLatency compares a host put (Put then Quiet) with the same
// pair issued on a stream, in three ways: pipelined (the stream's per-op
// cost, Synchronize once at the end: NVSHMEM's stream latency test), and
// round trip (Synchronize after every put: the host-to-stream hand-off).
func BenchmarkPutLatency(b *testing.B) {
	for _, size := range []int{8, 1 << 20} {
		b.Run("host/"+sizeName(size), func(b *testing.B) {
			benchPE0(b, size, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if err := shmem.Put(dst[i%windows], src[i%windows], 1); err != nil {
						b.Fatal(err)
					}
					if err := w.Quiet(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
		b.Run("stream/"+sizeName(size), func(b *testing.B) {
			benchPE0(b, size, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
				s, err := streams.New(w)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					streams.PutOnStream(s, dst[i%windows], src[i%windows], 1)
					streams.QuietOnStream(s)
				}
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("stream-roundtrip/"+sizeName(size), func(b *testing.B) {
			benchPE0(b, size, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
				s, err := streams.New(w)
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					streams.PutOnStream(s, dst[i%windows], src[i%windows], 1)
					streams.QuietOnStream(s)
					if err := s.Synchronize(); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
