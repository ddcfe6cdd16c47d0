package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// The compiler wrappers of an installation (mpicc, mpicxx, gshmem nvcc;
// the Fortran and OpenSHMEM wrappers add a wrapper value each) share one
// mechanism: a wrapper names its compiler and libraries, and every wrapper
// answers the same queries (wrapperQueries), the ones CMake's FindMPI,
// Meson's MPI dependency, autotools and Spack ask of an MPI implementation's
// wrappers.

// wrapper is one compiler wrapper: the compiler it runs and what it adds.
type wrapper struct {
	name        string // the command: mpicc
	lang        string // the language, as --showme:version says it: C
	compilerEnv string // the variable naming the compiler: GSHMEM_CC
	compiler    string // the compiler when compilerEnv is unset: cc
	libs        []string
	// libFlags, when set, are the flags that link the libraries instead
	// of -l for each of libs (mpifort's keep both of its libraries
	// recorded where the linker defaults to --as-needed).
	libFlags []string
	// compileExtra, when set, adds flags a compiler needs for every
	// compilation (gfortran's -fallow-argument-mismatch for mpif.h).
	compileExtra func(compiler []string) []string
	// rpath is the flags that record dir as a run-time search path
	// (cc: -Wl,-rpath,dir).
	rpath func(dir string) []string
	// compileOnly reports whether args stop before linking, when the
	// wrapper must add no linker flags.
	compileOnly func(args []string) bool
}

// ccRpath is the rpath flag of cc-like compiler drivers.
func ccRpath(dir string) []string { return []string{"-Wl,-rpath," + dir} }

// wrapperLine is a wrapper resolved against one installation.
type wrapperLine struct {
	w                *wrapper
	compiler         []string
	incdirs, libdirs []string
}

// resolve fills in the compiler (compilerEnv, else the default) and the
// installation's directories.
func (w *wrapper) resolve(prefix string) wrapperLine {
	c := os.Getenv(w.compilerEnv)
	if c == "" {
		c = w.compiler
	}
	return w.resolveWith(c, prefix)
}

func (w *wrapper) resolveWith(compiler, prefix string) wrapperLine {
	return wrapperLine{w: w, compiler: strings.Fields(compiler),
		incdirs: []string{filepath.Join(prefix, "include")},
		libdirs: []string{filepath.Join(prefix, "lib")}}
}

// compileFlags is what compiling a source file needs: the include paths.
func (l wrapperLine) compileFlags() []string {
	var f []string
	for _, d := range l.incdirs {
		f = append(f, "-I"+d)
	}
	if l.w.compileExtra != nil {
		f = append(f, l.w.compileExtra(l.compiler)...)
	}
	return f
}

// linkFlags is what linking needs: library paths, rpaths and libraries.
func (l wrapperLine) linkFlags() []string {
	var f []string
	for _, d := range l.libdirs {
		f = append(f, "-L"+d)
		f = append(f, l.w.rpath(d)...)
	}
	if l.w.libFlags != nil {
		return append(f, l.w.libFlags...)
	}
	for _, lib := range l.w.libs {
		f = append(f, "-l"+lib)
	}
	return f
}

// command is the compiler command for the user's args: the compiler, the
// include paths, args and, when args link, the link flags.
func (l wrapperLine) command(args []string) []string {
	cmd := slices.Concat(l.compiler, l.compileFlags(), args)
	if len(args) > 0 && !l.w.compileOnly(args) {
		cmd = append(cmd, l.linkFlags()...)
	}
	return cmd
}

// fullCommand is command, and with no args the whole compile and link line
// (what -show prints for a build system to parse).
func (l wrapperLine) fullCommand(args []string) []string {
	if len(args) == 0 {
		return slices.Concat(l.compiler, l.compileFlags(), l.linkFlags())
	}
	return l.command(args)
}

