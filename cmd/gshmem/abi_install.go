package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// gshmem abi install: build libmpi_abi.so.1 from the module's source with
// the go toolchain and install it as an MPI installation.

func abiCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "abi",
		Short: "the MPI-5.0 standard ABI library (libmpi_abi.so.1) for C and C++ programs",
	}
	c.AddCommand(abiInstallCmd())
	return c
}

func abiInstallCmd() *cobra.Command {
	var prefix, src string
	c := &cobra.Command{
		Use:   "install --prefix DIR [--src DIR]",
		Short: "build libmpi_abi.so.1 and install mpi.h, gshmem.h, shmem.h, the library, pkg-config, mpicc/mpicxx/mpiexec and oshcc/oshc++/oshrun under DIR",
		Long: `install builds compat/abi with the go toolchain (cgo and a C compiler needed)
into DIR/lib/libmpi_abi.so.1 (+ the libmpi_abi.so link), and installs
DIR/include/mpi.h, mpi-ext.h and gshmem.h (the symmetric heap's C host API,
in the same library) and gshmem.cuh (its device API, for kernels built with
gshmem nvcc), DIR/lib/pkgconfig/mpi.pc, a copy of this gshmem binary as
DIR/bin/gshmem, DIR/bin/mpicc, mpicxx and mpiexec (gshmem
run), and OpenSHMEM's DIR/include/shmem.h, shmemx.h and pshmem.h with
DIR/bin/oshcc, oshc++ (oshCC, oshcxx), oshrun, nvshmrun (NVSHMEM's launcher name, also nvshmrun.hydra) and the shmemcc, shmemc++
and shmemrun aliases, so that PATH=DIR/bin:$PATH or make MPICC=DIR/bin/mpicc builds existing
MPI projects. --src is the gshmem source tree (default: the module of the
current directory).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if prefix == "" {
				return fmt.Errorf("--prefix is required")
			}
			return installABI(cmd, prefix, src)
		},
	}
	c.Flags().StringVar(&prefix, "prefix", "", "installation directory")
	c.Flags().StringVar(&src, "src", "", "gshmem source tree (default: found from the current directory)")
	return c
}

// moduleRoot finds the gshmem module's source directory.
func moduleRoot(src string) (string, error) {
	if src == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/gshmem/gshmem").Output()
		if err != nil {
			return "", fmt.Errorf("finding the gshmem source (run inside it or pass --src): %w", err)
		}
		src = strings.TrimSpace(string(out))
	}
	if _, err := os.Stat(filepath.Join(src, "compat", "abi", "include", "mpi.h")); err != nil {
		return "", fmt.Errorf("%s is not the gshmem source tree: %w", src, err)
	}
	return filepath.Abs(src)
}

// cudaBuild reports whether the library built with env is the CUDA-aware
// one: whether the build's tags (GOFLAGS=-tags=cuda) take in
// compat/abi/cudaaware.go, asked of the go tool rather than parsed here.
func cudaBuild(root string, env []string) (bool, error) {
	list := exec.Command("go", "list", "-f", `{{join .CgoFiles " "}}`, "./compat/abi")
	list.Dir, list.Env = root, env
	out, err := list.Output()
	if err != nil {
		return false, fmt.Errorf("listing compat/abi's files: %w", err)
	}
	return strings.Contains(" "+strings.TrimSpace(string(out))+" ", " cudaaware.go "), nil
}

// installExtHeader installs mpi-ext.h, whose MPIX_CUDA_AWARE_SUPPORT is 1
// for a CUDA-aware build: codes test the macro at compile time.
func installExtHeader(root, prefix string, env []string) error {
	src, err := os.ReadFile(filepath.Join(root, "compat", "abi", "include", "mpi-ext.h"))
	if err != nil {
		return err
	}
	cuda, err := cudaBuild(root, env)
	if err != nil {
		return err
	}
	const off = "#define MPIX_CUDA_AWARE_SUPPORT 0\n"
	if !bytes.Contains(src, []byte(off)) {
		return fmt.Errorf("mpi-ext.h: no %q line", strings.TrimSpace(off))
	}
	if cuda {
		src = bytes.Replace(src, []byte(off), []byte("#define MPIX_CUDA_AWARE_SUPPORT 1\n"), 1)
	}
	return os.WriteFile(filepath.Join(prefix, "include", "mpi-ext.h"), src, 0o644)
}

func installABI(cmd *cobra.Command, prefix, src string) error {
	root, err := moduleRoot(src)
	if err != nil {
		return err
	}
	prefix, err = filepath.Abs(prefix)
	if err != nil {
		return err
	}
	for _, d := range []string{"bin", "include", "lib/pkgconfig"} {
		if err := os.MkdirAll(filepath.Join(prefix, d), 0o755); err != nil {
			return err
		}
	}
	lib := filepath.Join(prefix, "lib", abiLib)
	build := exec.Command("go", "build", "-buildmode=c-shared",
		"-ldflags=-extldflags=-Wl,-soname,"+abiLib, "-o", lib, "./compat/abi")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	build.Stdout, build.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := build.Run(); err != nil {
		return fmt.Errorf("building %s: %w", abiLib, err)
	}
	// cgo writes its export header beside the library: internal, not an
	// MPI header.
	_ = os.Remove(strings.TrimSuffix(lib, filepath.Ext(lib)) + ".h")
	link := filepath.Join(prefix, "lib", "libmpi_abi.so")
	_ = os.Remove(link)
	if err := os.Symlink(abiLib, link); err != nil {
		return err
	}
	for _, h := range []string{"mpi.h", "mpi_fortran.h", "gshmem.h", "gshmemx.h", "shmem.h", "shmemx.h", "pshmem.h",
		"nvshmem.h", "nvshmemx.h", "nvshmemx_error.h", filepath.Join("non_abi", "nvshmemx_error.h")} {
		dst := filepath.Join(prefix, "include", h)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := copyFile(filepath.Join(root, "compat", "abi", "include", h), dst, 0o644); err != nil {
			return err
		}
	}
	// NVSHMEM's host library name: the same library, which exports every
	// host call under its nvshmem_ name too (znvshmem.c).
	nvLink := filepath.Join(prefix, "lib", "libnvshmem_host.so")
	_ = os.Remove(nvLink)
	if err := os.Symlink(abiLib, nvLink); err != nil {
		return err
	}
	// and its device library's: libgshmem_device.a, once built (here when
	// nvcc is found, or later by gshmem nvcc --device-lib).
	nvDev := filepath.Join(prefix, "lib", "libnvshmem_device.a")
	_ = os.Remove(nvDev)
	if err := os.Symlink("libgshmem_device.a", nvDev); err != nil {
		return err
	}
	if err := installCMakeConfig(prefix); err != nil {
		return err
	}
	if err := installExtHeader(root, prefix, build.Env); err != nil {
		return err
	}
	if err := installKernelHeaders(root, prefix); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	self := filepath.Join(prefix, "bin", "gshmem")
	if same, _ := sameFile(exe, self); !same {
		if err := copyFile(exe, self, 0o755); err != nil {
			return err
		}
	}
	scripts := map[string]string{
		"mpicc":  `exec "` + self + `" mpicc --prefix "` + prefix + `" "$@"`,
		"mpicxx": `exec "` + self + `" mpicxx --prefix "` + prefix + `" "$@"`,
		// mpiexec takes MPI's -np as well as -n.
		"mpiexec": `for a in "$@"; do
  if [ "$a" = "-np" ]; then a="-n"; fi
  set -- "$@" "$a"
  shift
done
exec "` + self + `" run "$@"`,
	}
	openshmemWrappers(scripts, self, prefix)
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(prefix, "bin", name), []byte("#!/bin/sh\n# gshmem's "+name+" (gshmem abi install)\n"+body+"\n"), 0o755); err != nil {
			return err
		}
	}
	pc := fmt.Sprintf(`prefix=%s
libdir=${prefix}/lib
includedir=${prefix}/include

Name: mpi
Description: gshmem's MPI-5.0 standard ABI library (libmpi_abi)
Version: 5.0
Cflags: -I${includedir}
Libs: -L${libdir} -Wl,-rpath,${libdir} -lmpi_abi
`, prefix)
	if err := os.WriteFile(filepath.Join(prefix, "lib", "pkgconfig", "mpi.pc"), []byte(pc), 0o644); err != nil {
		return err
	}
	if err := installFortran(cmd, root, prefix, self); err != nil {
		return err
	}
	installDeviceLib(cmd, prefix)
	fmt.Fprintf(cmd.OutOrStdout(), "installed %s under %s\n", abiLib, prefix)
	return nil
}

func copyFile(from, to string, mode os.FileMode) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(to); err == nil && bytes.Equal(old, b) {
		return nil
	}
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return os.Rename(tmp, to)
}

func sameFile(a, b string) (bool, error) {
	sa, err := os.Stat(a)
	if err != nil {
		return false, err
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, err
	}
	return os.SameFile(sa, sb), nil
}

// openshmemWrappers adds OpenSHMEM's wrappers to scripts: oshcc and
// shmemcc compile C as mpicc does (shmem.h is in the same library and
// include directory), oshc++, oshCC, oshcxx and shmemc++ compile C++ as
// mpicxx does, and oshrun and shmemrun start jobs as mpiexec does (-np or
// -n), as do nvshmrun and nvshmrun.hydra, the names NVSHMEM's install
// gives its launcher (Hydra's mpiexec).
func openshmemWrappers(scripts map[string]string, self, prefix string) {
	for _, name := range []string{"oshcc", "shmemcc"} {
		scripts[name] = `exec "` + self + `" mpicc --prefix "` + prefix + `" "$@"`
	}
	for _, name := range []string{"oshc++", "oshCC", "oshcxx", "shmemc++"} {
		scripts[name] = `exec "` + self + `" mpicxx --prefix "` + prefix + `" "$@"`
	}
	for _, name := range []string{"oshrun", "shmemrun", "nvshmrun", "nvshmrun.hydra"} {
		scripts[name] = scripts["mpiexec"]
	}
}
