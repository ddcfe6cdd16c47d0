package main

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The OpenSHMEM 1.5 API (shmem.h) as its users build and run it: the
// installed oshcc and oshrun.

// oshCompile builds testdata/src with the installed oshcc (oshc++ for
// .cpp).
func oshCompile(t *testing.T, src string) string {
	t.Helper()
	setup(t)
	wrapper := "oshcc"
	if strings.HasSuffix(src, ".cpp") {
		wrapper = "oshc++"
	}
	exe := filepath.Join(tool.bin, "osh-"+strings.TrimSuffix(src, filepath.Ext(src)))
	args := []string{"-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join("testdata", src)}
	out, err := exec.Command(filepath.Join(tool.prefix, "bin", wrapper), args...).CombinedOutput()
	require.NoError(t, err, "%s %s\n%s", wrapper, strings.Join(args, " "), out)
	return exe
}

// TestOpenSHMEM runs testdata/oshmem.c under oshrun at 1-4 PEs over shared
// memory, and with every PE a node of its own (tcp), with the globals and
// statics symmetric.
func TestOpenSHMEM(t *testing.T) {
	exe := oshCompile(t, "oshmem.c")
	for _, n := range []int{1, 2, 3, 4} {
		r := oshRun(t, n, nil, exe, "shm")
		require.Equal(t, 0, r.code, "%d PEs\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "oshmem ok"), r.stdout)
	}
	for _, n := range []int{2, 3} {
		r := oshRun(t, n, []string{"GSHMEM_NODE_ID=%r"}, exe, "any")
		require.Equal(t, 0, r.code, "tcp, %d PEs\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "oshmem ok"), r.stdout)
	}
	// OpenSHMEM's variables: the heap's size (too small for the program's
	// megabyte of globals: shmem_init says so), and SHMEM_INFO.
	r := oshRun(t, 2, []string{"SHMEM_SYMMETRIC_SIZE=256k"}, exe, "shm")
	require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "raise SHMEM_SYMMETRIC_SIZE")
	r = oshRun(t, 1, []string{"SHMEM_INFO=1"}, exe, "shm")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stderr, "SHMEM_SYMMETRIC_SIZE")
	r = oshRun(t, 2, nil, exe, "shm", "start_pes")
	require.Equal(t, 0, r.code, "start_pes\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	r = oshRun(t, 3, nil, exe, "shm", "exit")
	require.Equal(t, 7, r.code, "shmem_global_exit(7) is the job's status\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.NotContains(t, r.stdout, "oshmem ok")
}

// TestOpenSHMEMSharedLibData: the static and global data of a shared
// library the program is linked with are symmetric as the program's own
// are (RMA, atomics, wait_until, a reduction, shmem_ptr), over shared
// memory and over tcp.
func TestOpenSHMEMSharedLibData(t *testing.T) {
	setup(t)
	oshcc := filepath.Join(tool.prefix, "bin", "oshcc")
	dir := filepath.Join(tool.bin, "oshlib")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	lib := filepath.Join(dir, "liboshlib.so")
	out, err := exec.Command(oshcc, "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-o", lib, filepath.Join("testdata", "oshlib.c")).CombinedOutput()
	require.NoError(t, err, "oshcc -shared\n%s", out)
	exe := filepath.Join(tool.bin, "osh-oshlibmain")
	out, err = exec.Command(oshcc, "-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join("testdata", "oshlibmain.c"),
		"-L"+dir, "-Wl,-rpath,"+dir, "-loshlib").CombinedOutput()
	require.NoError(t, err, "oshcc\n%s", out)
	for _, n := range []int{1, 2, 3} {
		r := oshRun(t, n, nil, exe, "shm")
		require.Equal(t, 0, r.code, "%d PEs\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "oshlib ok"), r.stdout)
	}
	r := oshRun(t, 2, []string{"GSHMEM_NODE_ID=%r"}, exe, "tcp")
	require.Equal(t, 0, r.code, "tcp\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 2, strings.Count(r.stdout, "oshlib ok"), r.stdout)
}

// TestOpenSHMEMFatal checks that bad arguments end the job with a message
// naming the routine, never a write outside an object.
func TestOpenSHMEMFatal(t *testing.T) {
	exe := oshCompile(t, "oshmem.c")
	for what, msg := range map[string]string{
		"bad-pe":    "shmem_long_put: PE 1: PE 2 is not a PE of this job (0..1)",
		"bad-addr":  "shmem_long_put: PE 1: dest 0x",
		"bad-set":   "shmem_barrier: PE 1: the active set (PE_start 0, logPE_stride 0, PE_size 3) ends at PE 2 of a job of 2",
		"bad-psync": "shmem_barrier: PE 1: pSync 0x",
		"bad-ctx":   "shmem_ctx_long_put: PE 1: ctx is SHMEM_CTX_INVALID",
	} {
		t.Run(what, func(t *testing.T) {
			r := oshRun(t, 2, nil, exe, "shm", what)
			require.Equal(t, 1, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			require.Contains(t, r.stderr, "gshmem: "+msg)
			require.NotContains(t, r.stdout, "not fatal")
		})
	}
}

// TestOpenSHMEMCxx builds shmem.h with oshc++ and runs it.
func TestOpenSHMEMCxx(t *testing.T) {
	exe := oshCompile(t, "oshmem.cpp")
	r := oshRun(t, 2, nil, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 2, strings.Count(r.stdout, "oshmem c++ ok"), r.stdout)
}

// TestOpenSHMEMSymbols checks that the installed library defines every
// routine the installed shmem.h declares, as pshmem_X with shmem_X its
// weak alias (the profiling interface).
func TestOpenSHMEMSymbols(t *testing.T) {
	setup(t)
	h, err := os.ReadFile(filepath.Join(tool.prefix, "include", "shmem.h"))
	require.NoError(t, err)
	f, err := elf.Open(filepath.Join(tool.prefix, "lib", "libmpi_abi.so.1"))
	require.NoError(t, err)
	defer f.Close()
	syms, err := f.DynamicSymbols()
	require.NoError(t, err)
	bind := map[string]elf.SymBind{}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			bind[s.Name] = elf.ST_BIND(s.Info)
		}
	}
	decl := regexp.MustCompile(`(?m)^[^#/ *][^(\n]*?\b(\w+)\([^)]*\);$`).FindAllStringSubmatch(string(h), -1)
	require.Greater(t, len(decl), 1500)
	var missing []string
	for _, m := range decl {
		n := m[1]
		if strings.HasPrefix(n, "shmemi_") {
			continue // the generics' compile-time error, never defined
		}
		if b, ok := bind[n]; !ok || b != elf.STB_WEAK {
			missing = append(missing, n+" (weak)")
		}
		if b, ok := bind["p"+n]; !ok || b != elf.STB_GLOBAL {
			missing = append(missing, "p"+n)
		}
	}
	require.Empty(t, missing, "routines of shmem.h the library does not define")
}

// oshRun runs exe under the installed oshrun -np n with env added, as
// runArgs runs mpiexec.
func oshRun(t *testing.T, n int, env []string, exe string, args ...string) result {
	t.Helper()
	return launcherRun(t, "oshrun", n, env, exe, args...)
}

// launcherRun runs exe under the installed launcher script (oshrun,
// nvshmrun) -np n with env added.
func launcherRun(t *testing.T, launcher string, n int, env []string, exe string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(tool.prefix, "bin", launcher), append([]string{"-np", fmt.Sprint(n), exe}, args...)...)
	cmd.Env = append(append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s timed out\nstdout:\n%s\nstderr:\n%s", exe, so.String(), se.String())
	r := result{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}
