//go:build cuda

package gpu_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
)

// cval is element i of PE pe's source: a small Gaussian integer, so that
// sums are exact in any order.
func cval[T complex64 | complex128](pe, i int) T {
	return T(complex(float64((pe*7+i*3)%5-2), float64((pe*5+i)%3-1)))
}

// complexOnDevice checks complex sums as kernels (Reduce, ReduceScatter)
// against a host reference, and that a complex product is refused.
func complexOnDevice[T complex64 | complex128](w *shmem.World) error {
	t := w.TeamWorld()
	me, np := t.MyPE(), t.NPEs()
	for _, n := range []int{1, 7, 1000, 40000} {
		src, err := shmem.Alloc[T](w, n*np)
		if err != nil {
			return err
		}
		dst, err := shmem.Alloc[T](w, n*np)
		if err != nil {
			return err
		}
		v := make([]T, n*np)
		for i := range v {
			v[i] = cval[T](me, i)
		}
		if err := shmem.Put(src, v, me); err != nil {
			return err
		}
		if err := t.Sync(); err != nil {
			return err
		}
		ref := func(i int) T {
			var acc T
			for p := range np {
				acc += cval[T](p, i)
			}
			return acc
		}
		what := fmt.Sprintf("%T n=%d", v[0], n)
		if err := shmem.Reduce(t, shmem.ReduceSum, dst, src, n); err != nil {
			return fmt.Errorf("Reduce %s: %w", what, err)
		}
		got := make([]T, n)
		if err := shmem.Get(got, dst, me); err != nil {
			return err
		}
		for i := range got {
			if got[i] != ref(i) {
				return fmt.Errorf("Reduce %s: element %d = %v, want %v", what, i, got[i], ref(i))
			}
		}
		if err := shmem.ReduceScatter(t, shmem.ReduceSum, dst, src, n); err != nil {
			return fmt.Errorf("ReduceScatter %s: %w", what, err)
		}
		if err := shmem.Get(got, dst, me); err != nil {
			return err
		}
		for k := range got {
			if got[k] != ref(me*n+k) {
				return fmt.Errorf("ReduceScatter %s: element %d = %v, want %v", what, k, got[k], ref(me*n+k))
			}
		}
		if err := shmem.Reduce(t, shmem.ReduceProd, dst, src, n); !errors.Is(err, shmem.ErrUnsupported) {
			return fmt.Errorf("complex prod on the device heap: %v, want ErrUnsupported", err)
		}
		if err := shmem.Free(dst); err != nil {
			return err
		}
		if err := shmem.Free(src); err != nil {
			return err
		}
	}
	return nil
}

func TestGPUComplexReduce(t *testing.T) {
	needGPU(t)
	for _, n := range npes() {
		t.Run(fmt.Sprintf("%dPEs", n), func(t *testing.T) {
			require.NoError(t, shmem.Run(n, func(w *shmem.World) error {
				if err := complexOnDevice[complex64](w); err != nil {
					return err
				}
				return complexOnDevice[complex128](w)
			}, shmem.WithDevice()))
		})
	}
}
