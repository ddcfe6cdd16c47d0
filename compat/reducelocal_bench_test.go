package compat_test

import (
	"testing"
	"unsafe"

	"github.com/gshmem/gshmem/compat"
)

// BenchmarkReduceLocal times the slice-wise combine that every p2p-based
// reduction runs per step, without the messaging around it.
func BenchmarkReduceLocal(b *testing.B) {
	b.Run("float64", func(b *testing.B) { benchReduceLocal[float64](b, compat.Float64) })
	b.Run("int32", func(b *testing.B) { benchReduceLocal[int32](b, compat.Int32) })
}

func benchReduceLocal[T float64 | int32](b *testing.B, dt compat.Datatype) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(sizeName(size), func(b *testing.B) {
			var z T
			n := size / int(unsafe.Sizeof(z))
			in, io := make([]T, n), make([]T, n)
			for i := range in {
				in[i], io[i] = T(i%7), T(i%5)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				if err := compat.ReduceLocal(in, io, n, dt, compat.OpSum); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "1KiB"
}
