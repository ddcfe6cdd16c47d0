package shmem_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
)

func TestInfo(t *testing.T) {
	major, minor := shmem.InfoVersion()
	assert.Equal(t, [2]int{1, 5}, [2]int{major, minor})
	assert.Equal(t, "gshmem", shmem.InfoName())
	assert.Equal(t, 1, shmem.PcontrolLevel(), "profiling is on by default")
	shmem.Pcontrol(0)
	assert.Equal(t, 0, shmem.PcontrolLevel())
	shmem.Pcontrol(2)
	assert.Equal(t, 2, shmem.PcontrolLevel())
	shmem.Pcontrol(1)
	require.NoError(t, shmem.Run(2, func(w *shmem.World) error {
		assert.Equal(t, shmem.ThreadMultiple, w.QueryThread())
		return nil
	}))
}
