package launcher

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBootstrapVarRefused(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, v := range []string{"garbage", "pmi"} {
		r := run(t, Config{N: 2, Argv: []string{exe}, Env: append(childEnvFor("sleep"), "GSHMEM_BOOTSTRAP="+v)})
		require.ErrorIs(t, r.err, ErrConfig, v)
		assert.ErrorContains(t, r.err, `GSHMEM_BOOTSTRAP="`+v+`": gshmem run starts its PEs with the local bootstrap; unset it`)
		assert.Equal(t, 1, r.code)
		assert.Empty(t, r.log, "refused before any PE started")
	}
	// local, or unset, is what gshmem run sets anyway.
	r := run(t, Config{N: 1, Argv: []string{"true"}, Env: []string{"GSHMEM_BOOTSTRAP=local", "PATH=" + os.Getenv("PATH")}})
	require.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
}

// TestBootstrapTimeoutOneLine: a PE that never joins ends the job with one
// line naming the variable, and the PEs that did join report nothing.
func TestBootstrapTimeoutOneLine(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	env := append(childEnvFor("late1"), "GSHMEM_BOOTSTRAP_TIMEOUT=1s")
	r := run(t, Config{N: 3, Argv: []string{exe}, Env: env})
	require.NoError(t, r.err)
	assert.Equal(t, exitTimeout, r.code)
	assert.Equal(t, 1, strings.Count(r.log, "\n"), "one line for the job:\n%s", r.log)
	assert.Contains(t, r.log, "of 3 PEs joined the job within GSHMEM_BOOTSTRAP_TIMEOUT=1s")
	assert.NotContains(t, r.stderr, "child:", "the PEs that joined were stopped before reporting anything")
}

func TestBootstrapTimeoutParse(t *testing.T) {
	assert.Equal(t, 60*time.Second, bootstrapTimeout(nil))
	assert.Equal(t, 90*time.Second, bootstrapTimeout([]string{"GSHMEM_BOOTSTRAP_TIMEOUT=90"}))
	assert.Equal(t, 1500*time.Millisecond, bootstrapTimeout([]string{"GSHMEM_BOOTSTRAP_TIMEOUT=1.5s"}))
	assert.Equal(t, 60*time.Second, bootstrapTimeout([]string{"GSHMEM_BOOTSTRAP_TIMEOUT=soon"}))
	assert.Equal(t, 58*time.Second, joinDeadline(60*time.Second))
	assert.Equal(t, 900*time.Millisecond, joinDeadline(time.Second))
}

func TestCheckCapacity(t *testing.T) {
	two := Capacity{CPUs: 2, MemBytes: 24 << 30}
	for _, n := range []int{1, 4, 8} {
		assert.NoError(t, CheckCapacity(n, two, false), "the README's jobs on 2 CPUs: %d PEs", n)
	}
	err := CheckCapacity(1000, two, false)
	require.ErrorIs(t, err, ErrConfig)
	assert.EqualError(t, err, "job refused: 1000 PEs on 2 CPUs is more than 4 per CPU, where they would mostly wait for one another; pass --oversubscribe to start them anyway")
	assert.NoError(t, CheckCapacity(1000, two, true))

	small := Capacity{CPUs: 512, MemBytes: 1 << 30}
	err = CheckCapacity(200, small, false)
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), "200 PEs need about")
	assert.Contains(t, err.Error(), "1024 MiB available; pass --oversubscribe")
	assert.NoError(t, CheckCapacity(2, Capacity{}, false), "unknown capacity refuses nothing")

	c := NodeCapacity()
	assert.Positive(t, c.CPUs)
	assert.Positive(t, c.MemBytes, "MemAvailable is read from /proc/meminfo")
}
