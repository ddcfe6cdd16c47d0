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

// TestFortranMpifHFlang builds the mpif.h program with LLVM's flang
// (Debian's flang-16) where one is installed: mpif.h declares no
// procedures, so it serves any compiler whose INTEGER is a C int and whose
// hidden string lengths follow gfortran's (flang 16 cannot build the
// modules: BIND(C) module variables and assumed-rank interfaces are "not
// yet implemented" there).
func TestFortranMpifHFlang(t *testing.T) {
	var flang string
	for _, n := range []string{"flang-new", "flang-new-19", "flang-new-18", "flang-new-17", "flang-new-16"} {
		if p, err := exec.LookPath(n); err == nil {
			flang = p
			break
		}
	}
	if flang == "" {
		t.Skip("no flang-new on PATH (apt-get install flang-16)")
	}
	fortranSetup(t)
	exe := filepath.Join(tool.bin, "f77flang")
	cmd := exec.Command(filepath.Join(tool.prefix, "bin", "mpifort"), "-o", exe, filepath.Join("testdata", "fortran", "f77.f"))
	// flang 16 writes executables only when asked to.
	cmd.Env = append(os.Environ(), "GSHMEM_FC="+flang+" -flang-experimental-exec")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "mpifort with %s\n%s", flang, out)
	require.Contains(t, string(out), "mpif.h works with any compiler", "mpifort says the modules are gfortran's")
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

// TestFortranAttrWithC: attributes between a Fortran main and C (MPI-4.1
// section 19.3.7): C reads a pointer to the integer Fortran set (an
// MPI_Aint, or the int of MPI_ATTR_PUT), Fortran reads the address C set,
// and copy and delete functions written in Fortran get the integer.
func TestFortranAttrWithC(t *testing.T) {
	exe := compileFortran(t, "fattr", []string{"fattr.f90", "fattr.c"}, "-Wall", "-Werror", "-Wno-unused-dummy-argument")
	runOK(t, 1, exe, "attr ok")
	runOK(t, 2, exe, "attr ok")
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

// TestFortranInteropSymbols: the MPI-5.0 ABI has no MPI_Fint, so
// libmpi_abi.so.1 exports the int conversions (MPI_X_toint/_fromint) and
// the MPI_Abi_*fortran* calls but none of MPI_X_c2f/_f2c, the status
// conversions or MPI_F_STATUS_IGNORE; the binding library exports those.
func TestFortranInteropSymbols(t *testing.T) {
	fortranSetup(t)
	if _, err := exec.LookPath("nm"); err != nil {
		t.Skip("no nm on PATH (binutils)")
	}
	defined := func(lib string) map[string]bool {
		out, err := exec.Command("nm", "-D", "--defined-only", filepath.Join(tool.prefix, "lib", lib)).Output()
		require.NoError(t, err)
		m := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if f := strings.Fields(l); len(f) == 3 {
				m[f[2]] = true
			}
		}
		return m
	}
	abi, bind := defined("libmpi_abi.so.1"), defined("libgshmem_mpifort.so.1")
	var fortranOnly []string
	for _, k := range []string{"Comm", "Errhandler", "File", "Group", "Info", "Message", "Op", "Request", "Session", "Type", "Win"} {
		for _, p := range []string{"MPI_", "PMPI_"} {
			require.True(t, abi[p+k+"_toint"] && abi[p+k+"_fromint"], "libmpi_abi.so.1 exports %s%s_toint/_fromint", p, k)
			fortranOnly = append(fortranOnly, p+k+"_c2f", p+k+"_f2c")
		}
	}
	for _, c := range []string{"c2f", "f2c", "c2f08", "f082c", "f2f08", "f082f"} {
		fortranOnly = append(fortranOnly, "MPI_Status_"+c, "PMPI_Status_"+c)
	}
	fortranOnly = append(fortranOnly, "MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE", "MPI_F08_STATUS_IGNORE", "MPI_F08_STATUSES_IGNORE")
	for _, n := range fortranOnly {
		require.False(t, abi[n], "%s is outside the MPI-5.0 ABI: libmpi_abi.so.1 must not export it", n)
		require.True(t, bind[n], "libgshmem_mpifort.so.1 exports %s", n)
	}
	for _, n := range []string{"MPI_Abi_get_fortran_info", "MPI_Abi_set_fortran_info", "MPI_Abi_get_fortran_booleans", "MPI_Abi_set_fortran_booleans"} {
		require.True(t, abi[n], "libmpi_abi.so.1 exports %s", n)
		require.False(t, bind[n], "%s is the C library's, not the binding's", n)
	}
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
