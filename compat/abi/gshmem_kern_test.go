//go:build cgo

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Stage 4 in C: the kernel programs of testdata (kern_*.cu, kern_drv.c)
// built as a user builds them, with the installation's gshmem nvcc (CI
// installs nvcc 11.8). Without a GPU they run on a host heap, where the
// calls that need the device state must refuse; test/gpu/run.sh ckern
// runs them on the device heap.

// nvccBuild runs the installed gshmem nvcc with args in testdata and
// returns its output.
func nvccBuild(t *testing.T, args ...string) (string, error) {
	t.Helper()
	setup(t)
	if _, err := exec.LookPath("nvcc"); err != nil {
		t.Skip("no nvcc on PATH: the stage-4 C programs need it (scripts/install-cuda-deps.sh)")
	}
	cmd := exec.Command(filepath.Join(tool.prefix, "bin", "gshmem"), append([]string{"nvcc", "-arch=sm_90"}, args...)...)
	cmd.Dir = "testdata"
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestKernPrograms(t *testing.T) {
	setup(t)
	rt := filepath.Join(tool.bin, "kern_rt")
	out, err := nvccBuild(t, "-Werror", "all-warnings", "-o", rt, "kern_rt.cu")
	require.NoError(t, err, out)
	rdc := filepath.Join(tool.bin, "kern_rdc")
	out, err = nvccBuild(t, "-Werror", "all-warnings", "-rdc=true", "-o", rdc, "kern_rdc_main.cu", "kern_rdc_dev.cu")
	require.NoError(t, err, out)
	for _, exe := range []string{rt, rdc} {
		r := runArgs(t, 2, exe, "nodevice")
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, 2, strings.Count(r.stdout, "kern nodevice ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Contains(t, r.stderr, "gshmemx_collective_launch: no device state")
		require.Contains(t, r.stderr, "gshmemx_cumodule_init: PE 1: the symmetric heap is host memory")
		require.Contains(t, r.stderr, "gshmemx_cumodule_init: PE 0: the module is NULL")
	}

	// Under -rdc=true one unit must define the state: without it the
	// device link fails rather than the kernels running unbound.
	out, err = nvccBuild(t, "-rdc=true", "-DKERN_NO_STATE_DEFINE", "-o", filepath.Join(tool.bin, "kern_nodef"),
		"kern_rdc_main.cu", "kern_rdc_dev.cu")
	require.Error(t, err, out)
	require.Contains(t, out, "gshmemi_state")

	// The driver-API module and its C host (no nvcc for the host).
	out, err = nvccBuild(t, "-cubin", "-o", filepath.Join(tool.bin, "kern_mod.cubin"), "kern_mod.cu")
	require.NoError(t, err, out)
	compile(t, "kern_drv.c", "-lcuda")
}

// TestKernNVStyle builds an NVSHMEM program's shape, renamed: one -rdc=true
// file that includes only gshmem.h and gshmemx.h (which bring the device
// calls under nvcc) and defines no state, linked as NVSHMEM's are with the
// installation's libgshmem_device.a; without that library the device link
// fails on the missing state. Here it runs on a host heap; test/gpu/run.sh
// ckern runs its kernels.
func TestKernNVStyle(t *testing.T) {
	setup(t)
	exe := filepath.Join(tool.bin, "kern_nvstyle")
	out, err := nvccBuild(t, "-Werror", "all-warnings", "-rdc=true", "-o", exe, "kern_nvstyle.cu",
		"-L"+filepath.Join(tool.prefix, "lib"), "-lgshmem_device")
	require.NoError(t, err, out)
	r := run(t, 2, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 2, strings.Count(r.stdout, "kern nvstyle host heap ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	out, err = nvccBuild(t, "-rdc=true", "-o", filepath.Join(tool.bin, "kern_nvstyle_nolib"), "kern_nvstyle.cu")
	require.Error(t, err, out)
	require.Contains(t, out, "gshmemi_state")
}
