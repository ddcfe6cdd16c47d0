package main

import (
	"os"
	"path/filepath"
	"strings"
)

// cmakeConfig is PREFIX/lib/cmake/NAME/NAMEConfig.cmake: find_package(NVSHMEM)
// gives nvshmem::nvshmem_host and nvshmem::nvshmem_device,
// find_package(gshmem) gives gshmem::gshmem_host and gshmem::gshmem_device.
// The host target is libmpi_abi.so with the include directory (a program
// of host and stream-ordered calls links it alone); the device target adds
// libgshmem_device.a, the state of -rdc=true device code, when it is
// installed. The prefix is found from the file's own place, so an
// installation may move.
const cmakeConfig = `# @PKG@Config.cmake: gshmem's libmpi_abi.so as @PKG@'s targets.
# Written by gshmem abi install.
get_filename_component(_gshmem_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(@PKG@_FOUND TRUE)
set(@PKG@_INCLUDE_DIRS "${_gshmem_prefix}/include")
set(@PKG@_LIBRARIES "${_gshmem_prefix}/lib/libmpi_abi.so")
if(NOT TARGET @LOWER@::@LOWER@_host)
  add_library(@LOWER@::@LOWER@_host SHARED IMPORTED)
  set_target_properties(@LOWER@::@LOWER@_host PROPERTIES
    IMPORTED_LOCATION "${_gshmem_prefix}/lib/libmpi_abi.so.1"
    IMPORTED_SONAME "libmpi_abi.so.1"
    INTERFACE_INCLUDE_DIRECTORIES "${_gshmem_prefix}/include")
endif()
if(NOT TARGET @LOWER@::@LOWER@_device)
  add_library(@LOWER@::@LOWER@_device INTERFACE IMPORTED)
  set(_gshmem_devlib "${_gshmem_prefix}/lib/libgshmem_device.a")
  if(EXISTS "${_gshmem_devlib}")
    set_target_properties(@LOWER@::@LOWER@_device PROPERTIES
      INTERFACE_LINK_LIBRARIES "${_gshmem_devlib};@LOWER@::@LOWER@_host")
  else()
    set_target_properties(@LOWER@::@LOWER@_device PROPERTIES
      INTERFACE_LINK_LIBRARIES "@LOWER@::@LOWER@_host")
  endif()
endif()
`

// installCMakeConfig writes the NVSHMEM and gshmem CMake packages.
func installCMakeConfig(prefix string) error {
	for _, name := range []string{"NVSHMEM", "gshmem"} {
		dir := filepath.Join(prefix, "lib", "cmake", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		text := strings.NewReplacer("@PKG@", name, "@LOWER@", strings.ToLower(name)).Replace(cmakeConfig)
		if err := os.WriteFile(filepath.Join(dir, name+"Config.cmake"), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
