package launcher

import (
	"fmt"
	"strings"

	"github.com/gshmem/gshmem/internal/launchwire"
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
