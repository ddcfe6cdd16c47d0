package shmem

import (
	"fmt"
	"io"
	"os"

	"github.com/gshmem/gshmem/internal/settings"
)

// UnknownSetting is a GSHMEM_* variable that nothing reads.
type UnknownSetting struct {
	Name    string
	Closest string // the known variable it likely misspells, "" when none is close
}

// UnknownSettings returns the GSHMEM_* variables of the environment that
// gshmem's settings table does not hold (whatever packages this program
// links), each with the known variable it most likely misspells. gshmem
// info lists them.
func UnknownSettings() []UnknownSetting {
	_, unknown := settings.CheckEnv(os.Environ())
	var out []UnknownSetting
	for _, u := range unknown {
		out = append(out, UnknownSetting(u))
	}
	return out
}

// warnMisspelled prints one line per likely misspelling. Init calls it on
// PE 0 only, and only outside gshmem run, which checks the job's
// environment once before starting it: every PE of a job sees the same
// environment, and one line per job is enough.
func warnMisspelled(out io.Writer) {
	if os.Getenv("GSHMEM_LOCAL_ADDR") != "" {
		return
	}
	for _, u := range UnknownSettings() {
		if line := settings.Warning(settings.Unknown(u)); line != "" {
			fmt.Fprintln(out, line)
		}
	}
}
