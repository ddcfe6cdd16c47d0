//go:build invariants

package heap

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInvariantsPanic: with the invariants tag, the call after which the
// allocator no longer holds its invariants panics (here a block whose
// size was corrupted behind the allocator's back).
func TestInvariantsPanic(t *testing.T) {
	a := New(testBase, testSize)
	off, err := a.Alloc(4096, 0)
	require.NoError(t, err)
	a.blocks[len(a.blocks)-1].size += MinAlign // the tiling now overruns the heap
	require.PanicsWithValue(t, "heap: after Free: heap: check: block 0 [0x100000,+16777280) exceeds heap end 0x1100000", func() { a.Free(off) })
}
