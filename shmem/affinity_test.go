package shmem

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPickCPU(t *testing.T) {
	four := []int{0, 1, 4, 5}
	assert.Equal(t, 0, pickCPU(four, 0, 2))
	assert.Equal(t, 4, pickCPU(four, 2, 4), "the r-th allowed CPU, not CPU r")
	assert.Equal(t, 0, pickCPU(four, 4, 5), "oversubscribed: round-robin")
	assert.Equal(t, -1, pickCPU([]int{3}, 0, 1), "a launcher pinned the process already")
	assert.Equal(t, -1, pickCPU(four, 2, 2), "a rank outside its node's count")
	assert.Equal(t, -1, pickCPU(nil, 0, 1))
}

func TestBindOption(t *testing.T) {
	o, err := buildOptions(nil)
	assert.NoError(t, err)
	assert.Equal(t, "oversubscribed", o.Bind)
	_, err = buildOptions([]Option{WithBind("sockets")})
	assert.ErrorIs(t, err, ErrInvalid)
	cpu, allowed, err := bindCPU("none", 0, 1)
	assert.NoError(t, err)
	assert.Equal(t, -1, cpu)
	assert.Nil(t, allowed)
}

// TestNodeCPUs: every PE of this PE's node gets the CPU its own pickCPU
// takes (local ranks count the node's PEs in PE order); other nodes' PEs
// get -1.
func TestNodeCPUs(t *testing.T) {
	two := []int{3, 7}
	assert.Equal(t, []int{3, 7, 3, 7}, nodeCPUs(two, []int{0, 0, 0, 0}, 1, 4))
	assert.Equal(t, []int{3, -1, 7, -1, 3}, nodeCPUs(two, []int{0, 1, 0, 1, 0}, 4, 3))
	assert.Equal(t, []int{-1, 3, -1, 7}, nodeCPUs(two, []int{0, 1, 0, 1}, 3, 2))
	assert.Equal(t, []int{-1, -1}, nodeCPUs([]int{5}, []int{0, 0}, 0, 2), "one CPU: the launcher pinned it")
}

func TestBinds(t *testing.T) {
	assert.True(t, binds("auto", 2, 16))
	assert.False(t, binds("oversubscribed", 2, 16), "a CPU per PE: left to the scheduler")
	assert.False(t, binds("oversubscribed", 2, 2))
	assert.True(t, binds("oversubscribed", 4, 2), "more PEs than CPUs: round-robin over all")
	assert.False(t, binds("none", 4, 2))
}
