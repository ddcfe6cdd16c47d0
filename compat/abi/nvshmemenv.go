package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/gshmem/gshmem/internal/settings"
)

// NVSHMEM's own variables, for programs written for NVSHMEM: at load, each
// NVSHMEM_* variable with a gshmem twin (internal/settings' NVSHMEM
// column) sets the twin where the environment leaves it unset, so every
// reader below sees it under gshmem's name; the others are named once, by
// PE 0, when the heap starts (shmNoteNVSHMEM). A package variable rather
// than an init function: it is set before any init reads the environment.
var nvshmemEnv = applyNVSHMEMEnv()

type nvshmemEnvResult struct {
	ignored []string
	err     error
}

func applyNVSHMEMEnv() nvshmemEnvResult {
	set, ignored, err := settings.NVSHMEM(os.Environ())
	if err != nil {
		return nvshmemEnvResult{err: err}
	}
	for _, t := range set {
		_ = os.Setenv(t.Name, t.Value) // also the C environment (cgo)
	}
	return nvshmemEnvResult{ignored: ignored}
}

// shmNoteNVSHMEM refuses a start whose NVSHMEM_* variable has a value its
// twin does not take, and on PE 0 names the ones gshmem does not use.
func shmNoteNVSHMEM(call string, pe int) error {
	if nvshmemEnv.err != nil {
		return nvshmemEnv.err
	}
	if pe == 0 && len(nvshmemEnv.ignored) > 0 {
		fmt.Fprintf(os.Stderr, "gshmem: %s: note: not used here: %s\n", call, strings.Join(nvshmemEnv.ignored, "; "))
	}
	return nil
}
