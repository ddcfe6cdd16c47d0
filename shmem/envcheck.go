package shmem

import (
	"fmt"
	"io"
	"os"

	"github.com/gshmem/gshmem/internal/envnames"
)

// UnknownSetting is a GSHMEM_* variable that nothing reads.
type UnknownSetting struct {
	Name    string
	Closest string // the known variable it likely misspells, "" when none is close
}

// UnknownSettings returns the GSHMEM_* variables of the environment that
// no layer linked into this program reads (Settings, plus what compat and
// the other layers register), each with the known variable it most likely
// misspells. gshmem info lists them.
func UnknownSettings() []UnknownSetting {
	names := make([]string, len(Settings))
	for i, s := range Settings {
		names[i] = s.Name
	}
	var out []UnknownSetting
	for _, u := range envnames.Find(os.Environ(), names...) {
		out = append(out, UnknownSetting(u))
	}
	return out
}

// warnMisspelled prints one line per likely misspelling. Init calls it on
// PE 0 only: every PE of a job sees the same environment, and one line per
// job is enough.
func warnMisspelled(out io.Writer) {
	for _, u := range UnknownSettings() {
		if line := envnames.Warning(envnames.Unknown(u)); line != "" {
			fmt.Fprintln(out, line)
		}
	}
}
