package transport

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem/internal/bootstrap"
)

func TestCheckRemote(t *testing.T) {
	for _, ok := range []string{"", "tcp"} {
		assert.NoError(t, CheckRemote(ok), ok)
	}
	assert.ErrorContains(t, CheckRemote("verbs"), "want tcp or ucx")
	if UCXBuilt {
		assert.NoError(t, CheckRemote("ucx"))
		return
	}
	err := CheckRemote("ucx")
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	// Connect refuses it before creating anything.
	g := bootstrap.NewGroup(1)
	_, err = Connect(context.Background(), Config{Rank: 0, Size: 1, HeapSize: testHeap, Allgather: g.PE(0).Allgather, Remote: "ucx"})
	require.Error(t, err)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}
