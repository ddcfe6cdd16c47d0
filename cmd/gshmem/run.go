package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/gshmem/gshmem/internal/launcher"
)

func runCmd() *cobra.Command {
	var n int
	var tag bool
	c := &cobra.Command{
		Use:   "run -n N [--tag-output] PROGRAM [ARGS...]",
		Short: "start N PEs of PROGRAM on this node",
		Long: `run starts N processes of PROGRAM as the PEs of one job and serves their
bootstrap. PROGRAM is any executable (one that never initializes gshmem still
runs, as with mpirun) or a Go package directory, built first as go run would.
Signals are forwarded to every PE. When a PE fails, the others are stopped and
run exits with the failed PE's status.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			code, err := launcher.Run(context.Background(), launcher.Config{
				N: n, Argv: args, TagOutput: tag, Stdout: os.Stdout, Stderr: os.Stderr,
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
	c.Flags().SetInterspersed(false)
	return c
}
