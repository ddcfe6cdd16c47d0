package bootstrap

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envJob opens an env bootstrap of size ranks on one address.
func envJob(t *testing.T, size int) []Bootstrap {
	addr := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	boots := make([]Bootstrap, size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() {
			env := envMap(map[string]string{"GSHMEM_RANK": strconv.Itoa(r), "GSHMEM_NPES": strconv.Itoa(size)})
			boots[r], errs[r] = Env(ctx, env, Config{Addr: addr, Secret: testSecret})
		})
	}
	wg.Wait()
	for r, err := range errs {
		require.NoError(t, err, "rank %d", r)
	}
	return boots
}

// Rank 0's goodbye, while a rank still waits in an allgather, is a rank
// that left (ErrLost), not a malformed message of type 7.
func TestEnvRootGoodbyeIsALoss(t *testing.T) {
	boots := envJob(t, 2)
	require.NoError(t, boots[0].Close())
	_, err := boots[1].Allgather(context.Background(), []byte("x"))
	require.ErrorIs(t, err, ErrLost)
	assert.NotErrorIs(t, err, ErrRendezvous)
	assert.Contains(t, err.Error(), "rank 0 left the job")
	require.NoError(t, boots[1].Close())
}

// A rank that leaves during an allgather is reported to the others by
// rank 0, by number.
func TestEnvLostRankIsNamedToAll(t *testing.T) {
	boots := envJob(t, 3)
	require.NoError(t, boots[1].Close())
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for _, r := range []int{0, 2} {
		wg.Go(func() { _, errs[r] = boots[r].Allgather(context.Background(), []byte("x")) })
	}
	wg.Wait()
	for _, r := range []int{0, 2} {
		require.ErrorIs(t, errs[r], ErrLost, "rank %d", r)
		assert.Contains(t, errs[r].Error(), "rank 1", "rank %d", r)
		_ = boots[r].Close()
	}
}
