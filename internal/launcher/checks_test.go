package launcher

import (
	"os"
	"testing"

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
