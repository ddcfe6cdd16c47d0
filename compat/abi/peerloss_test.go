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
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPeerLossClass: a rank that is killed, or stopped past
// GSHMEM_PEER_TIMEOUT, makes the survivors' MPI_Recv from it and their
// MPI_Barrier return MPI_ERR_PROC_ABORTED (testdata/peerloss.c), without a
// launcher to end the job. Every wait is bounded: the job's processes are
// killed after 60 s whatever happens.
func TestPeerLossClass(t *testing.T) {
	exe := compile(t, "peerloss.c")
	for _, how := range []string{"kill", "stop"} {
		t.Run(how, func(t *testing.T) {
			outs := runLossJob(t, exe, how, 3, 1)
			for _, r := range []int{0, 2} {
				assert.Contains(t, outs[r], fmt.Sprintf("peerloss ok %d", r), "rank %d:\n%s", r, outs[r])
			}
		})
	}
}

// TestShrinkAfterLoss: after rank 1 of 4 is killed, or stopped past
// GSHMEM_PEER_TIMEOUT, the survivors learn of it as MPIX_ERR_PROC_FAILED
// (GSHMEM_MPI_FT=ulfm), agree, shrink MPI_COMM_WORLD and finish an
// MPI_Allreduce on the three of them (testdata/shrink.c).
func TestShrinkAfterLoss(t *testing.T) {
	exe := compile(t, "shrink.c")
	for _, how := range []string{"kill", "stop"} {
		t.Run(how, func(t *testing.T) {
			outs := runLossJob(t, exe, how, 4, 1, "GSHMEM_MPI_FT=ulfm")
			for _, r := range []int{0, 2, 3} {
				assert.Contains(t, outs[r], fmt.Sprintf("shrink ok %d", r), "rank %d:\n%s", r, outs[r])
			}
		})
	}
}

// runLossJob runs exe how as n processes without a launcher (the env
// bootstrap, GSHMEM_PEER_TIMEOUT=1s), waits for every rank but victim to
// exit successfully, kills victim and returns each rank's output. Every
// wait is bounded: the job's processes are killed after 60 s whatever
// happens.
func runLossJob(t *testing.T, exe, how string, n, victim int, extraEnv ...string) []string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	require.NoError(t, l.Close())
	secret := make([]byte, 16)
	_, _ = rand.Read(secret)
	env := append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1", "GSHMEM_BOOTSTRAP=env", "GSHMEM_BOOTSTRAP_ADDR=127.0.0.1:"+port,
		"GSHMEM_JOB_SECRET="+hex.EncodeToString(secret), "GSHMEM_NPES="+strconv.Itoa(n), "GSHMEM_PEER_TIMEOUT=1s")
	env = append(env, extraEnv...)
	procs := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	done := make([]chan error, n)
	for r := range n {
		c := exec.Command(exe, how)
		c.Env = append(append([]string{}, env...), "GSHMEM_RANK="+strconv.Itoa(r))
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		outs[r] = new(bytes.Buffer)
		c.Stdout, c.Stderr = outs[r], outs[r]
		require.NoError(t, c.Start())
		procs[r], done[r] = c, make(chan error, 1)
		go func() { done[r] <- c.Wait() }()
	}
	t.Cleanup(func() {
		for _, p := range procs {
			_ = syscall.Kill(p.Process.Pid, syscall.SIGKILL)
		}
	})
	deadline := time.After(60 * time.Second)
	for r := range n {
		if r == victim {
			continue
		}
		select {
		case err := <-done[r]:
			assert.NoError(t, err, "rank %d:\n%s", r, outs[r].String())
		case <-deadline:
			t.Fatalf("rank %d still waits 60 s after the start", r)
		}
	}
	_ = syscall.Kill(procs[victim].Process.Pid, syscall.SIGKILL)
	<-done[victim]
	res := make([]string, n)
	for r := range n {
		res[r] = outs[r].String()
	}
	return res
}
