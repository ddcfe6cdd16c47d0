package compat

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHeapFitsMessageAddsUp(t *testing.T) {
	const heap = 64 << 20
	// 1024 PEs of 64k rings: 64 MiB of rings alone.
	c, err := buildConfig(nil, heap, 1024)
	require.Error(t, err)
	assert.Equal(t, ClassNoMem, ClassOf(err))
	rings := 1024 * c.ringBytes
	need := rings + c.stagingBytes + c.poolBytes + c.scratchSize
	assert.Contains(t, err.Error(), fmt.Sprintf("compat needs %d bytes of the %d-byte symmetric heap: rings %d (1024 PEs x %d), staging %d, pool %d, scratch %d, and keeps an eighth (%d)",
		need, heap, rings, c.ringBytes, c.stagingBytes, c.poolBytes, c.scratchSize, heap/8))
	assert.Contains(t, err.Error(), "lower the largest part, GSHMEM_MPI_RING_SIZE")
	least := minHeap(c, 1024, uint64(need))
	assert.Contains(t, err.Error(), fmt.Sprintf("GSHMEM_SYMMETRIC_SIZE to at least %d", least))
	_, err = buildConfig(nil, least, 1024)
	assert.NoError(t, err, "the size it names is enough")
	_, err = buildConfig(nil, least-1<<20, 1024)
	assert.Error(t, err, "and 1 MiB less is not")

	// A big pool on few PEs: the pool is what to lower.
	_, err = buildConfig([]Option{WithPoolSize(60 << 20)}, heap, 2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lower the largest part, GSHMEM_MPI_POOL_SIZE")
}
