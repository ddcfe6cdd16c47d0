package gpuinfo

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Probe answers on every machine: ErrAbsent without NVML in the build,
// the driver's error without a GPU, or a consistent description.
func TestProbe(t *testing.T) {
	n, err := Probe()
	if !Built {
		require.ErrorIs(t, err, ErrAbsent)
		return
	}
	if err != nil {
		t.Logf("no GPU here: %v", err)
		require.Nil(t, n)
		return
	}
	require.Len(t, n.Paths, len(n.GPUs))
	for i, row := range n.Paths {
		require.Len(t, row, len(n.GPUs))
		require.Equal(t, PathSame, row[i], "a GPU reaches itself directly")
		require.Equal(t, i, n.GPUs[i].Index)
		require.NotEmpty(t, n.GPUs[i].BusID)
	}
	for ord := range n.CUDACount() {
		idx, err := n.Ordinal(ord)
		require.NoError(t, err, "CUDA device %d has a PCI address NVML knows", ord)
		require.Less(t, idx, len(n.GPUs))
	}
	_, err = n.Ordinal(n.CUDACount())
	require.Error(t, err)
}

func TestPathLetters(t *testing.T) {
	require.Equal(t, "=NPh", string([]byte{PathSame.Letter(), PathNVLink.Letter(), PathPCIe.Letter(), PathHost.Letter()}))
	require.Equal(t, "NVLink", PathNVLink.String())
}
