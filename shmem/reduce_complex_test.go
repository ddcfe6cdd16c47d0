package shmem_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// gauss is element i of PE pe's source: a small Gaussian integer, so that
// sums and products over a few PEs are exact in any order and the
// reference below must match bit for bit.
func gauss[T complex64 | complex128](pe, i int) T {
	re := float64((pe*7+i*3)%5 - 2)
	im := float64((pe*5+i)%3 - 1)
	if re == 0 && im == 0 {
		re = 1
	}
	return T(complex(re, im))
}

// complexRef folds every PE's source with op, one PE after another.
func complexRef[T complex64 | complex128](op shmem.ReduceOp, np, i int) T {
	acc := gauss[T](0, i)
	for p := 1; p < np; p++ {
		if op == shmem.ReduceProd {
			acc *= gauss[T](p, i)
		} else {
			acc += gauss[T](p, i)
		}
	}
	return acc
}

func complexReductions[T complex64 | complex128](t *petest.T, w *shmem.World) {
	tm := w.TeamWorld()
	me, np := tm.MyPE(), tm.NPEs()
	// Sizes that take every path: the barrier's lines, the scratch, the
	// per-PE slices and, without mappings, doubling and the ring.
	for _, n := range []int{1, 3, 100, 1000, 6000} {
		src, err := shmem.Alloc[T](w, n*np)
		require.NoError(t, err)
		dst, err := shmem.Alloc[T](w, n*np)
		require.NoError(t, err)
		for _, op := range []shmem.ReduceOp{shmem.ReduceSum, shmem.ReduceProd} {
			what := fmt.Sprintf("%T %s n=%d", *new(T), op, n)
			for i := range n * np {
				src.Local()[i] = gauss[T](me, i)
			}
			want := make([]T, n)
			for i := range want {
				want[i] = complexRef[T](op, np, i)
			}
			require.NoError(t, shmem.Reduce(tm, op, dst, src, n), what)
			require.Equal(t, want, dst.Local()[:n], what)
			// In place.
			require.NoError(t, shmem.Reduce(tm, op, src, src, n), what)
			require.Equal(t, want, src.Local()[:n], "%s in place", what)
			// ReduceScatter: this PE's block of the folded sources.
			for i := range n * np {
				src.Local()[i] = gauss[T](me, i)
			}
			for k := range want {
				want[k] = complexRef[T](op, np, me*n+k)
			}
			require.NoError(t, shmem.ReduceScatter(tm, op, dst, src, n), what)
			require.Equal(t, want, dst.Local()[:n], "%s scatter", what)
		}
		require.NoError(t, shmem.Free(dst))
		require.NoError(t, shmem.Free(src))
	}
	s, err := shmem.Alloc[T](w, 4)
	require.NoError(t, err)
	for _, op := range []shmem.ReduceOp{shmem.ReduceMin, shmem.ReduceMax, shmem.ReduceAnd, shmem.ReduceOr, shmem.ReduceXor} {
		require.ErrorIs(t, shmem.Reduce(tm, op, s, s, 4), shmem.ErrInvalid, "%s", op)
	}
	require.NoError(t, shmem.Free(s))
}

func TestReduceComplex(t *testing.T) {
	for _, np := range []int{3, 4} {
		t.Run(fmt.Sprint(np), func(t *testing.T) {
			petest.RunConfig(t, allModes(np), func(t *petest.T, w *shmem.World) {
				complexReductions[complex64](t, w)
				complexReductions[complex128](t, w)
			})
		})
	}
}

// Named complex types reduce as their underlying type.
func TestReduceNamedComplex(t *testing.T) {
	type phasor complex128
	require.NoError(t, shmem.Run(2, func(w *shmem.World) error {
		s, err := shmem.Alloc[phasor](w, 2)
		if err != nil {
			return err
		}
		s.Local()[0], s.Local()[1] = phasor(complex(1, float64(w.MyPE()+1))), 2i
		if err := shmem.Reduce(w.TeamWorld(), shmem.ReduceProd, s, s, 2); err != nil {
			return err
		}
		assert.Equal(t, []phasor{(1 + 1i) * (1 + 2i), 2i * 2i}, s.Local())
		return shmem.Free(s)
	}))
}
