//go:build cgo

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDynamicProcesses runs testdata/dynproc.c: MPI_Comm_get_parent of a
// job without parent, MPI_Comm_disconnect of inter- and
// intracommunicators and its refusals, and the name service of
// MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name.
func TestDynamicProcesses(t *testing.T) {
	exe := compile(t, "dynproc.c")
	runOK(t, 2, exe, "dynproc ok")
	runOK(t, 3, exe, "dynproc ok")
}

// TestSpawn runs testdata/spawn.c: parents spawn 3 children and then 1+2
// of two commands, and the error paths.
func TestSpawn(t *testing.T) {
	exe := compile(t, "spawn.c")
	for _, n := range []int{1, 2} {
		r := run(t, n, exe)
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "spawn ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, 3, strings.Count(r.stdout, "spawn child ok child"), r.stdout)
		require.Equal(t, 1, strings.Count(r.stdout, "spawn child ok first"), r.stdout)
		require.Equal(t, 2, strings.Count(r.stdout, "spawn child ok second"), r.stdout)
	}
}

// TestSpawnOutsideLauncher: a singleton (no gshmem run) cannot spawn, and
// says so with MPI_ERR_SPAWN.
func TestSpawnOutsideLauncher(t *testing.T) {
	exe := compile(t, "spawnfail.c")
	runOK(t, 0, exe, "spawnfail ok")
}

// TestPorts runs testdata/port.c as two jobs launched separately: a
// server of 2 and a client of 3 meet through a port whose name goes
// through a file, then through the name service.
func TestPorts(t *testing.T) {
	exe := compile(t, "port.c")
	dir := t.TempDir()
	file := filepath.Join(dir, "port")
	service := fmt.Sprintf("gshmem-test-port-%d", os.Getpid())
	type job struct {
		r   result
		err error
	}
	start := func(n int, mode string) chan job {
		ch := make(chan job, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(tool.prefix, "bin", "mpiexec"), "-np", fmt.Sprint(n), exe, mode, file, service)
			cmd.Env = append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
			cmd.WaitDelay = 10 * time.Second
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			err := cmd.Run()
			j := job{r: result{stdout: so.String(), stderr: se.String()}, err: err}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				j.r.code, j.err = ee.ExitCode(), nil
			}
			if ctx.Err() != nil {
				j.err = ctx.Err()
			}
			ch <- j
		}()
		return ch
	}
	server := start(2, "server")
	client := start(3, "client")
	for _, c := range []struct {
		ch   chan job
		n    int
		mode string
	}{{server, 2, "server"}, {client, 3, "client"}} {
		j := <-c.ch
		require.NoError(t, j.err, "%s\nstdout:\n%s\nstderr:\n%s", c.mode, j.r.stdout, j.r.stderr)
		require.Equal(t, 0, j.r.code, "%s\nstdout:\n%s\nstderr:\n%s", c.mode, j.r.stdout, j.r.stderr)
		require.Equal(t, c.n, strings.Count(j.r.stdout, "port ok "+c.mode), j.r.stdout)
	}
}

// TestJoin runs testdata/join.c: two processes started alone join over a
// socketpair.
func TestJoin(t *testing.T) {
	exe := compile(t, "join.c")
	r := run(t, 0, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Equal(t, 1, strings.Count(r.stdout, "join ok 0"), r.stdout)
	require.Equal(t, 1, strings.Count(r.stdout, "join ok 1"), r.stdout)
}

// TestReleasingConnections runs testdata/dynfin.c (MPI-4.1 11.10.4):
// MPI_Comm_disconnect closes the links it no longer needs, a lost job
// ends wildcard receives and probes, and MPI_Finalize waits for the
// connected children's.
func TestReleasingConnections(t *testing.T) {
	exe := compile(t, "dynfin.c")
	for _, n := range []int{1, 2} {
		r := runArgs(t, n, exe, t.TempDir())
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "dynfin ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// TestHwResourceInfo runs testdata/hwinfo.c: MPI_Get_hw_resource_info's
// types and their restriction under a CPU affinity of one CPU and of all.
func TestHwResourceInfo(t *testing.T) {
	exe := compile(t, "hwinfo.c")
	runOK(t, 2, exe, "hwinfo ok")
}
