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

// The build systems' probes of the installed wrappers: examples/c's
// CMakeLists.txt (CMake's FindMPI), meson.build (Meson's MPI dependency)
// and Makefile build hello.c against the installation, and the program
// runs. Each skips, saying so, where its tool is not installed
// (.ci/packages-abi installs them).

// buildEnv is the environment a build system runs in: the installation's
// bin first on PATH, as the README says, and no pkg-config directory but
// an empty one, so that another MPI's development package (Meson asks
// pkg-config for Open MPI's ompi-c first) cannot stand in for gshmem's.
func buildEnv(t *testing.T) []string {
	empty := t.TempDir()
	return append(os.Environ(),
		"PATH="+filepath.Join(tool.prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MPICC="+filepath.Join(tool.prefix, "bin", "mpicc"),
		"PKG_CONFIG_LIBDIR="+empty, "PKG_CONFIG_PATH="+empty)
}

// needTool skips t when name is not on PATH.
func needTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("no %s on PATH (Debian package %s, .ci/packages-abi installs it): this build system's probe of mpicc is not checked", name, pkg)
	}
}

// inDir runs argv in dir with env and fails t with its output on error.
func inDir(t *testing.T, dir string, env []string, argv ...string) string {
	t.Helper()
	c := exec.Command(argv[0], argv[1:]...)
	c.Dir, c.Env = dir, env
	out, err := c.CombinedOutput()
	require.NoError(t, err, "%s\n%s", strings.Join(argv, " "), out)
	return string(out)
}

// helloRuns runs a built hello on 2 PEs.
func helloRuns(t *testing.T, exe string) {
	t.Helper()
	r := run(t, 2, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "token 2, sum of ranks 1")
}

func TestBuildSystems(t *testing.T) {
	setup(t)
	src, err := filepath.Abs("../../examples/c")
	require.NoError(t, err)
	lib := filepath.Join(tool.prefix, "lib")
	t.Run("Make", func(t *testing.T) {
		t.Parallel()
		needTool(t, "make", "make")
		dir := t.TempDir()
		for _, f := range []string{"Makefile", "hello.c"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
		}
		inDir(t, dir, buildEnv(t), "make", "MPICC="+filepath.Join(tool.prefix, "bin", "mpicc"))
		helloRuns(t, filepath.Join(dir, "hello"))
	})
	t.Run("CMake", func(t *testing.T) {
		t.Parallel()
		needTool(t, "cmake", "cmake")
		dir := t.TempDir()
		env := buildEnv(t)
		out := inDir(t, dir, env, "cmake", "-S", src, "-B", dir)
		require.Contains(t, out, "Found MPI_C:")
		cache, err := os.ReadFile(filepath.Join(dir, "CMakeCache.txt"))
		require.NoError(t, err)
		require.Contains(t, string(cache), filepath.Join(lib, "libmpi_abi.so"), "FindMPI chose another MPI's library")
		inDir(t, dir, env, "cmake", "--build", dir)
		helloRuns(t, filepath.Join(dir, "hello"))
	})
	t.Run("Meson", func(t *testing.T) {
		t.Parallel()
		needTool(t, "meson", "meson")
		needTool(t, "ninja", "ninja-build")
		dir := filepath.Join(t.TempDir(), "build")
		env := buildEnv(t)
		out := inDir(t, src, env, "meson", "setup", dir)
		require.Contains(t, out, "Run-time dependency MPI for c found: YES 5.0.0")
		inDir(t, dir, env, "ninja")
		helloRuns(t, filepath.Join(dir, "hello"))
	})
}
