// Command gshmem launches and inspects gshmem jobs.
//
//	gshmem run -n 4 [--tag-output] PROGRAM [ARGS...]   start 4 PEs of PROGRAM on this node
//	gshmem info                                        configuration and GSHMEM_* settings
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "gshmem",
		Short:         "gshmem: one-sided communication over a symmetric heap",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd(), infoCmd(), perfCmd(), spawnExecCmd())
	root.AddCommand(mpiccCmd(), mpicxxCmd(), mpifortCmd(), nvccCmd(), abiCmd())
	if err := root.Execute(); err != nil {
		var code exitCode
		if asExit(err, &code) {
			os.Exit(int(code))
		}
		fmt.Fprintln(os.Stderr, errLine(err))
		os.Exit(1)
	}
}

// errLine prefixes err with the command's name once: errors of the
// subcommands already start with theirs ("gshmem run: ...").
func errLine(err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, "gshmem ") || strings.HasPrefix(msg, "gshmem:") {
		return msg
	}
	return "gshmem: " + err.Error()
}

// exitCode carries a job's exit status out of a command without printing.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func asExit(err error, code *exitCode) bool {
	c, ok := err.(exitCode)
	*code = c
	return ok
}
