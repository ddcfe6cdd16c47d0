package main

import (
	"errors"
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

// nvccCommand is the command gshmem nvcc runs.
func nvccCommand(nvcc, prefix string, args []string) []string {
	cmd := strings.Fields(nvcc)
	cmd = append(cmd, "-I"+filepath.Join(prefix, "include"))
	cmd = append(cmd, args...)
	if len(args) > 0 && !nvccCompileOnly(args) {
		lib := filepath.Join(prefix, "lib")
		cmd = append(cmd, "-L"+lib, "-Xlinker", "-rpath,"+lib, "-lmpi_abi")
	}
	return cmd
}

func nvccCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "nvcc [-show] [--prefix DIR] [NVCC ARGS...]",
		Short: "compile CUDA code that includes gshmem.cuh and link it against libmpi_abi.so.1",
		Long: `nvcc runs nvcc (GSHMEM_NVCC, default nvcc: the user's own) with the include
path of gshmem.h and gshmem.cuh and, when linking, libmpi_abi.so.1 with an
rpath: the same as

  nvcc -I$PREFIX/include app.cu -L$PREFIX/lib -Xlinker -rpath,$PREFIX/lib -lmpi_abi

Kernels built so (whole-program or -rdc=true, where one .cu file defines
GSHMEM_STATE_DEFINE before including gshmem.cuh) have their device state
bound by gshmem_init; modules built with -ptx or -cubin are bound with
gshmemx_cumodule_init. -show prints the command instead. The installation is
--prefix, else GSHMEM_ABI_PREFIX, else the one this gshmem binary belongs to;
make one with GOFLAGS=-tags=cuda gshmem abi install.`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			var rest []string
			var prefix string
			show := false
			for i := 0; i < len(args); i++ {
				switch a := args[i]; {
				case a == "-show" || a == "--show":
					show = true
				case a == "--prefix" && i+1 < len(args):
					prefix = args[i+1]
					i++
				case strings.HasPrefix(a, "--prefix="):
					prefix = strings.TrimPrefix(a, "--prefix=")
				case a == "--help" || a == "-help":
					return cmd.Help()
				default:
					rest = append(rest, a)
				}
			}
			p, err := findPrefix(prefix)
			if err != nil {
				return err
			}
			nvcc := os.Getenv("GSHMEM_NVCC")
			if nvcc == "" {
				nvcc = "nvcc"
			}
			argv := nvccCommand(nvcc, p, rest)
			if show {
				fmt.Fprintln(cmd.OutOrStdout(), strings.Join(argv, " "))
				return nil
			}
			x := exec.Command(argv[0], argv[1:]...)
			x.Stdin, x.Stdout, x.Stderr = os.Stdin, os.Stdout, os.Stderr
			if err := x.Run(); err != nil {
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					return exitCode(ee.ExitCode())
				}
				return err
			}
			return nil
		},
	}
}

// installKernelHeaders installs the device API, gshmem.cuh, beside gshmem.h.
func installKernelHeaders(root, prefix string) error {
	return copyFile(filepath.Join(root, "kernels", "cuda", "gshmem.cuh"), filepath.Join(prefix, "include", "gshmem.cuh"), 0o644)
}
