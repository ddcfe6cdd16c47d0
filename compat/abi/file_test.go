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

// TestMPIIONonblockingCollective runs testdata/filenbc.c: nonblocking
// collective accesses that a rank starts before a synchronous send to a
// rank that starts its own only after receiving it.
func TestMPIIONonblockingCollective(t *testing.T) {
	exe := compile(t, "filenbc.c")
	for _, n := range []int{2, 3, 4} {
		r := runArgs(t, n, exe, t.TempDir())
		require.Equal(t, 0, r.code, "%d ranks\nstdout:\n%s\nstderr:\n%s", n, r.stdout, r.stderr)
		require.Equal(t, n, strings.Count(r.stdout, "filenbc ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
