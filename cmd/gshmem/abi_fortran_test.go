package main

import (
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
