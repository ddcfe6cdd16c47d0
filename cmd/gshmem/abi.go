package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The C ABI tools: gshmem mpicc and mpicxx compile and link C and C++
// programs against libmpi_abi.so.1 (compat/abi), and gshmem abi install
// builds that library once and lays out an MPI installation (include/,
// lib/, bin/mpicc, bin/mpicxx, bin/mpiexec) for existing build systems.

// errNoPrefix: mpicc found no installed library.
var errNoPrefix = errors.New("no libmpi_abi installation found: run `gshmem abi install --prefix DIR` and pass --prefix DIR (or set GSHMEM_ABI_PREFIX)")

// abiLib is the library's file name and soname, as the standard ABI fixes it.
const abiLib = "libmpi_abi.so.1"

// findPrefix returns the installation to compile against: the flag, else
// GSHMEM_ABI_PREFIX, else the directory above this gshmem binary when it
// is an installation's bin/gshmem.
func findPrefix(flag string) (string, error) {
	p := flag
	if p == "" {
		p = os.Getenv("GSHMEM_ABI_PREFIX")
	}
	if p == "" {
		if exe, err := os.Executable(); err == nil {
			p = filepath.Dir(filepath.Dir(exe))
		}
	}
	if p == "" {
		return "", errNoPrefix
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(p, "lib", abiLib)); err != nil {
		return "", fmt.Errorf("%w (looked in %s/lib)", errNoPrefix, p)
	}
	return p, nil
}

// compileOnly reports whether args stop before linking (-c, -E, -S, -M,
// -MM), when the wrapper must not add linker flags.
func compileOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "-c", "-E", "-S", "-M", "-MM":
			return true
		}
	}
	return false
}

// wrapperCommand is the compiler command mpicc/mpicxx runs.
func wrapperCommand(compiler, prefix string, args []string) []string {
	cmd := strings.Fields(compiler)
	cmd = append(cmd, "-I"+filepath.Join(prefix, "include"))
	cmd = append(cmd, args...)
	if len(args) > 0 && !compileOnly(args) {
		lib := filepath.Join(prefix, "lib")
		cmd = append(cmd, "-L"+lib, "-Wl,-rpath,"+lib, "-lmpi_abi")
	}
	return cmd
}

func wrapperCmd(name, envVar, def, lang string) *cobra.Command {
	c := &cobra.Command{
		Use:   name + " [-show] [--prefix DIR] [COMPILER ARGS...]",
		Short: "compile and link a " + lang + " MPI program against gshmem's libmpi_abi.so.1",
		Long: name + ` runs the ` + lang + ` compiler (` + envVar + `, default ` + def + `) with the include
path of gshmem's mpi.h and, when linking, libmpi_abi.so.1 with an rpath, as an
MPI implementation's ` + name + ` does. -show prints the command instead. The
installation is --prefix, else GSHMEM_ABI_PREFIX, else the one this gshmem
binary belongs to (DIR/bin/gshmem); make one with gshmem abi install.`,
		DisableFlagParsing: true, // every other argument is the compiler's
		RunE: func(cmd *cobra.Command, args []string) error {
			w := parseWrapperArgs(args)
			if w.help {
				return cmd.Help()
			}
			p, err := findPrefix(w.prefix)
			if err != nil {
				return err
			}
			compiler := os.Getenv(envVar)
			if compiler == "" {
				compiler = def
			}
			return runWrapped(cmd, wrapperCommand(compiler, p, w.rest), w.show)
		},
	}
	return c
}

// wrapperArgs is a compiler wrapper's command line (mpicc, mpicxx, nvcc):
// its own flags (-show, --prefix DIR, --help and those named in own), and
// rest, every other argument, which is the compiler's.
type wrapperArgs struct {
	show, help bool
	prefix     string
	own        map[string]bool
	rest       []string
}

func parseWrapperArgs(args []string, own ...string) wrapperArgs {
	w := wrapperArgs{own: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-show" || a == "--show":
			w.show = true
		case a == "--prefix" && i+1 < len(args):
			w.prefix = args[i+1]
			i++
		case strings.HasPrefix(a, "--prefix="):
			w.prefix = strings.TrimPrefix(a, "--prefix=")
		case a == "--help" || a == "-help":
			w.help = true
		case slices.Contains(own, a):
			w.own[a] = true
		default:
			w.rest = append(w.rest, a)
		}
	}
	return w
}

// runWrapped prints argv (-show) or runs it on this process's standard
// streams, ending with the compiler's exit status.
func runWrapped(cmd *cobra.Command, argv []string, show bool) error {
	if show {
		fmt.Fprintln(cmd.OutOrStdout(), strings.Join(argv, " "))
		return nil
	}
	x := exec.Command(argv[0], argv[1:]...)
	x.Stdin, x.Stdout, x.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := x.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return exitCode(ee.ExitCode())
		}
		return err
	}
	return nil
}

func mpiccCmd() *cobra.Command  { return wrapperCmd("mpicc", "GSHMEM_CC", "cc", "C") }
func mpicxxCmd() *cobra.Command { return wrapperCmd("mpicxx", "GSHMEM_CXX", "c++", "C++") }
