package launcher

import (
	"fmt"
	"strings"
	"time"

	"github.com/gshmem/gshmem/internal/launchwire"
	"github.com/gshmem/gshmem/internal/settings"
)

// checkBootstrapVar refuses a GSHMEM_BOOTSTRAP other than local in the
// launcher's environment. gshmem run always starts its PEs with the local
// bootstrap; replacing the user's choice silently would hide a setting
// meant for another launcher, or a typo.
func checkBootstrapVar(env []string) error {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == launchwire.EnvBootstrap && v != "" && v != launchwire.BootstrapName {
			return fmt.Errorf("%w: %s=%q: gshmem run starts its PEs with the %s bootstrap; unset it (pmi, pmi2 and env are for other launchers: mpiexec.hydra, srun, mpirun)",
				ErrConfig, launchwire.EnvBootstrap, v, launchwire.BootstrapName)
		}
	}
	return nil
}

// bootstrapTimeout is the PEs' bound on their setup waits, read as
// shmem reads GSHMEM_BOOTSTRAP_TIMEOUT (a Go duration, or seconds); an
// unreadable value is the PEs' to report.
func bootstrapTimeout(env []string) time.Duration {
	const def = 60 * time.Second
	v := ""
	for _, kv := range env {
		if k, val, _ := strings.Cut(kv, "="); k == "GSHMEM_BOOTSTRAP_TIMEOUT" {
			v = val
		}
	}
	// The settings table's reading, so that the launcher's deadline is the
	// PEs' own; a value it refuses fails the PEs, and the default bounds
	// the launcher's wait meanwhile.
	d, ok, err := settings.Get("GSHMEM_BOOTSTRAP_TIMEOUT").Duration(func(string) string { return v })
	if err != nil || !ok {
		return def
	}
	return d
}

// joinDeadline is when, counted from the first PE's join, the launcher
// judges a job whose PEs have not all joined: a little before the first
// PE's own setup timeout, so that the job ends with the launcher's one
// line instead of one timeout error per PE.
func joinDeadline(timeout time.Duration) time.Duration {
	return timeout - min(timeout/10, 2*time.Second)
}

// exitTimeout is the job's status when the launcher stops it for a
// bootstrap that did not complete, as timeout(1) exits.
const exitTimeout = 124
