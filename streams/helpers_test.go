package streams_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/petest"
	"github.com/gshmem/gshmem/shmem"
	"github.com/gshmem/gshmem/streams"
)

func right(w *shmem.World) int { return (w.MyPE() + 1) % w.NPEs() }
func left(w *shmem.World) int  { return (w.MyPE() + w.NPEs() - 1) % w.NPEs() }

// newStream makes a stream that the test closes at the end.
func newStream(t require.TestingT, w *shmem.World, opts ...streams.Option) *streams.Stream {
	s, err := streams.New(w, opts...)
	require.NoError(t, err)
	return s
}

// inproc runs fn as n goroutine PEs only (for tests of the stream machinery
// itself, which does not depend on how PEs are made).
func inproc(t *testing.T, n int, fn func(t *petest.T, w *shmem.World)) {
	t.Helper()
	petest.RunConfig(t, petest.Config{N: n, HeapSize: 8 << 20, Modes: []string{"inproc"}}, fn)
}
