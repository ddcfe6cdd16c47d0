package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gshmem/gshmem/compat"
	"github.com/gshmem/gshmem/internal/launcher"
	"github.com/gshmem/gshmem/internal/settings"
)

func runCmd() *cobra.Command {
	var n int
	var tag, oversubscribe, keepGoing bool
	c := &cobra.Command{
		Use:   "run -n N [--tag-output] PROGRAM [ARGS...]",
		Short: "start N PEs of PROGRAM on this node",
		Long: `run starts N processes of PROGRAM as the PEs of one job and serves their
bootstrap. PROGRAM is any executable (one that never initializes gshmem still
runs, as with mpirun) or a Go package directory, built first as go run would.
Signals are forwarded to every PE. When a PE fails, the others are stopped and
run exits with the failed PE's status; an interrupt (Ctrl-C, SIGTERM, SIGHUP)
is passed to every PE and reported as the job interrupted: a stopped PE is
continued so that it takes it, the PEs still there 2s later are killed, and
a second interrupt kills at once. With --disable-auto-cleanup (or
GSHMEM_MPI_FT=ulfm in the environment) the others go on instead, for
programs that survive a lost PE (MPIX_Comm_shrink); run ends PEs left
stopped once every other PE has exited. The exit status is the code of the
first global exit a PE asked for (MPI_Abort, shmem_global_exit), even after a
loss (a zero one only when no PE had failed); else, after an interrupt,
128+signal; else the first failure's status (128+signal for a PE killed by
one); 124, 127, 126 or 1 for the launcher's own failures (below, a program
missing, not executable, anything else).

Before starting, run checks N against this node: more than 4 PEs per CPU the
process may use, or more memory than MemAvailable at an estimated 8 MiB plus
16 KiB per PE of the job for each PE, is refused with the reason;
--oversubscribe (as with Open MPI's mpirun) starts them anyway. If the PEs
that joined wait longer than GSHMEM_BOOTSTRAP_TIMEOUT for the others, the job
is stopped with one line that says so, and exit status 124.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("gshmem run: no program to run: gshmem run -n N PROGRAM [ARGS...] (gshmem run --help)")
			}
			if err := launcher.CheckCapacity(n, launcher.NodeCapacity(), oversubscribe); err != nil {
				return fmt.Errorf("gshmem run: %w", err)
			}
			if err := checkJobEnv(os.Environ(), cmd.ErrOrStderr()); err != nil {
				return err
			}
			// MPI_Comm_spawn runs this executable again for the children.
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, compat.EnvLauncher+"=") {
					env = append(env, kv)
				}
			}
			if exe, err := os.Executable(); err == nil {
				env = append(env, compat.EnvLauncher+"="+exe)
			}
			code, err := launcher.Run(context.Background(), launcher.Config{
				N: n, Argv: args, TagOutput: tag, Stdout: os.Stdout, Stderr: os.Stderr, Env: env,
				KeepGoing: keepGoing || ulfmJob(),
			})
			if err != nil {
				return err
			}
			if code != 0 {
				return exitCode(code)
			}
			return nil
		},
	}
	c.Flags().IntVarP(&n, "npes", "n", 1, "number of PEs")
	c.Flags().BoolVar(&tag, "tag-output", false, `prefix every output line with "[pe N] "`)
	c.Flags().BoolVar(&oversubscribe, "oversubscribe", false,
		fmt.Sprintf("start N PEs even beyond %d per CPU or the memory available (as mpirun --oversubscribe)", launcher.MaxPerCPU))
	c.Flags().BoolVar(&keepGoing, "disable-auto-cleanup", false,
		"when a PE fails, leave the others running (as MPICH's mpiexec; implied by GSHMEM_MPI_FT=ulfm): for programs whose survivors go on without it (MPIX_Comm_shrink)")
	c.Flags().SetInterspersed(false)
	return c
}

// ulfmJob reports whether the job runs with GSHMEM_MPI_FT=ulfm, whose
// programs mean to survive a lost PE (checkJobEnv refused a bad value).
func ulfmJob() bool {
	v, _ := settings.Get("GSHMEM_MPI_FT").Choice(os.Getenv)
	return v == "ulfm"
}

// checkJobEnv checks the job's GSHMEM_* variables against the settings
// table once, before any PE starts, whatever packages the program links: a
// value out of range refuses the job in one line (rather than one line per
// PE), and a likely misspelling is flagged once (PEs under gshmem run leave
// that to it).
func checkJobEnv(environ []string, stderr io.Writer) error {
	bad, unknown := settings.CheckEnv(environ)
	for _, u := range unknown {
		if line := settings.Warning(u); line != "" {
			fmt.Fprintln(stderr, line)
		}
	}
	if len(bad) > 0 {
		msgs := make([]string, len(bad))
		for i, err := range bad {
			msgs[i] = err.Error()
		}
		return fmt.Errorf("gshmem run: %w: %s", launcher.ErrConfig, strings.Join(msgs, "; "))
	}
	return nil
}
