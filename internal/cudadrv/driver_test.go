//go:build cuda

package cudadrv

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Without a GPU, Load says so (and says why) instead of failing to start.
func TestLoadReportsWhy(t *testing.T) {
	err := Load()
	if err == nil {
		n, err := DeviceCount()
		require.NoError(t, err)
		assert.Positive(t, n)
		t.Logf("GPU present: %d device(s), driver CUDA %d, stream memory operations %v", n, DriverVersion(), HasStreamMemOps())
		return
	}
	assert.True(t, errors.Is(err, ErrNoDriver) || errors.Is(err, ErrNoDevice), "%v", err)
	assert.Equal(t, err, Load(), "Load is done once")
	ok, why := Available()
	assert.False(t, ok)
	assert.Equal(t, err, why)
	_, err = RetainPrimary(0)
	assert.Error(t, err)
	t.Logf("as expected without a GPU: %v", err)
}

// Kernel parameters are packed at their natural alignment.
func TestArgsLayout(t *testing.T) {
	var a Args
	a.U32(1).U64(2).I32(-3).F32(1.5).Ptr(0x1000).Bytes(make([]byte, 12), 4).F64(2.5)
	offs := make([]int, a.Len())
	for i, o := range a.offs {
		offs[i] = int(o)
	}
	assert.Equal(t, []int{0, 8, 16, 20, 24, 32, 48}, offs)
	assert.Len(t, a.buf, 56)
	assert.Equal(t, byte(1), a.buf[0])
	assert.Equal(t, byte(2), a.buf[8])
	assert.Equal(t, byte(0xfd), a.buf[16])
}

func TestResultError(t *testing.T) {
	if Load() != nil {
		t.Skip("error names come from the driver")
	}
	assert.Contains(t, ErrorNotReady.Error(), "CUDA_ERROR_NOT_READY")
}
