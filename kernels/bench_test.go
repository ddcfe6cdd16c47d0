package kernels_test

import (
	"fmt"
	"testing"

	"github.com/gshmem/gshmem/kernels"
	"github.com/gshmem/gshmem/shmem"
)

// windows is how many distinct source and destination buffers a bandwidth
// benchmark cycles through, so that the copies come from memory (64 MiB
// in all at 1 MiB) rather than from a cache that the host and the kernel
// forms would use differently.
const windows = 32

// benchPE0 runs body on PE 0 of an in-process job of two PEs, with
// windows destination objects of size bytes on PE 1 and as many sources.
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

// BenchmarkKernelPutBandwidth compares host puts of 1 MiB with block puts
// of 1 MiB issued from inside a kernel (each split over the block's
// threads), b.N of them within one launch, as NVSHMEM's put bandwidth test
// loops inside its kernel, cycling through 32 buffers; for a warp-sized and
// a 128-thread block, non-blocking (PutNBI, as NVSHMEM's test, with a block
// Quiet once per cycle of buffers) and blocking (Put: one block barrier per
// put).
func BenchmarkKernelPutBandwidth(b *testing.B) {
	const size = 1 << 20
	b.Run("host/1MiB", func(b *testing.B) {
		benchPE0(b, size, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
			b.SetBytes(size)
			b.ResetTimer()
			for i := range b.N {
				if err := shmem.Put(dst[i%windows], src[i%windows], 1); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Quiet(); err != nil {
				b.Fatal(err)
			}
		})
	})
	for _, threads := range []int{32, 128} {
		b.Run(fmt.Sprintf("kernel-block%d-nbi/1MiB", threads), func(b *testing.B) {
			benchPE0(b, size, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
				b.SetBytes(size)
				b.ResetTimer()
				err := kernels.Launch(kernels.Dim(1), kernels.Dim(threads), func(t *kernels.Thread) {
					for i := range b.N {
						kernels.PutNBI(t.Block(), dst[i%windows], src[i%windows], 1)
						if i%windows == windows-1 {
							// Keep the threads in step once per cycle of
							// buffers, or each would copy its own share of
							// every buffer back to back from its cache.
							kernels.Quiet(t.Block())
						}
					}
					kernels.Quiet(t.Block())
				}, kernels.WithWorld(w))
				if err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("kernel-block%d/1MiB", threads), func(b *testing.B) {
			benchPE0(b, size, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
				b.SetBytes(size)
				b.ResetTimer()
				err := kernels.Launch(kernels.Dim(1), kernels.Dim(threads), func(t *kernels.Thread) {
					for i := range b.N {
						kernels.Put(t.Block(), dst[i%windows], src[i%windows], 1)
					}
					kernels.Quiet(t.Block())
				}, kernels.WithWorld(w))
				if err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	b.Run("kernel-thread/8B", func(b *testing.B) {
		benchPE0(b, 8, func(b *testing.B, w *shmem.World, dst []shmem.Sym[byte], src [][]byte) {
			b.SetBytes(8)
			b.ResetTimer()
			err := kernels.Launch(kernels.Dim(1), kernels.Dim(1), func(t *kernels.Thread) {
				for range b.N {
					kernels.Put(t, dst[0], src[0], 1)
					kernels.Quiet(t)
				}
			}, kernels.WithWorld(w))
			if err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("launch/4x128", func(b *testing.B) {
		for range b.N {
			if err := kernels.Launch(kernels.Dim(4), kernels.Dim(128), func(*kernels.Thread) {}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSyncThreads measures one block barrier of the host emulation.
func BenchmarkSyncThreads(b *testing.B) {
	for _, threads := range []int{32, 128, 1024} {
		b.Run(fmt.Sprint(threads), func(b *testing.B) {
			err := kernels.Launch(kernels.Dim(1), kernels.Dim(threads), func(t *kernels.Thread) {
				for range b.N {
					t.SyncThreads()
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
