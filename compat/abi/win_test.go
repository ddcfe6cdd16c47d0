//go:build cgo

package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// TestDynamicUnified runs dynwin.c: dynamic windows in the unified model
// (attached memory of every kind reached in place by every RMA call,
// MPI_ERR_RMA_RANGE outside it, detach and free), over shared memory and
// over tcp.
func TestDynamicUnified(t *testing.T) {
	exe := compile(t, "dynwin.c")
	runOK(t, 3, exe, "dynwin ok")
	t.Run("node per rank", func(t *testing.T) {
		t.Setenv("GSHMEM_NODE_ID", "%r")
		runOK(t, 2, exe, "dynwin ok")
	})
}

// TestWinHandles runs winhandle.c: a garbage, a freed and a forged window
// handle give MPI_ERR_WIN at every window entry point, the C fast paths
// included.
func TestWinHandles(t *testing.T) {
	runOK(t, 2, compile(t, "winhandle.c"), "winhandle ok")
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

// TestRMAPeerLostWithoutLauncher is TestRMAPeerLost with the ranks
// started by the test itself (the env bootstrap): no launcher notices the
// victim, so only the runtime can, and every survivor must fail with an
// error naming it within GSHMEM_PEER_TIMEOUT and a margin.
func TestRMAPeerLostWithoutLauncher(t *testing.T) {
	exe := compile(t, "rmafault.c")
	lost := regexp.MustCompile(`rmafault: rank (\d) lost after (\S+) s \(class (\d+)\): (.*)`)
	for _, c := range []struct{ how, op, node string }{
		{"kill", "put", ""}, {"stop", "put", ""}, {"stop", "get", ""}, {"kill", "acc", ""}, {"stop", "fop", ""},
		{"stop", "put", "%r"}, {"kill", "fop", "%r"},
	} {
		name := fmt.Sprintf("%s/%s/%s", c.how, c.op, map[string]string{"": "shm", "%r": "tcp"}[c.node])
		t.Run(name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			require.NoError(t, ln.Close())
			secret := make([]byte, 16)
			_, _ = rand.Read(secret)
			env := append(os.Environ(), "GSHMEM_BOOTSTRAP=env", "GSHMEM_BOOTSTRAP_ADDR=127.0.0.1:"+port,
				"GSHMEM_JOB_SECRET="+hex.EncodeToString(secret), "GSHMEM_NPES=3", "GSHMEM_PEER_TIMEOUT=2s",
				"GSHMEM_TCP_ADDR=127.0.0.1", "GSHMEM_BOOTSTRAP_TIMEOUT=30s")
			if c.node != "" {
				env = append(env, "GSHMEM_NODE_ID="+c.node)
			}
			cmds := make([]*exec.Cmd, 3)
			outs := make([]*bytes.Buffer, 3)
			for r := range cmds {
				cmds[r] = exec.Command(exe, c.how, c.op)
				cmds[r].Env = append(append([]string{}, env...), "GSHMEM_RANK="+strconv.Itoa(r))
				outs[r] = new(bytes.Buffer)
				cmds[r].Stdout, cmds[r].Stderr = outs[r], outs[r]
				require.NoError(t, cmds[r].Start())
			}
			defer func() {
				for _, cmd := range cmds { // the victim, stopped or dead, and any survivor left
					_ = cmd.Process.Signal(syscall.SIGKILL)
					_, _ = cmd.Process.Wait()
				}
			}()
			for _, r := range []int{0, 2} {
				done := make(chan error, 1)
				go func() { done <- cmds[r].Wait() }()
				select {
				case err := <-done:
					var ee *exec.ExitError
					require.ErrorAs(t, err, &ee, "rank %d: %s", r, outs[r])
					assert.Equal(t, 2, ee.ExitCode(), "rank %d: %s", r, outs[r])
				case <-time.After(60 * time.Second):
					t.Fatalf("rank %d still runs 60 s on (a hang):\n%s", r, outs[r])
				}
				m := lost.FindStringSubmatch(outs[r].String())
				require.NotNil(t, m, "rank %d reported no loss:\n%s\nvictim:\n%s", r, outs[r], outs[1])
				assert.Equal(t, strconv.Itoa(r), m[1])
				assert.Equal(t, "58", m[3], "MPI_ERR_PROC_ABORTED")
				assert.Regexp(t, `PE 1\b`, m[4], "rank %d's error names the victim", r)
				secs, _ := strconv.ParseFloat(m[2], 64)
				t.Logf("rank %d detected the loss after %.2f s: %s", r, secs, m[4])
				assert.Less(t, secs, 2.5+10, "within the peer timeout, the loss grace and a wide margin for a loaded machine")
			}
		})
	}
}
