package test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// misleading are the prefixes of the variables a job started by these
// tests must not inherit from the caller: gshmem's own (GSHMEM_TCP_ADDR=
// 127.0.0.1 exported by the caller would make the PEs inside the network
// namespaces dial their own loopback), and those by which a launcher
// tells its processes who they are (a test run inside a Slurm job or
// under mpiexec would start its jobs inside that one).
var misleading = []string{"GSHMEM_", "PMI_", "PMIX_", "OMPI_", "SLURM_", "HYDRA_", "MPIR_"}

// harnessKnobs are the variables of this package's own scripts (netns.sh,
// slurm.sh), which a caller sets on purpose (GSHMEM_NETNS_TCP_CC=reno).
var harnessKnobs = []string{"GSHMEM_NETNS_", "GSHMEM_SLURM_"}

// jobEnv is the caller's environment without the misleading variables,
// plus set (KEY=VALUE): each test sets what its job needs.
func jobEnv(set ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		keep := true
		for _, p := range misleading {
			if slices.ContainsFunc(harnessKnobs, func(k string) bool { return strings.HasPrefix(kv, k) }) {
				break
			}
			if strings.HasPrefix(kv, p) {
				keep = false
				break
			}
		}
		if keep {
			env = append(env, kv)
		}
	}
	return append(env, set...)
}

// TestJobEnv: what the caller exported for itself does not reach a job;
// the harness's knobs and the job's own settings do.
func TestJobEnv(t *testing.T) {
	t.Setenv("GSHMEM_TCP_ADDR", "127.0.0.1")
	t.Setenv("SLURM_JOB_ID", "7")
	t.Setenv("PMI_RANK", "3")
	t.Setenv("GSHMEM_NETNS_TCP_CC", "reno")
	env := jobEnv("GSHMEM_PEER_TIMEOUT=3s")
	assert.NotContains(t, env, "GSHMEM_TCP_ADDR=127.0.0.1")
	assert.NotContains(t, env, "SLURM_JOB_ID=7")
	assert.NotContains(t, env, "PMI_RANK=3")
	assert.Contains(t, env, "GSHMEM_NETNS_TCP_CC=reno")
	assert.Contains(t, env, "GSHMEM_PEER_TIMEOUT=3s")
	assert.Contains(t, env, "PATH="+os.Getenv("PATH"))
}
