package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// The Fortran side of an installation: libgshmem_mpifort (the bindings
// generated in compat/abi/fortran, calling only the C ABI), mpif.h, the
// mpi and mpi_f08 module files built for the installed gfortran, and the
// mpifort/mpif90/mpif77 wrappers.

// fortranLib is the binding library's file name and soname.
const fortranLib = "libgshmem_mpifort.so.1"

// fortranStamp names the file under lib/ that records the compiler the
// module files were built with.
const fortranStamp = "gshmem-mpifort-compiler"

// fortranIdentity is the compiler's name and major version ("gfortran 12"),
// what decides whether it reads another's module files; "" when it does
// not say.
func fortranIdentity(fc []string) string {
	out, err := exec.Command(fc[0], append(fc[1:], "-dumpversion")...).Output()
	if err != nil {
		return ""
	}
	major, _, _ := strings.Cut(strings.TrimSpace(string(out)), ".")
	return filepath.Base(fc[0]) + " " + major
}

// fortranMismatch says how the compiler mpifort is about to run differs
// from the one the installation's module files were built with, or "".
func fortranMismatch(prefix string, fc []string) string {
	b, err := os.ReadFile(filepath.Join(prefix, "lib", fortranStamp))
	if err != nil {
		return ""
	}
	built, now := strings.TrimSpace(string(b)), fortranIdentity(fc)
	if built == "" || now == built {
		return ""
	}
	if now == "" {
		now = strings.Join(fc, " ")
	}
	return fmt.Sprintf("mpifort: the mpi and mpi_f08 module files under %s/include were built by %s, not %s: "+
		"use mpi and use mpi_f08 need that compiler (or gshmem abi install run again with GSHMEM_FC); mpif.h works with any compiler whose INTEGER is a C int", prefix, built, now)
}

// fortranCompiler is the Fortran compiler mpifort runs and abi install
// builds the modules with: GSHMEM_FC, else gfortran.
func fortranCompiler() string {
	if fc := os.Getenv("GSHMEM_FC"); fc != "" {
		return fc
	}
	return "gfortran"
}

