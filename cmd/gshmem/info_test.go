package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInfoListsUnknownVariables(t *testing.T) {
	t.Setenv("GSHMEM_SYMETRIC_SIZE", "2g")
	t.Setenv("GSHMEM_NOT_A_THING", "1")
	t.Setenv("GSHMEM_MPI_RING_SIZE", "64k") // compat's: known
	stdout, stderr, err := gshmem(t, "info")
	require.NoError(t, err, stderr)
	assert.Contains(t, stdout, "unknown GSHMEM_* variables")
	assert.Contains(t, stdout, "  GSHMEM_SYMETRIC_SIZE (did you mean GSHMEM_SYMMETRIC_SIZE?)\n")
	assert.Contains(t, stdout, "  GSHMEM_NOT_A_THING\n")
	assert.NotContains(t, stdout, "  GSHMEM_MPI_RING_SIZE")
	assert.Contains(t, stdout, "bootstrap: singleton (")
	assert.NotContains(t, stdout, "via nothing")
}

// TestMisspelledWarnedOncePerJob: every PE sees the variable, gshmem run
// alone says so, before the job.
func TestMisspelledWarnedOncePerJob(t *testing.T) {
	t.Setenv("GSHMEM_DEBGU", "info")
	stdout, stderr, err := gshmem(t, "run", "-n", "3", os.Args[0], "info")
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "GSHMEM_DEBGU is not a gshmem variable and is ignored; did you mean GSHMEM_DEBUG?"), stderr)
	assert.Contains(t, stdout, "PEs: 3 on 1 node(s)")
}

// TestLaneGroups: gshmem info names the lanes to every remote peer, the
// peers grouped by the lanes UCP chose.
func TestLaneGroups(t *testing.T) {
	rc, tcp := "rc_mlx5/mlx5_0:1 (rma_bw am)", "tcp/eth0.0 (am am_bw); rma emulated over am"
	assert.Equal(t, "PEs 2-4,7: "+rc+"\nPE 5: "+tcp, laneGroups([]string{"", "", rc, rc, rc, tcp, "", rc}, 512))
	assert.Equal(t, "", laneGroups([]string{"", ""}, 512))
	assert.Equal(t, "PE 1: tcp...", laneGroups([]string{"", "tcp/eth0.0 (am)"}, 12))
	assert.Equal(t, "0-1,3,5-6", peRanges([]int{0, 1, 3, 5, 6}))
}

// TestBadSettingRefusedOncePerJob: a value the settings table refuses is
// one line from gshmem run, naming the variable, and no PE starts.
func TestBadSettingRefusedOncePerJob(t *testing.T) {
	for _, kv := range [][2]string{{"GSHMEM_MPI_RING_SIZE", "1k"}, {"GSHMEM_HOST_AREA", "lots"},
		{"GSHMEM_BOOTSTRAP_TIMEOUT", "0"}, {"GSHMEM_BOOTSTRAP_TIMEOUT", "-5s"}, {"GSHMEM_MPI_WTIME", "rdtsc"}} {
		t.Setenv(kv[0], kv[1])
		stdout, stderr, err := gshmem(t, "run", "-n", "3", "echo", "started")
		require.Error(t, err, kv[0]+"="+kv[1])
		assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
		assert.Contains(t, stderr, "gshmem run: job refused: "+kv[0]+"=\""+kv[1]+"\": want ")
		assert.Empty(t, stdout)
		os.Unsetenv(kv[0])
	}
}
