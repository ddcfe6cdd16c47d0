package cuda

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNVSHMEMDeviceCompiles compiles testdata/nvshmem_device.cu, a kernel
// calling every device family gshmem provides under NVSHMEM's names
// through nvshmem.h, with this machine's nvcc for sm_90 (skipped without
// nvcc). Warnings are errors: a redefinition or a mismatch between
// gshmem.h's host prototype and a device body fails it.
func TestNVSHMEMDeviceCompiles(t *testing.T) {
	nvcc, err := exec.LookPath("nvcc")
	if err != nil {
		t.Skip("no nvcc")
	}
	out, err := exec.Command(nvcc, "-arch=sm_90", "-Werror", "all-warnings", "-c",
		"-I"+filepath.Join("..", "..", "compat", "abi", "include"), "-I.",
		filepath.Join("testdata", "nvshmem_device.cu"), "-o", filepath.Join(t.TempDir(), "nvshmem_device.o")).CombinedOutput()
	require.NoError(t, err, string(out))
}
