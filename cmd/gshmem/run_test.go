package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptReportedAsJob: Ctrl-C (or SIGTERM) to gshmem run is the
// job interrupted, not a PE that failed.
func TestInterruptReportedAsJob(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "run", "-n", "2", "sh", "-c", "echo ready; exec sleep 30")
		cmd.Env = append(os.Environ(), asGshmemEnv+"=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		sc := bufio.NewScanner(out)
		for range 2 {
			require.True(t, sc.Scan(), "both PEs started")
		}
		require.NoError(t, cmd.Process.Signal(sig))
		err = cmd.Wait()
		cancel()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.Equal(t, 128+int(sig), ee.ExitCode())
		assert.Contains(t, stderr.String(), "gshmem run: job interrupted by SIG")
		assert.NotContains(t, stderr.String(), "was killed by signal", "no PE is blamed")
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%s", stderr.String())
	}
}

func TestRunRefusesWhatCannotFit(t *testing.T) {
	_, stderr, err := gshmem(t, "run", "-n", "100000", "true")
	require.Error(t, err)
	assert.Contains(t, stderr, "gshmem run: job refused: 100000 PEs on")
	assert.Contains(t, stderr, "pass --oversubscribe")
	assert.Equal(t, 1, strings.Count(stderr, "\n"))

	stdout, stderr, err := gshmem(t, "run", "-n", "9", "--oversubscribe", "echo", "hi")
	require.NoError(t, err, stderr)
	assert.Equal(t, 9, strings.Count(stdout, "hi\n"))
}

// TestRunRefusesNoPEsOrNoProgram: a PE count below 1 and a missing
// program are each one line that says so.
func TestRunRefusesNoPEsOrNoProgram(t *testing.T) {
	for _, n := range []string{"-1", "0"} {
		_, stderr, err := gshmem(t, "run", "-n", n, "true")
		require.Error(t, err)
		assert.Equal(t, "gshmem run: job refused: -n "+n+": a job needs at least 1 PE\n", stderr)
		_, stderr, err = gshmem(t, "run", "-n", n, "--oversubscribe", "true")
		require.Error(t, err)
		assert.Contains(t, stderr, "a job needs at least 1 PE")
	}
	_, stderr, err := gshmem(t, "run", "-n", "2")
	require.Error(t, err)
	assert.Equal(t, "gshmem run: no program to run: gshmem run -n N PROGRAM [ARGS...] (gshmem run --help)\n", stderr)
}