// version is the line --showme:version, --version and -v print first: the
// MPI version as three numbers, which Meson reads as the dependency's.
func (l wrapperLine) version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	return fmt.Sprintf("%s: gshmem %s, libmpi_abi.so.1, MPI 5.0.0 standard ABI (Language: %s)", l.w.name, v, l.w.lang)
}

// wrapperQuery is what a query prints (words joined by spaces, nil for
// nothing) and the command it then runs (nil for none).
type wrapperQuery func(l wrapperLine, rest []string) (print, run []string)

// wrapperQueries are the query flags every wrapper answers, each also with
// a second leading dash (Meson asks --showme:compile). Open MPI's -showme:X
// print flags without the compiler; MPICH's -compile_info and -link_info
// (or -compile-info, -link-info, as CMake asks) print commands; -show
// prints the command it would run, and with no other argument the whole
// compile and link line.
var wrapperQueries = map[string]wrapperQuery{
	"-show":   showQuery,
	"-showme": showQuery,
	"-showme:command": func(l wrapperLine, _ []string) ([]string, []string) {
		return l.compiler, nil
	},
	"-showme:compile": func(l wrapperLine, _ []string) ([]string, []string) {
		return nonNil(l.compileFlags()), nil
	},
	"-showme:link": func(l wrapperLine, _ []string) ([]string, []string) {
		return nonNil(l.linkFlags()), nil
	},
	"-showme:incdirs": func(l wrapperLine, _ []string) ([]string, []string) {
		return nonNil(l.incdirs), nil
	},
	"-showme:libdirs": func(l wrapperLine, _ []string) ([]string, []string) {
		return nonNil(l.libdirs), nil
	},
	"-showme:libs": func(l wrapperLine, _ []string) ([]string, []string) {
		return nonNil(l.w.libs), nil
	},
	"-showme:version": func(l wrapperLine, _ []string) ([]string, []string) {
		return []string{l.version()}, nil
	},
	"-compile_info": compileInfoQuery,
	"-compile-info": compileInfoQuery,
	"-link_info":    linkInfoQuery,
	"-link-info":    linkInfoQuery,
	// --version: this wrapper's line, then the compiler's own (autotools
	// and Spack read the compiler's).
	"-version": func(l wrapperLine, _ []string) ([]string, []string) {
		return []string{l.version()}, slices.Concat(l.compiler, []string{"--version"})
	},
	// -v: this wrapper's line, then the command run verbosely (MPICH's).
	"-v": func(l wrapperLine, rest []string) ([]string, []string) {
		if len(rest) == 0 {
			return []string{l.version()}, slices.Concat(l.compiler, []string{"-v"})
		}
		return []string{l.version()}, l.command(append([]string{"-v"}, rest...))
	},
}

func showQuery(l wrapperLine, rest []string) ([]string, []string) {
	return l.fullCommand(rest), nil
}

func compileInfoQuery(l wrapperLine, rest []string) ([]string, []string) {
	return slices.Concat(l.compiler, l.compileFlags(), rest), nil
}

func linkInfoQuery(l wrapperLine, rest []string) ([]string, []string) {
	return slices.Concat(l.compiler, l.compileFlags(), rest, l.linkFlags()), nil
}

// nonNil makes an empty answer print an empty line rather than nothing.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// queryName is a's query in wrapperQueries, or "" when a is none; a query
// may be written with one dash or two.
func queryName(a string) string {
	if strings.HasPrefix(a, "--") {
		a = a[1:]
	}
	if _, ok := wrapperQueries[a]; ok {
		return a
	}
	return ""
}

// wrapperArgs is a compiler wrapper's command line: its own flags (a query,
// --prefix DIR, --help and those named in own), and rest, every other
// argument, which is the compiler's.
type wrapperArgs struct {
	query  string // the first query flag, "" for none
	help   bool
	prefix string
	own    map[string]bool
	rest   []string
}

