//go:build cgo

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNVSHMEMHost builds testdata/nvshmem_host.c as an NVSHMEM program is
// built (cc, -I the installation's include, -lnvshmem_host) and runs it on
// 1 and 3 PEs: nvshmem.h's names and the exported nvshmem_ symbols.
func TestNVSHMEMHost(t *testing.T) {
	setup(t)
	exe := filepath.Join(tool.bin, "nvshmem_host")
	args := []string{"-Wall", "-Wextra", "-Werror", "-o", exe, filepath.Join("testdata", "nvshmem_host.c"),
		"-I" + filepath.Join(tool.prefix, "include"), "-L" + filepath.Join(tool.prefix, "lib"),
		"-Wl,-rpath," + filepath.Join(tool.prefix, "lib"), "-lnvshmem_host"}
	out, err := exec.Command("cc", args...).CombinedOutput()
	require.NoError(t, err, "cc %s\n%s", strings.Join(args, " "), out)
	runOK(t, 1, exe, "nvshmem ok")
	runOK(t, 3, exe, "nvshmem ok")
}
