package shmem

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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

// TestNodeCPUs: every PE of this PE's node gets the CPU its own placement.Pick
// takes (local ranks count the node's PEs in PE order); other nodes' PEs
// get -1.
func TestNodeCPUs(t *testing.T) {
	two := []int{3, 7}
	assert.Equal(t, []int{3, 7, 3, 7}, nodeCPUs(two, []int{0, 0, 0, 0}, 1, 4))
	assert.Equal(t, []int{3, -1, 7, -1, 3}, nodeCPUs(two, []int{0, 1, 0, 1, 0}, 4, 3))
	assert.Equal(t, []int{-1, 3, -1, 7}, nodeCPUs(two, []int{0, 1, 0, 1}, 3, 2))
	assert.Equal(t, []int{-1, -1}, nodeCPUs([]int{5}, []int{0, 0}, 0, 2), "one CPU: the launcher pinned it")
}
