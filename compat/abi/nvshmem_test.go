//go:build cgo

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNVSHMEMHost builds testdata/nvshmem_host.c as an NVSHMEM program is
// built (cc, -I the installation's include, -lnvshmem_host) and runs it on
// 1 and 3 PEs: nvshmem.h's names and the exported nvshmem_ symbols.
func TestNVSHMEMHost(t *testing.T) {
	setup(t)
	exe := filepath.Join(tool.bin, "nvshmem_host")
	args := []string{"-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join("testdata", "nvshmem_host.c"),
		"-I" + filepath.Join(tool.prefix, "include"), "-L" + filepath.Join(tool.prefix, "lib"),
		"-Wl,-rpath," + filepath.Join(tool.prefix, "lib"), "-lnvshmem_host"}
	out, err := exec.Command("cc", args...).CombinedOutput()
	require.NoError(t, err, "cc %s\n%s", strings.Join(args, " "), out)
	runOK(t, 1, exe, "nvshmem ok")
	runOK(t, 3, exe, "nvshmem ok")
	// NVSHMEM's launcher name.
	r := launcherRun(t, "nvshmrun", 2, nil, exe)
	require.Equal(t, 0, r.code, "nvshmrun -np 2:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 2, strings.Count(r.stdout, "nvshmem ok"), r.stdout)

	// NVSHMEM's variables: a twin's value is checked under its NVSHMEM
	// name, the unused ones are named once (by PE 0).
	t.Setenv("NVSHMEM_INFO", "1")
	t.Setenv("NVSHMEM_SYMMETRIC_SIZE", "64m")
	r = run(t, 2, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 1, strings.Count(r.stderr, "not used here: NVSHMEM_INFO"), r.stderr)
	t.Setenv("NVSHMEM_SYMMETRIC_SIZE", "lots")
	r = run(t, 1, exe)
	require.NotEqual(t, 0, r.code, "a bad NVSHMEM_SYMMETRIC_SIZE must fail nvshmem_init:\n%s", r.stdout)
	require.Contains(t, r.stderr, `NVSHMEM_SYMMETRIC_SIZE="lots"`)
}

// TestNVSHMEMHalf builds testdata/nvshmem_half.cpp with c++ as
// TestNVSHMEMHost builds its program (CUDA's cuda_fp16.h and cuda_bf16.h
// give nvshmem.h's half and bfloat16 prototypes) and runs it on 2 and 3
// PEs: C++ callers of the C library's 2-byte forms, every value checked.
func TestNVSHMEMHalf(t *testing.T) {
	setup(t)
	cxx, err := exec.LookPath("c++")
	if err != nil {
		t.Skip("no c++")
	}
	probe := exec.Command(cxx, "-x", "c++", "-fsyntax-only", "-")
	probe.Stdin = strings.NewReader("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("no cuda_fp16.h or cuda_bf16.h for c++: %s", out)
	}
	exe := filepath.Join(tool.bin, "nvshmem_half")
	args := []string{"-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join("testdata", "nvshmem_half.cpp"),
		"-I" + filepath.Join(tool.prefix, "include"), "-L" + filepath.Join(tool.prefix, "lib"),
		"-Wl,-rpath," + filepath.Join(tool.prefix, "lib"), "-lnvshmem_host"}
	out, err := exec.Command(cxx, args...).CombinedOutput()
	require.NoError(t, err, "c++ %s\n%s", strings.Join(args, " "), out)
	runOK(t, 2, exe, "half ok")
	runOK(t, 3, exe, "half ok")
}

// TestNVSHMEMUniqueID builds testdata/nvshmem_uid.c as TestNVSHMEMHost
// does and runs it both ways NVSHMEM's unique id is used: 3 processes no
// launcher started, meeting through the id rank 0 writes to a file, and 2
// under gshmem run that broadcast it with MPI_Bcast (NVIDIA's
// uid-based-init); each also registers a buffer and puts from it.
func TestNVSHMEMUniqueID(t *testing.T) {
	setup(t)
	exe := filepath.Join(tool.bin, "nvshmem_uid")
	args := []string{"-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join("testdata", "nvshmem_uid.c"),
		"-I" + filepath.Join(tool.prefix, "include"), "-L" + filepath.Join(tool.prefix, "lib"),
		"-Wl,-rpath," + filepath.Join(tool.prefix, "lib"), "-lnvshmem_host"}
	out, err := exec.Command("cc", args...).CombinedOutput()
	require.NoError(t, err, "cc %s\n%s", strings.Join(args, " "), out)

	const n = 3
	idFile := filepath.Join(t.TempDir(), "id")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	for r := range n {
		c := exec.CommandContext(ctx, exe, idFile, fmt.Sprint(r), fmt.Sprint(n))
		c.Env = append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1")
		c.Stdout, c.Stderr = &outs[r], &outs[r]
		require.NoError(t, c.Start())
		cmds[r] = c
	}
	for r, c := range cmds {
		require.NoError(t, c.Wait(), "rank %d:\n%s", r, outs[r].String())
		require.Contains(t, outs[r].String(), fmt.Sprintf("uid ok %d/%d", r, n))
	}
	runOK(t, 2, exe, "uid ok")
}
