package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
