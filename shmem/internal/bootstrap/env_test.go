package bootstrap

import (
	"context"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

func TestEnvRendezvous(t *testing.T) {
	const size = 4
	addr := freePort(t)
	f := newFakePMI(t, "none", size) // only for runJob's bookkeeping
	runJob(t, f, size, func(rank int) (Bootstrap, error) {
		env := map[string]string{
			"OMPI_COMM_WORLD_RANK": strconv.Itoa(rank), "OMPI_COMM_WORLD_SIZE": strconv.Itoa(size),
			"OMPI_COMM_WORLD_LOCAL_RANK": strconv.Itoa(rank), "OMPI_COMM_WORLD_LOCAL_SIZE": strconv.Itoa(size),
			"GSHMEM_BOOTSTRAP_ADDR": addr,
		}
		if rank > 0 {
			time.Sleep(time.Duration(rank) * 20 * time.Millisecond) // ranks join in any order
		}
		b, why, err := Open(context.Background(), Config{Addr: addr, Secret: testSecret}, envMap(env))
		if err == nil {
			assert.Equal(t, NameEnv, b.Name(), why)
			assert.Equal(t, [2]int{rank, size}, [2]int{b.LocalRank(), b.LocalSize()})
		}
		return b, err
	})
}

func TestEnvRendezvousRefusesOtherJobs(t *testing.T) {
	addr := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	env := func(rank int) func(string) string {
		return envMap(map[string]string{"PMI_RANK": strconv.Itoa(rank), "PMI_SIZE": "2"})
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var rootErr error
	go func() {
		defer wg.Done()
		_, rootErr = Env(ctx, env(0), Config{Addr: addr, Secret: []byte("secret-A-0123456789")})
	}()
	_, err := Env(ctx, env(1), Config{Addr: addr, Secret: []byte("secret-B-0123456789")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wrong job key")
	cancel()
	wg.Wait()
	require.Error(t, rootErr, "rank 0 must not accept the foreign rank")
	assert.Contains(t, rootErr.Error(), "waiting at")
}

func TestEnvRootUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Env(ctx, envMap(map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}), Config{Addr: freePort(t), Secret: testSecret})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "could not join rank 0")
	// Rank 0 given an address of another host cannot listen.
	_, err = Env(context.Background(), envMap(map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2"}), Config{Addr: "192.0.2.254:1", Secret: testSecret})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must be an address of the node running rank 0")
}

func TestRanksFromEnv(t *testing.T) {
	r, ok, err := RanksFromEnv(envMap(map[string]string{"SLURM_PROCID": "3", "SLURM_NTASKS": "6", "SLURM_LOCALID": "1", "SLURM_JOB_ID": "9", "SLURM_STEP_ID": "0"}))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 3, r.Rank)
	assert.Equal(t, 6, r.Size)
	assert.Equal(t, 1, r.LocalRank)
	assert.Equal(t, "SLURM_PROCID/SLURM_NTASKS", r.Source)
	_, ok, _ = RanksFromEnv(envMap(nil))
	assert.False(t, ok)

}
