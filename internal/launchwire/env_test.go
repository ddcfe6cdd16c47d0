package launchwire

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnvFromEnviron(t *testing.T) {
	good := Env{Addr: "@gshmem-x", JobID: "x", Secret: []byte{0xde, 0xad}, Rank: 2, NPEs: 4, LocalRank: 2, LocalSize: 4}
	vars := map[string]string{}
	for _, kv := range good.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	assert.Equal(t, "local", vars[EnvBootstrap])
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	e, ok, err := EnvFromEnviron(get(vars))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, good, e)

	_, ok, err = EnvFromEnviron(get(nil))
	assert.NoError(t, err)
	assert.False(t, ok)

	for _, tc := range []struct{ key, val, want string }{
		{EnvRank, "4", "GSHMEM_RANK=4 is out of range [0, 3]"},
		{EnvRank, "two", `GSHMEM_RANK="two" is not an integer`},
		{EnvRank, "", "GSHMEM_RANK is not"},
		{EnvNPEs, "0", "GSHMEM_NPES=0 is less than 1"},
		{EnvJobSecret, "xyz", "GSHMEM_JOB_SECRET is not hexadecimal"},
		{EnvJobID, "", "GSHMEM_JOB_ID is not"},
		{EnvLocalRank, "-1", "GSHMEM_LOCAL_RANK=-1 is out of range"},
		{EnvLocalSize, "5", "GSHMEM_LOCAL_SIZE=5 is out of range [1, 4]"},
	} {
		m := map[string]string{}
		for k, v := range vars {
			m[k] = v
		}
		m[tc.key] = tc.val
		_, ok, err := EnvFromEnviron(get(m))
		assert.True(t, ok)
		if assert.Error(t, err, tc.key) {
			assert.Contains(t, err.Error(), tc.want)
		}
	}
	delete(vars, EnvLocalRank)
	delete(vars, EnvLocalSize)
	e, _, err = EnvFromEnviron(get(vars))
	require.NoError(t, err)
	assert.Equal(t, good, e, "local rank and size default to the global ones")
}