func parseWrapperArgs(args []string, own ...string) wrapperArgs {
	w := wrapperArgs{own: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--prefix" && i+1 < len(args):
			w.prefix = args[i+1]
			i++
		case strings.HasPrefix(a, "--prefix="):
			w.prefix = strings.TrimPrefix(a, "--prefix=")
		case a == "--help" || a == "-help":
			w.help = true
		case slices.Contains(own, a):
			w.own[a] = true
		case w.query == "" && queryName(a) != "":
			w.query = queryName(a)
		default:
			w.rest = append(w.rest, a)
		}
	}
	return w
}

// answer runs the wrapper for its parsed command line: the query's answer,
// or the compiler command run on this process's standard streams.
func (l wrapperLine) answer(cmd *cobra.Command, w wrapperArgs) error {
	if w.query == "" {
		return runCompiler(l.command(w.rest))
	}
	print, run := wrapperQueries[w.query](l, w.rest)
	if print != nil {
		fmt.Fprintln(cmd.OutOrStdout(), strings.Join(print, " "))
	}
	if run != nil {
		return runCompiler(run)
	}
	return nil
}

// runCompiler runs argv on this process's standard streams, ending with
// the compiler's exit status.
func runCompiler(argv []string) error {
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

// wrapperHelp is the part of every wrapper's help that lists the queries.
const wrapperHelp = `Queries (each also with two leading dashes), as build systems ask them:
  -show, -showme         the command it would run; alone, the whole compile
                         and link line
  -showme:compile        the compile flags      -showme:link     the link flags
  -showme:incdirs        include directories    -showme:libdirs  library directories
  -showme:libs           library names          -showme:command  the compiler
  -showme:version        the version line
  -compile_info, -link_info (or -compile-info, -link-info): the compile or
                         link command
  --version              the version line, then the compiler's --version
  -v                     the version line, then the command run with -v`

// wrapperCmd is the command of a wrapper; extra runs instead of the
// general path when it returns true (nvcc's --device-lib).
func wrapperCmd(w *wrapper, use, short, long string, own []string,
	extra func(cmd *cobra.Command, prefix string, a wrapperArgs) (bool, error)) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short,
		Long:               long + "\n\n" + wrapperHelp,
		DisableFlagParsing: true, // every other argument is the compiler's
		RunE: func(cmd *cobra.Command, args []string) error {
			a := parseWrapperArgs(args, own...)
			if a.help {
				return cmd.Help()
			}
			p, err := findPrefix(a.prefix)
			if err != nil {
				return err
			}
			if extra != nil {
				if done, err := extra(cmd, p, a); done {
					return err
				}
			}
			return w.resolve(p).answer(cmd, a)
		},
	}
}

// mpiWrapper is the wrapper of an MPI language over libmpi_abi.
func mpiWrapper(name, lang, env, def string) *wrapper {
	return &wrapper{name: name, lang: lang, compilerEnv: env, compiler: def,
		libs: []string{"mpi_abi"}, rpath: ccRpath, compileOnly: compileOnly}
}

var (
	mpiccWrapper  = mpiWrapper("mpicc", "C", "GSHMEM_CC", "cc")
	mpicxxWrapper = mpiWrapper("mpicxx", "C++", "GSHMEM_CXX", "c++")
)

func mpiLangCmd(w *wrapper) *cobra.Command {
	return wrapperCmd(w, w.name+" [QUERY] [--prefix DIR] [COMPILER ARGS...]",
		"compile and link a "+w.lang+" MPI program against gshmem's libmpi_abi.so.1",
		w.name+` runs the `+w.lang+` compiler (`+w.compilerEnv+`, default `+w.compiler+`) with the include
path of gshmem's mpi.h and, when linking, libmpi_abi.so.1 with an rpath, as an
MPI implementation's `+w.name+` does. The installation is --prefix, else
GSHMEM_ABI_PREFIX, else the one this gshmem binary belongs to
(DIR/bin/gshmem); make one with gshmem abi install.`, nil, nil)
}

func mpiccCmd() *cobra.Command  { return mpiLangCmd(mpiccWrapper) }
func mpicxxCmd() *cobra.Command { return mpiLangCmd(mpicxxWrapper) }
