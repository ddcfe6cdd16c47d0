package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestProblemCheckNamesTheFlag(t *testing.T) {
	assert.EqualError(t, Problem{N: 256, Iters: -1}.check(), "-iters -1: want 0 or more sweeps")
	assert.ErrorContains(t, Problem{N: 2, Iters: 10}.check(), "-n 2: the grid needs at least 3 x 3 points")
	assert.NoError(t, Problem{N: 3, Iters: 0}.check())
}
