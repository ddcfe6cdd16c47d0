package compat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
)

// run runs fn on n ranks, as goroutines and as processes, each with an Env
// over its World.
func run(t *testing.T, n int, fn func(t *petest.T, e *compat.Env, c *compat.Comm), opts ...compat.Option) {
	t.Helper()
	petest.RunConfig(t, petest.Config{N: n, HeapSize: 64 << 20}, func(t *petest.T, w *shmem.World) {
		e, err := compat.New(w, opts...)
		require.NoError(t, err)
		fn(t, e, e.CommWorld())
		require.NoError(t, e.Finalize())
	})
}

// fill returns n bytes that depend on seed.
func fill(n int, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}
