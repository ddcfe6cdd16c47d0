package main

import (
	"fmt"
	"os"
	"runtime"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gshmem/gshmem/shmem"
)

func infoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "info",
		Short: "print the build, the machine and every GSHMEM_* setting",
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "gshmem (%s, %s/%s), %d CPUs\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
			fmt.Fprintln(out, "transports: shm (memfd, load/store)")
			fmt.Fprintln(out, "bootstraps: local (gshmem run), singleton")
			fmt.Fprintln(out)
			tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "VARIABLE\tVALUE\tSOURCE\tDEFAULT\tMEANING")
			for _, s := range shmem.Settings {
				val, src := os.Getenv(s.Name), "env"
				if s.Name == "GSHMEM_JOB_SECRET" && val != "" {
					val = "(set)"
				}
				if val == "" {
					val, src = s.Default, "default"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.Name, val, src, s.Default, s.Help)
			}
			return tw.Flush()
		},
	}
}
