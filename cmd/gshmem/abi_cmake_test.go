package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCMakeConfig writes the CMake packages and, where cmake is found,
// configures a project that links an executable to each of the four
// targets.
func TestCMakeConfig(t *testing.T) {
	prefix := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(prefix, "include"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(prefix, "lib"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(prefix, "lib", "libmpi_abi.so.1"), nil, 0o644))
	require.NoError(t, installCMakeConfig(prefix))
	b, err := os.ReadFile(filepath.Join(prefix, "lib", "cmake", "NVSHMEM", "NVSHMEMConfig.cmake"))
	require.NoError(t, err)
	require.Contains(t, string(b), "add_library(nvshmem::nvshmem_host SHARED IMPORTED)")
	require.Contains(t, string(b), `IMPORTED_SONAME "libmpi_abi.so.1"`)
	cmake, err := exec.LookPath("cmake")
	if err != nil {
		t.Skip("no cmake")
	}
	src := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(src, "CMakeLists.txt"), []byte(`cmake_minimum_required(VERSION 3.16)
project(p C)
find_package(NVSHMEM REQUIRED)
find_package(gshmem REQUIRED)
file(WRITE ${CMAKE_BINARY_DIR}/m.c "int main(void){return 0;}")
foreach(t nvshmem::nvshmem_host nvshmem::nvshmem_device gshmem::gshmem_host gshmem::gshmem_device)
  string(REPLACE "::" "_" n ${t})
  add_executable(${n} ${CMAKE_BINARY_DIR}/m.c)
  target_link_libraries(${n} ${t})
endforeach()
`), 0o644))
	out, err := exec.Command(cmake, "-S", src, "-B", filepath.Join(src, "b"), "-DCMAKE_PREFIX_PATH="+prefix).CombinedOutput()
	require.NoError(t, err, string(out))
}
