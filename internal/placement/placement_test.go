package placement

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPick(t *testing.T) {
	four := []int{0, 1, 4, 5}
	assert.Equal(t, 0, Pick(four, 0, 2))
	assert.Equal(t, 4, Pick(four, 2, 4), "the r-th allowed CPU, not CPU r")
	assert.Equal(t, 0, Pick(four, 4, 5), "oversubscribed: round-robin")
	assert.Equal(t, -1, Pick([]int{3}, 0, 1), "a launcher pinned the process already")
	assert.Equal(t, -1, Pick(four, 2, 2), "a rank outside its node's count")
	assert.Equal(t, -1, Pick(nil, 0, 1))
}

func TestBinds(t *testing.T) {
	assert.True(t, Binds("auto", 2, 16))
	assert.False(t, Binds("oversubscribed", 2, 16), "a CPU per PE: left to the scheduler")
	assert.True(t, Binds("oversubscribed", 2, 2), "a PE per CPU, every CPU: pinned, as mpirun pins")
	assert.False(t, Binds("oversubscribed", 3, 4))
	assert.True(t, Binds("oversubscribed", 4, 2), "more PEs than CPUs: round-robin over all")
	assert.True(t, Binds("", 4, 2), "unset is oversubscribed")
	assert.False(t, Binds("none", 4, 2))
}

// TestShared: the ranks Pick puts on one CPU, for every CPU that gets
// more than one, and none where nothing is pinned.
func TestShared(t *testing.T) {
	two := []int{3, 7}
	assert.Equal(t, [][]int{{0, 2}, {1, 3}}, Shared("", two, 4))
	assert.Equal(t, [][]int{{0, 2, 4}, {1, 3}}, Shared("oversubscribed", two, 5))
	assert.Equal(t, [][]int{{0, 2}}, Shared("auto", two, 3), "a CPU of its own: no group")
	assert.Nil(t, Shared("auto", two, 2))
	assert.Nil(t, Shared("oversubscribed", two, 2), "pinned, a CPU each: no group")
	assert.Nil(t, Shared("none", two, 8))
	assert.Nil(t, Shared("auto", []int{5}, 4), "one CPU: the launcher pinned the process")
}

func TestAllowed(t *testing.T) {
	cpus, err := Allowed()
	require.NoError(t, err)
	require.NotEmpty(t, cpus)
	for i := 1; i < len(cpus); i++ {
		assert.Less(t, cpus[i-1], cpus[i])
	}
}
