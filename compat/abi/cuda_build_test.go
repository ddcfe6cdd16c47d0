//go:build cgo

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/shmem"
)

// The CUDA-aware build (issue 22): `gshmem abi install` with the cuda tag
// installs mpi-ext.h with MPIX_CUDA_AWARE_SUPPORT 1 and a library whose
// MPIX_Query_cuda_support says 1 (0 once MPI runs on a host heap, where
// device buffers cannot be told apart); the host build says 0 throughout.
// The device programs (testdata/cudacoll.c, cudanbc.c, cudap2p.c and
// test/gpu/testdata/cudap2p_bench.c) are compiled and linked here; they
// run only where a GPU is (test/gpu/run.sh abi on the GPU machine).

func TestCUDAQueryHostBuild(t *testing.T) {
	exe := compile(t, "cudaquery.c")
	ext, err := os.ReadFile(filepath.Join(tool.prefix, "include", "mpi-ext.h"))
	require.NoError(t, err)
	require.Contains(t, string(ext), "#define MPIX_CUDA_AWARE_SUPPORT 0\n")
	runOK(t, 0, exe, "cudaquery: macro=0 before=0 after=0")
}

// TestCUDANBCOnHost runs cudanbc.c with testdata/cudashim/cuda.h, whose
// "device" buffers are host memory, on the host build: the program's
// expected values and its host-against-"device" comparisons hold on every
// CI machine, so that on the GPU a failure is the device path's.
func TestCUDANBCOnHost(t *testing.T) {
	exe := compile(t, "cudanbc.c", "-I", filepath.Join("testdata", "cudashim"))
	for _, n := range []int{2, 3} {
		r := run(t, n, exe)
		require.Equal(t, 0, r.code, "cudanbc on %d\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		require.Contains(t, r.stdout, fmt.Sprintf("cudanbc: %d ranks,", n))
		require.Contains(t, r.stdout, "Reduce_local: ok")
	}
}

func TestCUDAAwareBuild(t *testing.T) {
	setup(t)
	probe := exec.Command("cc", "-x", "c", "-o", filepath.Join(t.TempDir(), "probe"), "-", "-lcuda")
	probe.Stdin = strings.NewReader("#include <cuda.h>\nint main(void) { return cuInit(0) == 12345; }\n")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("no CUDA headers or libcuda here (scripts/install-cuda-deps.sh installs them): the cuda-tagged library and its programs cannot be built\n%s", out)
	}
	prefix := filepath.Join(filepath.Dir(tool.prefix), "prefix-cuda")
	gshmem := filepath.Join(filepath.Dir(tool.prefix), "gshmem")
	install := exec.Command(gshmem, "abi", "install", "--prefix", prefix, "--src", "../..")
	install.Env = append(os.Environ(), "GOFLAGS=-tags=cuda")
	out, err := install.CombinedOutput()
	require.NoError(t, err, "GOFLAGS=-tags=cuda gshmem abi install\n%s", out)
	ext, err := os.ReadFile(filepath.Join(prefix, "include", "mpi-ext.h"))
	require.NoError(t, err)
	require.Contains(t, string(ext), "#define MPIX_CUDA_AWARE_SUPPORT 1\n")

	bin := t.TempDir()
	build := func(src string, extra ...string) string {
		exe := filepath.Join(bin, strings.TrimSuffix(filepath.Base(src), ".c"))
		args := append([]string{"-Wall", "-Wextra", "-Werror", "-I", "testdata", "-o", exe, src}, extra...)
		out, err := exec.Command(filepath.Join(prefix, "bin", "mpicc"), args...).CombinedOutput()
		require.NoError(t, err, "mpicc %s\n%s", strings.Join(args, " "), out)
		return exe
	}
	query := build("testdata/cudaquery.c")
	progs := []string{build("testdata/cudacoll.c", "-lcuda"), build("testdata/cudanbc.c", "-lcuda"),
		build("testdata/cudap2p.c", "-lcuda"), build("../../test/gpu/testdata/cudap2p_bench.c", "-lcuda")}

	// On a host heap (no GSHMEM_HEAP=device), as every CI machine runs it.
	q := exec.Command(filepath.Join(prefix, "bin", "mpiexec"), "-n", "1", query)
	q.Env = append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1", "GSHMEM_HEAP=host")
	out, err = q.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "cudaquery: macro=1 before=1 after=0")

	if err := shmem.DeviceSupport(); err != nil {
		t.Skipf("no usable GPU here (%v): %d device programs built, not run (test/gpu/run.sh abi runs them)", err, len(progs))
	}
	for _, exe := range progs[:3] {
		r := exec.Command(filepath.Join(prefix, "bin", "mpiexec"), "-n", "2", exe)
		r.Env = append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1", "GSHMEM_HEAP=device", "GSHMEM_SYMMETRIC_SIZE=256m")
		out, err := r.CombinedOutput()
		require.NoError(t, err, "%s\n%s", exe, out)
		require.Contains(t, string(out), ": ok")
	}
}
