// Package exflag parses the examples' flags the way a job wants them: every
// PE of a job parses the same command line, so a bad flag would print the
// same error once per PE, and -h would exit with a failure status. Parse
// prints usage and errors from the first rank only, exits 0 for -h and 2
// for a bad flag (as the flag package does), before anything initializes.
package exflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// rankVars are where launchers put a process's rank, gshmem run's first.
var rankVars = []string{"GSHMEM_RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"}

// First says whether this process is the first of its job (or not started
// by a launcher at all): the one that speaks for the job.
func First(getenv func(string) string) bool {
	for _, v := range rankVars {
		if r := getenv(v); r != "" {
			return r == "0"
		}
	}
	return true
}

// Parse parses args into fs, and check validates the values (nil for no
// check); on -h, a bad flag or a failed check it exits the process.
func Parse(fs *flag.FlagSet, args []string, check func() error) {
	if code, done := parse(fs, args, check, os.Stderr, os.Getenv); done {
		os.Exit(code)
	}
}

// parse is Parse without the exit: done says the process should end with
// code.
func parse(fs *flag.FlagSet, args []string, check func() error, stderr io.Writer, getenv func(string) string) (code int, done bool) {
	out := stderr
	if !First(getenv) {
		out = io.Discard
	}
	fs.SetOutput(out)
	fs.Init(fs.Name(), flag.ContinueOnError)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	case err != nil:
		return 2, true // the flag package printed the error and usage
	}
	if check != nil {
		if err := check(); err != nil {
			fmt.Fprintf(out, "%s: %v\n", fs.Name(), err)
			return 2, true
		}
	}
	return 0, false
}
