//go:build cgo

package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWinCreateUnified runs wincreate.c: MPI_Win_create in the unified
// model (the regressions of the separate model's shadow copy: stale data
// after a barrier, every second round lost after a memset, a buffer freed
// before MPI_Win_free), passive-target atomics while the target computes,
// 1000 attached regions, and (not in -short) a 2 GiB MPI_Win_create and a
// 4 GiB MPI_Win_allocate per rank with no GSHMEM_SYMMETRIC_SIZE.
func TestWinCreateUnified(t *testing.T) {
	exe := compile(t, "wincreate.c")
	runOK(t, 4, exe, "wincreate ok")
	t.Run("node per rank", func(t *testing.T) {
		t.Setenv("GSHMEM_NODE_ID", "%r")
		runOK(t, 3, exe, "wincreate ok")
	})
	if testing.Short() {
		return
	}
	t.Run("big", func(t *testing.T) {
		r := runArgs(t, 2, exe, "big")
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		require.Equal(t, 2, strings.Count(r.stdout, "wincreate ok"), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	})
}

// TestRMAPeerLost runs rmafault.c: the C fast path's put, get, accumulate
// and fetch-and-op plus flush, to a victim that is killed or stopped,
// under gshmem run, over shared memory and tcp. A survivor that ignores
// SIGTERM (the launcher's end of the job) must report an error that names
// the victim; a stopped victim must not hang the job.
func TestRMAPeerLost(t *testing.T) {
	exe := compile(t, "rmafault.c")
	lost := regexp.MustCompile(`rmafault: rank (\d) lost after \S+ s \(class \d+\): (.*)`)
	for _, c := range []struct{ how, op, term, node string }{
		{"kill", "put", "ignterm", ""}, {"stop", "put", "", ""}, {"stop", "get", "ignterm", ""},
		{"kill", "acc", "ignterm", ""}, {"stop", "fop", "", ""}, {"stop", "put", "ignterm", "%r"},
	} {
		name := fmt.Sprintf("%s/%s/%s", c.how, c.op, map[string]string{"": "shm", "%r": "tcp"}[c.node])
		if c.term != "" {
			name += "/ignterm"
		}
		t.Run(name, func(t *testing.T) {
			t.Setenv("GSHMEM_PEER_TIMEOUT", "2s")
			if c.node != "" {
				t.Setenv("GSHMEM_NODE_ID", c.node)
			}
			r := runArgs(t, 3, exe, c.how, c.op, c.term)
			out := r.stdout + r.stderr
			require.NotEqual(t, 0, r.code, "%s", out)
			require.Contains(t, out, "rmafault: victim", "%s", out)
			ms := lost.FindAllStringSubmatch(r.stdout, -1)
			if c.term != "" || c.how == "stop" {
				// Nothing ends these survivors but their own error.
				require.NotEmpty(t, ms, "no survivor reported the loss:\n%s", out)
			}
			for _, m := range ms {
				if m[1] != "1" { // a stopped victim the launcher continues may report too
					assert.Regexp(t, `PE 1\b`, m[2], "rank %s's error names the victim", m[1])
					assert.Contains(t, m[0], "(class 58)", "MPI_ERR_PROC_ABORTED")
				}
			}
		})
	}
}
