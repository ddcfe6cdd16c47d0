//go:build ucx && cgo

package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ucxBins builds gshmem and jobcheck with the ucx transport.
func ucxBins(t *testing.T) (gshmem, jobcheck string) {
	t.Helper()
	dir := t.TempDir()
	gshmem, jobcheck = filepath.Join(dir, "gshmem"), filepath.Join(dir, "jobcheck")
	for out, pkg := range map[string]string{gshmem: "../cmd/gshmem", jobcheck: "./testdata/jobcheck"} {
		b, err := exec.Command("go", "build", "-tags", "ucx", "-o", out, pkg).CombinedOutput()
		require.NoError(t, err, "go build -tags ucx %s: %s", pkg, b)
	}
	return gshmem, jobcheck
}

// ucxHydra runs argv as n PEs on the fake hosts (two each) under Hydra,
// with env passed to every PE.
func ucxHydra(t *testing.T, p string, hosts, perHost int, env []string, argv ...string) (string, int) {
	here, _ := os.Getwd()
	var hs []string
	for h := 1; h <= hosts; h++ {
		hs = append(hs, fmt.Sprintf("%s%d:%d", p, h, perHost))
	}
	args := []string{"mpiexec.hydra", "-launcher", "rsh", "-launcher-exec", filepath.Join(here, "netns-exec.sh"),
		"-hosts", strings.Join(hs, ","), "-n", fmt.Sprint(hosts * perHost)}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "-genv", k, v)
	}
	args = onHost(p, append(args, argv...)...)
	return run(t, 3*time.Minute, scriptEnv(), args[0], args[1:]...)
}

// Two fake hosts x 2 PEs under Hydra over UCX (tcp on the hosts' eth0):
// shm between the two PEs of a host, ucx across hosts, all of jobcheck's
// checks passing; gshmem info names the transport and UCX's lane.
func TestNetnsHydraUCX(t *testing.T) {
	need(t, "mpiexec.hydra")
	gshmem, job := ucxBins(t)
	p := netnsUp(t, 2)
	ucx := []string{"GSHMEM_REMOTE_TRANSPORT=ucx", "UCX_TLS=tcp", "UCX_NET_DEVICES=eth0"}
	out, code := ucxHydra(t, p, 2, 2, ucx, job)
	pes := checkJob(t, out, code, 4, 2, "pmi")
	for pe := range 4 {
		for peer, tr := range pes[pe].transports {
			switch {
			case peer == pe:
				assert.Equal(t, "self", tr)
			case peer/2 == pe/2:
				assert.Equal(t, "shm", tr, "PE %d to PE %d (same host)", pe, peer)
			default:
				assert.Equal(t, "ucx", tr, "PE %d to PE %d (other host)", pe, peer)
			}
		}
	}
	out, code = ucxHydra(t, p, 2, 1, ucx, gshmem, "info")
	require.Equal(t, 0, code, out)
	assert.Regexp(t, `(?m)^1\s+1\s+\S+\s+-\s+u\.$`, out)
	assert.Contains(t, out, "PE 0 -> PE 1: tcp/eth0")

}

// A PE killed on one fake host while the job runs over UCX: every other PE
// returns a peer-lost error and srun exits non-zero within 10 s (srun
// leaves the other tasks running: the runtime's detection ends them).
func TestNetnsPeerLostUCX(t *testing.T) {
	need(t, "srun")
	_, job := ucxBins(t)
	p := netnsUp(t, 3)
	slurmUp(t, 3)
	args := onHost(p, "srun", "-N", "3", "--ntasks-per-node=2", "-n", "6", "--mpi=pmi2", job, "-hang")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = jobEnv(append(scriptEnv(), "GSHMEM_PEER_TIMEOUT=3s",
		"GSHMEM_REMOTE_TRANSPORT=ucx", "UCX_TLS=tcp", "UCX_NET_DEVICES=eth0")...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	finished := false
	defer func() {
		if !finished {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	require.Eventually(t, func() bool { return strings.Count(out.String(), "looping") == 6 }, time.Minute, 20*time.Millisecond,
		"the job never started:\n%s", out)
	assert.Regexp(t, `jobcheck: pe 0/6 .* transports self,shm,ucx,ucx,ucx,ucx `, out.String())

	finished = killPEAndWait(t, p+"2", job, done, out)
}
