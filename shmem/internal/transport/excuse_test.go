package transport

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExcuseLost: a loss ends every wait (err) until this PE excuses the
// lost PE; an operation aimed at it (check) still fails; a later loss of
// another PE ends the waits again, and a PE excused before its loss never
// does.
func TestExcuseLost(t *testing.T) {
	h := newHealth(0, 4, time.Minute)
	require.NoError(t, h.err())
	h.excuse([]int{3})
	h.peerLost(1, "was killed")
	h.visible.Store(true) // past lossGrace
	require.ErrorIs(t, h.err(), ErrPeerLost)
	assert.Equal(t, []int{1}, h.lostPEs())

	h.excuse([]int{1})
	assert.NoError(t, h.err())
	assert.ErrorIs(t, h.check(1), ErrPeerLost)
	assert.NoError(t, h.check(2))

	h.peerLost(3, "was killed")
	assert.NoError(t, h.err(), "PE 3 was excused before its loss")
	h.peerLost(2, "stopped")
	assert.ErrorIs(t, h.err(), ErrPeerLost)
	assert.Equal(t, []int{1, 2, 3}, h.lostPEs())
	h.excuse([]int{2, 2})
	assert.NoError(t, h.err())
}
