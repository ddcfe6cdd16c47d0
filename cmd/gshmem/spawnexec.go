package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gshmem/gshmem/compat"
)

// spawnExecCmd is the program of the jobs MPI_Comm_spawn starts (compat's
// spawn.go): each PE finds its app by its rank in GSHMEM_SPAWN_APPS (the
// apps' processes are ranked in order), moves to the app's directory,
// sets GSHMEM_APPNUM (MPI_APPNUM) and becomes the app's command by exec,
// keeping its pid and the launcher's environment.
func spawnExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "spawn-exec",
		Short:  "become the command of an MPI_Comm_spawn child (run by gshmem run for MPI_Comm_spawn)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var apps []compat.SpawnApp
			if err := json.Unmarshal([]byte(os.Getenv(compat.EnvSpawnApps)), &apps); err != nil || len(apps) == 0 {
				return fmt.Errorf("gshmem spawn-exec: %s holds no commands (this is run by MPI_Comm_spawn, not by hand)", compat.EnvSpawnApps)
			}
			rank, err := strconv.Atoi(os.Getenv("GSHMEM_RANK"))
			if err != nil || rank < 0 {
				return fmt.Errorf("gshmem spawn-exec: GSHMEM_RANK=%q", os.Getenv("GSHMEM_RANK"))
			}
			k := 0
			for k < len(apps) && rank >= apps[k].MaxProcs {
				rank -= apps[k].MaxProcs
				k++
			}
			if k == len(apps) {
				return fmt.Errorf("gshmem spawn-exec: rank %s is past the %d commands' processes", os.Getenv("GSHMEM_RANK"), len(apps))
			}
			a := apps[k]
			if a.Dir != "" {
				if err := os.Chdir(a.Dir); err != nil {
					return fmt.Errorf("gshmem spawn-exec: wdir %q of %q: %w", a.Dir, a.Command, err)
				}
			}
			prog, err := lookCommand(a.Command, a.Path)
			if err != nil {
				return fmt.Errorf("gshmem spawn-exec: %w", err)
			}
			os.Unsetenv(compat.EnvSpawnApps)
			os.Setenv(compat.EnvAppNum, strconv.Itoa(k))
			argv := append([]string{a.Command}, a.Args...)
			err = syscall.Exec(prog, argv, os.Environ())
			return fmt.Errorf("gshmem spawn-exec: running %s: %w", prog, err)
		},
	}
}

// lookCommand finds command: a path as it is, a name in the info key
// path's directories first, then in PATH.
func lookCommand(command, path string) (string, error) {
	if strings.Contains(command, "/") {
		return exec.LookPath(command)
	}
	for _, d := range filepath.SplitList(path) {
		if p, err := exec.LookPath(filepath.Join(d, command)); err == nil && d != "" {
			return p, nil
		}
	}
	return exec.LookPath(command)
}
