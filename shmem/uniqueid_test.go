package shmem

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestUniqueIDRefusals: an id never made (NVSHMEM's zero initializer), a
// rank outside the job, and a rank 0 that is not the id's maker are
// refused with ErrInvalid before any waiting.
func TestUniqueIDRefusals(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Init(ctx, WithUniqueID(UniqueID{}, 1, 2))
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, "not made by NewUniqueID")

	id, err := NewUniqueID()
	require.NoError(t, err)
	_, err = Init(ctx, WithUniqueID(id, 2, 2))
	require.ErrorIs(t, err, ErrInvalid)

	// Joined once as rank 0, the id's socket is spent: a second rank 0
	// (another process, or this one again) is refused.
	uidListeners.Lock()
	for a, ln := range uidListeners.m {
		_ = ln.Close()
		delete(uidListeners.m, a)
	}
	uidListeners.Unlock()
	_, err = Init(ctx, WithUniqueID(id, 0, 2))
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorContains(t, err, "rank 0 must be the process that made the id")
}

// TestUniqueIDSingle: a job of one PE from a unique id runs.
func TestUniqueIDSingle(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	id, err := NewUniqueID()
	require.NoError(t, err)
	w, err := Init(context.Background(), WithUniqueID(id, 0, 1), WithSymmetricSize(1<<20))
	require.NoError(t, err)
	require.Equal(t, 0, w.MyPE())
	require.Equal(t, 1, w.NPEs())
	require.NoError(t, w.Finalize())
}
