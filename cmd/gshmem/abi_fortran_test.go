package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMpifortCommand(t *testing.T) {
	cmd := strings.Join(mpifortCommand("gfortran", "/p", []string{"-o", "x", "x.f90"}), " ")
	require.Equal(t, "gfortran -I/p/include -fallow-argument-mismatch -o x x.f90 -L/p/lib -Wl,-rpath,/p/lib "+
		"-Wl,--push-state,--no-as-needed -lgshmem_mpifort -lmpi_abi -Wl,--pop-state", cmd)
	cmd = strings.Join(mpifortCommand("ifx", "/p", []string{"-c", "x.f90"}), " ")
	require.Equal(t, "ifx -I/p/include -c x.f90", cmd, "no link flags when compiling only; gfortran's flag only for gfortran")
}

// TestFortranMismatch: mpifort says when the compiler is not the one the
// module files were built with, and is quiet when it is.
func TestFortranMismatch(t *testing.T) {
	if _, err := exec.LookPath("gfortran"); err != nil {
		t.Skip("no gfortran on PATH")
	}
	p := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(p, "lib"), 0o755))
	require.Empty(t, fortranMismatch(p, []string{"gfortran"}), "no record, nothing to compare")
	id := fortranIdentity([]string{"gfortran"})
	require.True(t, strings.HasPrefix(id, "gfortran "), id)
	require.NoError(t, os.WriteFile(filepath.Join(p, "lib", fortranStamp), []byte(id+"\n"), 0o644))
	require.Empty(t, fortranMismatch(p, []string{"gfortran"}))
	require.NoError(t, os.WriteFile(filepath.Join(p, "lib", fortranStamp), []byte("gfortran 3\n"), 0o644))
	require.Contains(t, fortranMismatch(p, []string{"gfortran"}), "built by gfortran 3, not "+id)
}
