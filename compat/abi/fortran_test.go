//go:build cgo

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The Fortran binding's tests: programs of testdata/fortran (fixed form
// with mpif.h, free form with use mpi and with use mpi_f08, a mixed
// Fortran and C program) built with the installed mpifort and run under
// gshmem run. They skip, saying why, where no gfortran is installed.

// fortranSetup installs the library (setup) and skips without a Fortran
// compiler or binding.
func fortranSetup(t *testing.T) {
	t.Helper()
	setup(t)
	fc := os.Getenv("GSHMEM_FC")
	if fc == "" {
		fc = "gfortran"
	}
	if _, err := exec.LookPath(strings.Fields(fc)[0]); err != nil {
		t.Skipf("no Fortran compiler (%s) on PATH: the Fortran binding is not built (apt-get install gfortran, see .ci/packages-abi)", fc)
	}
	_, err := os.Stat(filepath.Join(tool.prefix, "lib", "libgshmem_mpifort.so.1"))
	require.NoError(t, err, "gshmem abi install found %s but installed no Fortran binding", fc)
}

// compileFortran builds testdata/fortran's srcs (Fortran, and C compiled
// with mpicc) into one program with the installed mpifort.
func compileFortran(t *testing.T, name string, srcs []string, flags ...string) string {
	t.Helper()
	fortranSetup(t)
	exe := filepath.Join(tool.bin, name)
	args := append([]string{"-o", exe}, flags...)
	for _, s := range srcs {
		p := filepath.Join("testdata", "fortran", s)
		if strings.HasSuffix(s, ".c") {
			obj := filepath.Join(tool.bin, strings.TrimSuffix(s, ".c")+".o")
			out, err := exec.Command(filepath.Join(tool.prefix, "bin", "mpicc"), "-Wall", "-Wextra", "-Werror", "-c", "-o", obj, p).CombinedOutput()
			require.NoError(t, err, "mpicc -c %s\n%s", p, out)
			p = obj
		}
		args = append(args, p)
	}
	out, err := exec.Command(filepath.Join(tool.prefix, "bin", "mpifort"), args...).CombinedOutput()
	require.NoError(t, err, "mpifort %s\n%s", strings.Join(args, " "), out)
	return exe
}

func TestFortranMpifH(t *testing.T) {
	exe := compileFortran(t, "f77", []string{"f77.f"})
	runOK(t, 1, exe, "f77 ok")
	runOK(t, 2, exe, "f77 ok")
}

func TestFortranUseMpi(t *testing.T) {
	exe := compileFortran(t, "f90", []string{"f90.f90"}, "-Wall", "-Werror", "-Wno-unused-dummy-argument", "-Wno-unused-variable")
	runOK(t, 1, exe, "mpi ok")
	runOK(t, 3, exe, "mpi ok")
}

func TestFortranUseMpiF08(t *testing.T) {
	exe := compileFortran(t, "f08", []string{"f08.f90"}, "-Wall", "-Werror", "-Wno-unused-dummy-argument")
	runOK(t, 2, exe, "f08 ok")
	runOK(t, 4, exe, "f08 ok")
}

// TestFortranHandlesWithC: a Fortran main hands its handles and status
// to a C routine (MPI_X_f2c/c2f, MPI_Status_f2c/c2f) and gets one back.
func TestFortranHandlesWithC(t *testing.T) {
	exe := compileFortran(t, "fmix", []string{"fmix.f90", "fmix.c"})
	runOK(t, 2, exe, "mix ok")
}

// TestFortranLinksOnlyTheABI: a Fortran program records the standard ABI
// library and the binding, and no other gshmem library.
func TestFortranLinksOnlyTheABI(t *testing.T) {
	exe := compileFortran(t, "f08link", []string{"f08.f90"})
	if _, err := exec.LookPath("readelf"); err != nil {
		t.Skip("no readelf on PATH (binutils)")
	}
	out, err := exec.Command("readelf", "-d", exe).CombinedOutput()
	require.NoError(t, err, "%s", out)
	var needed []string
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.Index(l, "Shared library: ["); i >= 0 {
			needed = append(needed, strings.TrimSuffix(l[i+len("Shared library: ["):], "]"))
		}
	}
	require.Contains(t, needed, "libmpi_abi.so.1")
	require.Contains(t, needed, "libgshmem_mpifort.so.1")
	for _, n := range needed {
		ok := n == "libmpi_abi.so.1" || n == "libgshmem_mpifort.so.1"
		for _, sys := range []string{"libgfortran.", "libc.", "libm.", "libquadmath.", "libgcc_s."} {
			ok = ok || strings.HasPrefix(n, sys)
		}
		require.True(t, ok, "%s records %s (all: %v)", exe, n, needed)
	}
	out, err = exec.Command("readelf", "-d", filepath.Join(tool.prefix, "lib", "libgshmem_mpifort.so.1")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "[libmpi_abi.so.1]", "the binding calls the C ABI")
}

// TestFortranJacobi: the Fortran port of examples/jacobi's stage 1 prints
// the Go program's last line (residual and checksum are exact).
func TestFortranJacobi(t *testing.T) {
	exe := compileFortran(t, "fjacobi", []string{"jacobi.f90"}, "-fwrapv")
	gojac := filepath.Join(tool.bin, "gojacobi")
	out, err := exec.Command("go", "build", "-o", gojac, "../../examples/jacobi").CombinedOutput()
	require.NoError(t, err, "%s", out)
	last := func(r result) string {
		require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		return lines[len(lines)-1]
	}
	want := last(runArgs(t, 4, gojac, "-stage", "1", "-n", "64", "-iters", "50"))
	require.Contains(t, want, "stage=1 residual=")
	require.Equal(t, want, last(runArgs(t, 4, exe, "64", "50")))
	require.Equal(t, want, last(runArgs(t, 1, exe, "64", "50")), "the same answer on one process")
}
