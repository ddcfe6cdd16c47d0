package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// gshmem nvcc: stage 4 in C, kernels the user compiles with their own nvcc
// against gshmem.cuh (installed beside gshmem.h by gshmem abi install) and
// links to libmpi_abi, where gshmem_init binds the kernels' device state.

// nvccCompileOnly reports whether nvcc's args stop before the host link
// (object, PTX, cubin, fatbin, device-link object, static library,
// preprocessing or dependencies), when the wrapper must not add libraries.
func nvccCompileOnly(args []string) bool {
	for _, a := range args {
		switch a {
		case "-c", "--compile", "-E", "--preprocess", "-M", "-MM", "--generate-dependencies",
			"-ptx", "--ptx", "-cubin", "--cubin", "-fatbin", "--fatbin", "-dc", "--device-c",
			"-dw", "--device-w", "-dlink", "--device-link", "-lib", "--lib", "-optix-ir", "--optix-ir":
			return true
		}
	}
	return false
}

// nvccWrapper is gshmem nvcc: the user's nvcc, whose rpath goes through
// -Xlinker.
var nvccWrapper = &wrapper{name: "nvcc", lang: "CUDA", compilerEnv: "GSHMEM_NVCC", compiler: "nvcc",
	libs: []string{"mpi_abi"}, compileOnly: nvccCompileOnly,
	rpath: func(dir string) []string { return []string{"-Xlinker", "-rpath," + dir} }}

// nvccCommand is the command gshmem nvcc runs.
func nvccCommand(nvcc, prefix string, args []string) []string {
	return nvccWrapper.resolveWith(nvcc, prefix).command(args)
}

func nvccCmd() *cobra.Command {
	return wrapperCmd(nvccWrapper, "nvcc [QUERY] [--prefix DIR] [--device-lib] [NVCC ARGS...]",
		"compile CUDA code that includes gshmem.cuh and link it against libmpi_abi.so.1",
		`nvcc runs nvcc (GSHMEM_NVCC, default nvcc: the user's own) with the include
path of gshmem.h and gshmem.cuh and, when linking, libmpi_abi.so.1 with an
rpath: the same as

  nvcc -I$PREFIX/include app.cu -L$PREFIX/lib -Xlinker -rpath,$PREFIX/lib -lmpi_abi

Kernels built so (whole-program or -rdc=true, where one .cu file defines
GSHMEM_STATE_DEFINE before including gshmem.cuh) have their device state
bound by gshmem_init; modules built with -ptx or -cubin are bound with
gshmemx_cumodule_init. --device-lib builds $PREFIX/lib/libgshmem_device.a
instead (the state's definition as relocatable device code, NVSHMEM's
libnvshmem_device.a): a -rdc=true program whose link names -lgshmem_device
-lmpi_abi needs no GSHMEM_STATE_DEFINE; NVCC ARGS choose its architectures
(default sm_80, sm_90 and PTX). The installation is
--prefix, else GSHMEM_ABI_PREFIX, else the one this gshmem binary belongs to;
make one with GOFLAGS=-tags=cuda gshmem abi install.`, []string{"--device-lib"},
		func(cmd *cobra.Command, p string, a wrapperArgs) (bool, error) {
			if !a.own["--device-lib"] {
				return false, nil
			}
			argv := deviceLibCommand(nvccPath(), p, a.rest)
			if a.query != "" {
				fmt.Fprintln(cmd.OutOrStdout(), strings.Join(argv, " "))
				return true, nil
			}
			return true, runCompiler(argv)
		})
}

// installKernelHeaders installs the device API, gshmem.cuh, beside gshmem.h,
// and the source of libgshmem_device.a beside them.
func installKernelHeaders(root, prefix string) error {
	for _, f := range []string{"gshmem.cuh", "gshmem_coll.cuh", "gshmem_typed.cuh", deviceLibSource} {
		if err := copyFile(filepath.Join(root, "kernels", "cuda", f), filepath.Join(prefix, "include", f), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// deviceLibSource is the one unit that defines the device state under
// -rdc=true; libgshmem_device.a is it compiled.
const deviceLibSource = "gshmem_device.cu"

// defaultDeviceArch is what libgshmem_device.a is built for when the user
// names no architecture: the GPUs with system-scope atomics over peer
// mappings that gshmem.cuh targets, and PTX for newer ones.
var defaultDeviceArch = []string{
	"-gencode", "arch=compute_80,code=sm_80",
	"-gencode", "arch=compute_90,code=sm_90",
	"-gencode", "arch=compute_90,code=compute_90",
}

// deviceLibCommand is the nvcc command that builds PREFIX/lib/
// libgshmem_device.a: relocatable device code holding the state, for
// programs whose device link names -lgshmem_device (NVSHMEM's
// -lnvshmem_device) instead of defining GSHMEM_STATE_DEFINE in a .cu file.
// args may choose the architectures (-arch, -gencode) and the host compiler.
func deviceLibCommand(nvcc, prefix string, args []string) []string {
	cmd := strings.Fields(nvcc)
	cmd = append(cmd, "-I"+filepath.Join(prefix, "include"), "-rdc=true", "-lib")
	arch := false
	for _, a := range args {
		if strings.HasPrefix(a, "-arch") || strings.HasPrefix(a, "--gpu-architecture") ||
			strings.HasPrefix(a, "-gencode") || strings.HasPrefix(a, "--generate-code") {
			arch = true
		}
	}
	if !arch {
		cmd = append(cmd, defaultDeviceArch...)
	}
	cmd = append(cmd, args...)
	return append(cmd, "-o", filepath.Join(prefix, "lib", "libgshmem_device.a"),
		filepath.Join(prefix, "include", deviceLibSource))
}

// nvccPath is the user's nvcc: GSHMEM_NVCC, else nvcc on PATH.
func nvccPath() string {
	if v := os.Getenv("GSHMEM_NVCC"); v != "" {
		return v
	}
	return "nvcc"
}

// installDeviceLib builds libgshmem_device.a where an nvcc is found; without
// one the installation has none, and says how to build it later.
func installDeviceLib(cmd *cobra.Command, prefix string) {
	nvcc := nvccPath()
	if _, err := exec.LookPath(strings.Fields(nvcc)[0]); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: no nvcc (%s): no libgshmem_device.a; build it later with gshmem nvcc --device-lib\n", nvcc)
		return
	}
	argv := deviceLibCommand(nvcc, prefix, nil)
	x := exec.Command(argv[0], argv[1:]...)
	if out, err := x.CombinedOutput(); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: libgshmem_device.a did not build (%s: %v):\n%s", strings.Join(argv, " "), err, out)
	}
}
