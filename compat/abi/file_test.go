//go:build cgo

package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMPIIO runs testdata/file.c (every MPI_File_* call) on 1 to 4 ranks.
func TestMPIIO(t *testing.T) {
	exe := compile(t, "file.c")
	for _, n := range []int{1, 2, 4} {
		r := runArgs(t, n, exe, t.TempDir())
		require.Equal(t, 0, r.code, "%d ranks\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "file ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
