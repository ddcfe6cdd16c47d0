package devstate

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layout itself is held to kernels/cuda/gshmem.cuh by the test in
// kernels/cuda, which embeds the header.

func TestStateEncode(t *testing.T) {
	b := State{MyPE: 3, NPEs: 4, HeapBase: 0x7f0000000000, HeapSize: 1 << 30, PeerBase: 0x7f1000000000, CtrlSize: 4096}.Encode()
	require.Len(t, b, StateSize)
	le := binary.LittleEndian
	assert.Equal(t, uint64(StateMagic), le.Uint64(b[StateOffMagic:]))
	assert.Equal(t, "GSHMEM01", string(b[:8]))
	assert.Equal(t, uint32(3), le.Uint32(b[StateOffMyPE:]))
	assert.Equal(t, uint32(4), le.Uint32(b[StateOffNPEs:]))
	assert.Equal(t, uint64(0x7f0000000000), le.Uint64(b[StateOffHeapBase:]))
	assert.Equal(t, uint64(1<<30), le.Uint64(b[StateOffHeapSize:]))
	assert.Equal(t, uint64(0x7f1000000000), le.Uint64(b[StateOffPeerBase:]))
	assert.Equal(t, uint64(4096), le.Uint64(b[StateOffCtrlSize:]))
}
