package shmem_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gshmem/gshmem/shmem"
)

// GSHMEM_REMOTE_TRANSPORT: an unknown name is invalid, and ucx in a build
// without it says so before joining any job.
func TestRemoteTransportSetting(t *testing.T) {
	t.Setenv("GSHMEM_REMOTE_TRANSPORT", "carrier-pigeon")
	_, err := shmem.Init(context.Background())
	assert.ErrorIs(t, err, shmem.ErrInvalid)
	assert.ErrorContains(t, err, "want tcp or ucx")

	if shmem.UCXBuilt {
		return // the ucx-tagged tests cover a build with it
	}
	t.Setenv("GSHMEM_REMOTE_TRANSPORT", "ucx")
	_, err = shmem.Init(context.Background())
	assert.ErrorIs(t, err, shmem.ErrUnsupported)
	assert.ErrorContains(t, err, "-tags ucx")
}
