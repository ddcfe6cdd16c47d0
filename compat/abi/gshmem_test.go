//go:build cgo

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The symmetric heap's C host API (gshmem.h): the test programs of
// testdata built with the installed mpicc and run under gshmem run.

// TestGshmemAlone runs every family without MPI, with every PE mapped
// (the C paths) and with each PE on its own node (every call through Go).
func TestGshmemAlone(t *testing.T) {
	exe := compile(t, "gshmem.c")
	runOK(t, 0, exe, "gshmem ok 0/1") // alone: a job of one PE
	runOK(t, 2, exe, "gshmem ok")
	runOK(t, 3, exe, "gshmem ok")
	runOK(t, 4, exe, "gshmem ok")
	t.Run("node per PE", func(t *testing.T) {
		t.Setenv("GSHMEM_NODE_ID", "%r")
		runOK(t, 2, exe, "gshmem ok")
		runOK(t, 3, exe, "gshmem ok")
	})
}

func TestGshmemCxx(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no c++ on PATH: the C++ test needs a C++ compiler")
	}
	exe := compile(t, "gshmem_cxx.cpp")
	runOK(t, 3, exe, "gshmem cxx ok")
}

// TestGshmemWithMPI mixes MPI and gshmem calls on one job, initialized
// from MPI_COMM_WORLD (a sub-communicator refused) or gshmem first.
func TestGshmemWithMPI(t *testing.T) {
	exe := compile(t, "gshmem_mpi.c")
	runOK(t, 1, exe, "gshmem_mpi ok")
	runOK(t, 3, exe, "gshmem_mpi ok")
	r := run(t, 2, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "gshmemx_init_attr: the communicator has 1 of the job's 2 processes")
	require.Contains(t, r.stderr, "gshmemx_init_attr: GSHMEM_SYMMETRIC_SIZE=1099511627776000 asks for 1099511627776000 bytes of heap, but MPI_Init made it with")
	for _, n := range []int{2, 3} {
		r := runArgs(t, n, exe, "shmem-first")
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "gshmem_mpi ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	r = runArgs(t, 2, exe, "mpi-finalize-only")
	require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "gshmem: gshmem_int_p: PE 0: gshmem is not initialized")
	require.NotContains(t, r.stdout, "not fatal")
}

// TestGshmemFatal checks that a bad PE, address, range, alignment, free
// or team ends the job with a message naming the call, never a crash or
// a write.
func TestGshmemFatal(t *testing.T) {
	exe := compile(t, "gshmem_fatal.c")
	for what, msg := range map[string]string{
		"pe":    "gshmem_long_put: PE 1: PE 2 is not a PE of this job (0..1)",
		"addr":  "gshmem_long_put: PE 1: dest 0x",
		"range": "gshmem_long_get: PE 1: source 0x",
		"align": "gshmem_int_atomic_add: PE 1: dest 0x",
		"free":  "gshmem_free: PE 1: 0x",
		"team":  "gshmem_team_n_pes: PE 1: team 77 is not a live team",
		// The host build has no device heap: the on-stream calls say so.
		"stream":      "gshmemx_putmem_on_stream: PE 1: the *_on_stream calls need libmpi_abi built with -tags cuda",
		"stream-pe":   "gshmemx_long_put_on_stream: PE 1: PE -1 is not a PE of this job (0..1)",
		"stream-coll": "gshmemx_float_sum_reduce_on_stream: PE 1: the *_on_stream calls need libmpi_abi built with -tags cuda",
	} {
		t.Run(what, func(t *testing.T) {
			r := runArgs(t, 2, exe, what)
			require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stderr, "gshmem: "+msg)
			require.NotContains(t, r.stdout, "not fatal")
		})
	}
}

// TestGshmemSymbols checks with nm -D that the library defines every
// function gshmem.h declares.
func TestGshmemSymbols(t *testing.T) {
	setup(t)
	if _, err := exec.LookPath("nm"); err != nil {
		t.Skip("no nm on PATH")
	}
	h, err := os.ReadFile(filepath.Join(tool.prefix, "include", "gshmem.h"))
	require.NoError(t, err)
	names := regexp.MustCompile(`(?m)^[a-z][\w ]*?\*?(gshmemx?_\w+)\(`).FindAllSubmatch(h, -1)
	require.Greater(t, len(names), 1000, "the typed families")
	out, err := exec.Command("nm", "-D", "--defined-only", filepath.Join(tool.prefix, "lib", "libmpi_abi.so.1")).Output()
	require.NoError(t, err)
	defined := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "T" {
			defined[f[2]] = true
		}
	}
	for _, m := range names {
		require.True(t, defined[string(m[1])], "%s is declared in gshmem.h but not defined by the library", m[1])
	}
}

// TestExampleShmemRing builds and runs examples/c/shmem_ring.c as its
// comment says.
func TestExampleShmemRing(t *testing.T) {
	setup(t)
	exe := filepath.Join(tool.bin, "shmem_ring")
	out, err := exec.Command(filepath.Join(tool.prefix, "bin", "mpicc"), "-Wall", "-Werror", "-o", exe, "../../examples/c/shmem_ring.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	r := run(t, 4, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "4 PEs, 10 rounds: sum of the last blocks' first elements 60 (expected 60)")
}