// installFortran builds and installs the Fortran binding under prefix. No
// Fortran compiler is not an error: the C installation stands alone, and
// the message says what is missing.
func installFortran(cmd *cobra.Command, root, prefix, self string) error {
	fc := strings.Fields(fortranCompiler())
	if _, err := exec.LookPath(fc[0]); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "no Fortran compiler (%s, GSHMEM_FC): mpif.h, the mpi and mpi_f08 modules and mpifort are not installed\n", fc[0])
		return nil
	}
	cc := strings.Fields(os.Getenv("GSHMEM_CC"))
	if len(cc) == 0 {
		cc = []string{"cc"}
	}
	src := filepath.Join(root, "compat", "abi", "fortran")
	inc := filepath.Join(prefix, "include")
	tmp, err := os.MkdirTemp("", "gshmem-fortran-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	run := func(argv ...string) error {
		x := exec.Command(argv[0], argv[1:]...)
		x.Dir = tmp
		x.Stdout, x.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		if err := x.Run(); err != nil {
			return fmt.Errorf("building the Fortran binding: %s: %w", strings.Join(argv, " "), err)
		}
		return nil
	}
	var objs []string
	cs, err := filepath.Glob(filepath.Join(src, "*.c"))
	if err != nil || len(cs) == 0 {
		return fmt.Errorf("no Fortran binding sources in %s", src)
	}
	for _, c := range cs {
		o := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(c), ".c")+".o")
		argv := append(append([]string{}, cc...), "-O2", "-fPIC", "-I"+inc, "-I"+src, "-c", c, "-o", o)
		if err := run(argv...); err != nil {
			return err
		}
		objs = append(objs, o)
	}
	// The modules: .mod files into include/ (where mpifort's -I finds them).
	for _, f := range []string{"zmpi.f90", "zmpi_f08.f90"} {
		o := filepath.Join(tmp, strings.TrimSuffix(f, ".f90")+".o")
		argv := append(append([]string{}, fc...), "-O1", "-fPIC", "-J", inc, "-I"+src, "-c", filepath.Join(src, f), "-o", o)
		if err := run(argv...); err != nil {
			return err
		}
		objs = append(objs, o)
	}
	lib := filepath.Join(prefix, "lib")
	argv := append(append([]string{}, fc...), "-shared", "-o", filepath.Join(lib, fortranLib), "-Wl,-soname,"+fortranLib)
	argv = append(argv, objs...)
	argv = append(argv, "-L"+lib, "-Wl,-rpath,"+lib, "-lmpi_abi")
	if err := run(argv...); err != nil {
		return err
	}
	link := filepath.Join(lib, "libgshmem_mpifort.so")
	_ = os.Remove(link)
	if err := os.Symlink(fortranLib, link); err != nil {
		return err
	}
	if err := copyFile(filepath.Join(src, "include", "mpif.h"), filepath.Join(inc, "mpif.h"), 0o644); err != nil {
		return err
	}
	// The module files are this compiler's (and this version's) format:
	// record which, for mpifort to compare.
	if err := os.WriteFile(filepath.Join(lib, fortranStamp), []byte(fortranIdentity(fc)+"\n"), 0o644); err != nil {
		return err
	}
	for _, name := range []string{"mpifort", "mpif90", "mpif77"} {
		body := "#!/bin/sh\n# gshmem's " + name + " (gshmem abi install)\nexec \"" + self + "\" mpifort --prefix \"" + prefix + "\" \"$@\"\n"
		if err := os.WriteFile(filepath.Join(prefix, "bin", name), []byte(body), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// fortranWrapper is mpifort: the C wrappers' line with the binding
// library before libmpi_abi (both recorded even where the linker defaults
// to --as-needed: the program names the standard ABI library itself), and
// for gfortran -fallow-argument-mismatch, without which gfortran 10 and
// later refuse a program that passes different types to one mpif.h
// routine (mpif.h declares no interfaces; use mpi and use mpi_f08 do).
var fortranWrapper = &wrapper{name: "mpifort", lang: "Fortran", compilerEnv: "GSHMEM_FC", compiler: "gfortran",
	libs:     []string{"gshmem_mpifort", "mpi_abi"},
	libFlags: []string{"-Wl,--push-state,--no-as-needed", "-lgshmem_mpifort", "-lmpi_abi", "-Wl,--pop-state"},
	compileExtra: func(compiler []string) []string {
		if len(compiler) > 0 && strings.Contains(filepath.Base(compiler[0]), "gfortran") {
			return []string{"-fallow-argument-mismatch"}
		}
		return nil
	},
	rpath: ccRpath, compileOnly: compileOnly}

// mpifortCommand is the compiler command mpifort runs for args.
func mpifortCommand(compiler, prefix string, args []string) []string {
	return fortranWrapper.resolveWith(compiler, prefix).command(args)
}

func mpifortCmd() *cobra.Command {
	return wrapperCmd(fortranWrapper, "mpifort [QUERY] [--prefix DIR] [COMPILER ARGS...]",
		"compile and link a Fortran MPI program against gshmem's libgshmem_mpifort and libmpi_abi.so.1",
		`mpifort runs the Fortran compiler (GSHMEM_FC, default gfortran) with the
include path of mpif.h and the mpi and mpi_f08 modules and, when linking,
libgshmem_mpifort (the Fortran bindings) and libmpi_abi.so.1 with an rpath.
The modules are built for the gfortran of gshmem abi install; another
compiler can use mpif.h but not the module files, and mpifort says so.`, nil,
		func(cmd *cobra.Command, p string, a wrapperArgs) (bool, error) {
			if _, err := os.Stat(filepath.Join(p, "lib", fortranLib)); err != nil {
				return true, fmt.Errorf("no Fortran binding under %s/lib: gshmem abi install found no Fortran compiler (install gfortran, then run it again)", p)
			}
			for _, arg := range a.rest {
				switch arg {
				case "-fdefault-integer-8", "-i8", "-fdefault-real-8", "-r8":
					// The binding's INTEGER is a C int and the Fortran types'
					// sizes are fixed (MPI_INTEGER_KIND = 4).
					return true, fmt.Errorf("mpifort: %s is not supported: gshmem's Fortran binding was built for default INTEGER and REAL kinds (4 bytes)", arg)
				}
			}
			if msg := fortranMismatch(p, strings.Fields(fortranCompiler())); msg != "" && a.query == "" {
				fmt.Fprintln(cmd.ErrOrStderr(), msg)
			}
			return false, nil
		})
}
