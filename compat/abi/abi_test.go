//go:build cgo

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat/internal/p2pstate"
	"github.com/gshmem/gshmem/windows"
)

// The tests build gshmem and the library once per test binary (gshmem abi
// install into a temporary prefix), compile the C programs of testdata
// with the installed mpicc and mpicxx, and run them under gshmem run.

var tool struct {
	once   sync.Once
	prefix string // the installation
	bin    string // compiled test programs
	skip   string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if tool.prefix != "" {
		os.RemoveAll(filepath.Dir(tool.prefix))
	}
	os.Exit(code)
}

// cgoAvailable says why the library cannot be built here, or "".
func cgoAvailable() string {
	out, err := exec.Command("go", "env", "CGO_ENABLED").Output()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		return "cgo is disabled (CGO_ENABLED=0): libmpi_abi.so.1 needs cgo"
	}
	if _, err := exec.LookPath("cc"); err != nil {
		return "no cc on PATH: libmpi_abi.so.1 and its C tests need a C compiler"
	}
	return ""
}

func setup(t *testing.T) {
	t.Helper()
	tool.once.Do(func() {
		if tool.skip = cgoAvailable(); tool.skip != "" {
			return
		}
		dir, err := os.MkdirTemp("", "abi-test-")
		if err != nil {
			tool.err = err
			return
		}
		tool.prefix, tool.bin = filepath.Join(dir, "prefix"), filepath.Join(dir, "bin")
		if err := os.MkdirAll(tool.bin, 0o755); err != nil {
			tool.err = err
			return
		}
		gshmem := filepath.Join(dir, "gshmem")
		if out, err := exec.Command("go", "build", "-o", gshmem, "../../cmd/gshmem").CombinedOutput(); err != nil {
			tool.err = fmt.Errorf("building gshmem: %v\n%s", err, out)
			return
		}
		if out, err := exec.Command(gshmem, "abi", "install", "--prefix", tool.prefix, "--src", "../..").CombinedOutput(); err != nil {
			tool.err = fmt.Errorf("gshmem abi install: %v\n%s", err, out)
		}
	})
	if tool.skip != "" {
		t.Skip(tool.skip)
	}
	require.NoError(t, tool.err)
}

// compile builds testdata/src (C, or C++ for .cpp) with the installed
// wrapper and returns the executable; a source and flags compiled before
// (by prebuild or an earlier test) are not compiled again.
func compile(t *testing.T, src string, extra ...string) string {
	t.Helper()
	setup(t)
	prebuild()
	p := program{src: src, extra: extra}
	b := buildOf(p)
	b.do(p)
	wrapper := "mpicc"
	if strings.HasSuffix(src, ".cpp") {
		wrapper = "mpicxx"
	}
	require.NoError(t, b.err, "%s %s\n%s", wrapper, strings.Join(b.args, " "), b.out)
	return b.exe
}

// result is a finished job.
type result struct {
	code   int
	stdout string
	stderr string
}

// run starts exe as n processes under gshmem run (mpiexec), or alone when
// n is 0 (an MPI singleton).
func run(t *testing.T, n int, exe string) result {
	t.Helper()
	return runArgs(t, n, exe)
}

// runArgs is run with arguments for the program.
func runArgs(t *testing.T, n int, exe string, args ...string) result {
	t.Helper()
	return runLaunched(t, n, nil, nil, exe, args...)
}

// runLaunched is runArgs with variables added to the job's environment
// and flags for the launcher (mpiexec, that is gshmem run).
func runLaunched(t *testing.T, n int, env, flags []string, exe string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var cmd *exec.Cmd
	if n == 0 {
		cmd = exec.CommandContext(ctx, exe, args...)
	} else {
		argv := append(append(slices.Clone(flags), "-np", fmt.Sprint(n), exe), args...)
		cmd = exec.CommandContext(ctx, filepath.Join(tool.prefix, "bin", "mpiexec"), argv...)
	}
	cmd.Env = append(append(os.Environ(), "GSHMEM_TCP_ADDR=127.0.0.1"), env...)
	// On the deadline, end the launcher and its PEs together (their own
	// process group), and stop waiting for output a survivor still holds
	// open: a hung job must fail the test, not hang it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s timed out\nstdout:\n%s\nstderr:\n%s", exe, so.String(), se.String())
	r := result{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

// runOK runs a test program that must succeed and print want on every
// rank.
func runOK(t *testing.T, n int, exe, want string) {
	t.Helper()
	r := run(t, n, exe)
	require.Equal(t, 0, r.code, "exit status of %s on %d\nstdout:\n%s\nstderr:\n%s", exe, n, r.stdout, r.stderr)
	ranks := max(n, 1)
	require.Equal(t, ranks, strings.Count(r.stdout, want), "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
}

func TestEnvironment(t *testing.T) {
	exe := compile(t, "env.c")
	runOK(t, 0, exe, "env ok 0/1") // alone: a singleton job
	runOK(t, 2, exe, "env ok")
}

// TestWtime checks MPI_Wtime against CLOCK_MONOTONIC with each clock it
// can read: the counter where this machine's is invariant, and
// clock_gettime when GSHMEM_MPI_WTIME=clock asks for it.
func TestWtime(t *testing.T) {
	exe := compile(t, "wtime.c", "-pthread")
	runOK(t, 2, exe, "wtime ok")
	t.Setenv("GSHMEM_MPI_WTIME", "clock")
	runOK(t, 1, exe, "wtime ok 0 clock\n")
	t.Setenv("GSHMEM_MPI_WTIME", "rdtsc")
	r := run(t, 1, exe)
	require.NotEqual(t, 0, r.code, "a misspelt clock must fail MPI_Init:\n%s", r.stdout)
	require.Contains(t, r.stderr, "GSHMEM_MPI_WTIME")
}

func TestPointToPoint(t *testing.T) {
	exe := compile(t, "p2p.c")
	runOK(t, 2, exe, "p2p ok")
	runOK(t, 3, exe, "p2p ok")
}

// TestDerivedFastPath compares small derived datatypes through MPI_Send
// and MPI_Recv (p2p.c packs and scatters them) with MPI_Pack, MPI_Unpack
// and a contiguous message, over random types (testdata/p2pdtype.c).
func TestDerivedFastPath(t *testing.T) {
	runOK(t, 2, compile(t, "p2pdtype.c"), "p2pdtype ok")
}

// TestEagerFastPath runs the C fast path of MPI_Send and MPI_Recv beside
// the Go engine's calls (testdata/p2pfast.c).
func TestEagerFastPath(t *testing.T) {
	exe := compile(t, "p2pfast.c")
	runOK(t, 2, exe, "p2pfast ok")
	runOK(t, 3, exe, "p2pfast ok")
	runOK(t, 4, exe, "p2pfast ok")
}

func TestCommunicatorsAndGroups(t *testing.T) {
	exe := compile(t, "comm.c")
	runOK(t, 4, exe, "comm ok")
	runOK(t, 1, exe, "comm ok")
}

func TestCollectives(t *testing.T) {
	exe := compile(t, "coll.c")
	runOK(t, 1, exe, "coll ok")
	runOK(t, 3, exe, "coll ok")
	runOK(t, 4, exe, "coll ok")
}

func TestRMA(t *testing.T) {
	exe := compile(t, "rma.c")
	runOK(t, 2, exe, "rma ok")
	runOK(t, 3, exe, "rma ok")
}

// TestRMAHotPaths runs rma.c's C paths beside the Go path on the same
// windows (every rank mapped: one node), and the same program with each
// rank on its own node, where no rank is mapped and every call is Go's.
func TestRMAHotPaths(t *testing.T) {
	exe := compile(t, "rmafast.c")
	runOK(t, 2, exe, "rmafast ok")
	runOK(t, 4, exe, "rmafast ok")
	t.Run("node per rank", func(t *testing.T) {
		t.Setenv("GSHMEM_NODE_ID", "%r")
		runOK(t, 3, exe, "rmafast ok")
	})
}

func TestErrorClassesAndHandlers(t *testing.T) {
	exe := compile(t, "errors.c")
	runOK(t, 2, exe, "errors ok")
}

func TestErrorsAreFatal(t *testing.T) {
	exe := compile(t, "fatal.c")
	r := run(t, 2, exe)
	require.Equal(t, 6, r.code, "exit status: MPI_ERR_RANK\nstderr:\n%s", r.stderr)
	require.Contains(t, r.stderr, "MPI_Send: rank 1:")
	require.Contains(t, r.stderr, "MPI_ERR_RANK")
	require.NotContains(t, r.stdout, "still running")
}

func TestErrorsWithoutCommunicator(t *testing.T) {
	exe := compile(t, "errworld.c")
	r := run(t, 1, exe)
	require.Contains(t, r.stdout, "errworld ok", "stderr:\n%s", r.stderr)
	require.NotContains(t, r.stdout, "not fatal")
	require.Equal(t, 2, r.code, "MPI_ERR_COUNT\nstderr:\n%s", r.stderr)
	require.Contains(t, r.stderr, "MPI_Type_contiguous: rank 0:")
}

func TestAbort(t *testing.T) {
	exe := compile(t, "abort.c")
	r := run(t, 3, exe)
	require.Equal(t, 7, r.code, "stderr:\n%s", r.stderr)
	require.Contains(t, r.stderr, "MPI_Abort called by rank 1 with error code 7")
	require.NotContains(t, r.stdout, "not aborted")
}

func TestPMPIInterposition(t *testing.T) {
	setup(t)
	lib := filepath.Join(tool.bin, "libprof.so")
	out, err := exec.Command(filepath.Join(tool.prefix, "bin", "mpicc"), "-Wall", "-Werror", "-shared", "-fPIC",
		"-o", lib, filepath.Join("testdata", "prof.c")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	exe := compile(t, "pmpi.c", "-L"+tool.bin, "-Wl,-rpath,"+tool.bin, "-lprof")
	runOK(t, 2, exe, "pmpi ok")
}

func TestCxx(t *testing.T) {
	if _, err := exec.LookPath("c++"); err != nil {
		t.Skip("no c++ on PATH: the C++ test needs a C++ compiler")
	}
	exe := compile(t, "hello.cpp")
	runOK(t, 2, exe, "cxx ok")
}

// TestStateLayout checks that state.go mirrors state.h: every field at
// the C compiler's offset with its size, every C field mirrored, the
// structs of one size.
func TestStateLayout(t *testing.T) {
	if cgoAvailable() != "" {
		t.Skip(cgoAvailable())
	}
	c := cLayout()
	seen := map[string]bool{}
	for _, m := range []struct {
		name string
		typ  reflect.Type
	}{
		{"abi_obj", reflect.TypeFor[objHeader]()},
		{"abi_comm", reflect.TypeFor[commState]()},
		{"abi_win", reflect.TypeFor[winState]()},
		{"abi_state", reflect.TypeFor[globalState]()},
		{"abi_target", reflect.TypeFor[targetState]()},
		{"abi_epoch", reflect.TypeFor[epochState]()},
		{"abi_shm_obj", reflect.TypeFor[shmObj]()},
		{"abi_shmem", reflect.TypeFor[shmState]()},
		{"abi_p2p", reflect.TypeFor[p2pstate.Engine]()},
		{"abi_p2p_peer", reflect.TypeFor[p2pstate.Peer]()},
	} {
		seen[m.name] = true
		require.Equal(t, c[m.name].size, m.typ.Size(), "size of %s", m.name)
		for i := range m.typ.NumField() {
			f := m.typ.Field(i)
			key := m.name + "." + f.Tag.Get("c")
			cf, ok := c[key]
			require.True(t, ok, "%s.%s: no C field %s", m.typ.Name(), f.Name, key)
			require.Equal(t, cf.off, f.Offset, "offset of %s", key)
			require.Equal(t, cf.size, f.Type.Size(), "size of %s", key)
			seen[key] = true
		}
	}
	for k := range c {
		require.True(t, seen[k], "C field %s has no Go mirror", k)
	}
	require.Equal(t, map[string]int{
		"ABI_P2P_CELL": p2pstate.Cell, "ABI_P2P_HDR": p2pstate.HdrSize,
		"ABI_P2P_EAGER": p2pstate.KindEager, "ABI_P2P_CREDIT_BASE": p2pstate.CreditBase,
		"ABI_P2P_TAG_BARRIER": p2pstate.TagBarrier, "ABI_P2P_COLL_BIT": p2pstate.CollBit,
	}, cConstants())
}

// TestEpochConstants checks that rma.c reads windows' epoch bytes and
// lock words with windows' values.
func TestEpochConstants(t *testing.T) {
	if cgoAvailable() != "" {
		t.Skip(cgoAvailable())
	}
	want := map[string]int{
		"AccessNone": int(windows.AccessNone), "AccessOpen": int(windows.AccessOpen), "AccessLockAll": int(windows.AccessLockAll), "AccessOpening": int(windows.AccessOpening),
		"LockExclusive": int(windows.LockExclusive), "LockShared": int(windows.LockShared), "LockNoCheck": int(windows.LockNoCheck), "LockTaking": int(windows.LockTaking),
		"FenceNone": int(windows.FenceNone), "LockReaderInc": int(windows.LockReaderInc), "LockWriterBits": int(windows.LockWriterBits),
		"EpochSize": windows.EpochSize,
		"DynHeader": windows.DynHeader, "DynSlots": windows.DynSlots, "DynSlotBytes": windows.DynSlotBytes,
		"DynTable": windows.DynTable, "DynSlotPool": windows.DynSlotPool,
	}
	require.Equal(t, want, cEpochConstants())
}

// abiFunctions is the list of entry points in the ABI tables.
func abiFunctions(t *testing.T) []string {
	data, err := os.ReadFile("internal/gen/abi.txt")
	require.NoError(t, err)
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "func "); ok {
			_, sig, _ := strings.Cut(rest, " ")
			name, _, _ := strings.Cut(sig, "(")
			names = append(names, name)
		}
	}
	return names
}

// TestExportedSymbols checks with nm -D that the library exports every
// entry point of the standard ABI: PMPI_X strong (T), MPI_X weak (W).
func TestExportedSymbols(t *testing.T) {
	setup(t)
	if _, err := exec.LookPath("nm"); err != nil {
		t.Skip("no nm on PATH")
	}
	out, err := exec.Command("nm", "-D", "--defined-only", filepath.Join(tool.prefix, "lib", "libmpi_abi.so.1")).Output()
	require.NoError(t, err)
	kind := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			kind[f[2]] = f[1]
		}
	}
	names := abiFunctions(t)
	require.Len(t, names, 664)
	for _, n := range names {
		require.Equal(t, "T", kind["PMPI_"+n], "PMPI_%s", n)
		require.Equal(t, "W", kind["MPI_"+n], "MPI_%s", n)
	}
	require.Equal(t, "T", kind["MPIX_Query_cuda_support"])
	soname, err := exec.Command("readelf", "-d", filepath.Join(tool.prefix, "lib", "libmpi_abi.so.1")).Output()
	if err == nil {
		require.Contains(t, string(soname), "[libmpi_abi.so.1]")
	}
}

// TestWrapperShow checks mpicc -show: the include path, the library and
// its rpath, and no linker flags when only compiling.
func TestWrapperShow(t *testing.T) {
	setup(t)
	mpicc := filepath.Join(tool.prefix, "bin", "mpicc")
	out, err := exec.Command(mpicc, "-show", "-o", "x", "x.c").Output()
	require.NoError(t, err)
	lib := filepath.Join(tool.prefix, "lib")
	require.Equal(t, fmt.Sprintf("cc -I%s -o x x.c -L%s -Wl,-rpath,%s -lmpi_abi\n", filepath.Join(tool.prefix, "include"), lib, lib), string(out))
	out, err = exec.Command(mpicc, "-show", "-c", "x.c").Output()
	require.NoError(t, err)
	require.NotContains(t, string(out), "-lmpi_abi")
	out, err = exec.Command(filepath.Join(tool.prefix, "bin", "mpicxx"), "-show", "y.cpp").Output()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(out), "c++ "), "%s", out)
	pc, err := os.ReadFile(filepath.Join(lib, "pkgconfig", "mpi.pc"))
	require.NoError(t, err)
	require.Contains(t, string(pc), "-lmpi_abi")
	_, err = os.Stat(filepath.Join(lib, "libmpi_abi.so"))
	require.NoError(t, err)
}

func TestTopologiesAttributesAllocMem(t *testing.T) {
	exe := compile(t, "topo.c")
	runOK(t, 4, exe, "topo ok")
	runOK(t, 3, exe, "topo ok")
}

// TestExampleHello builds and runs examples/c/hello.c as the README's C
// quick start does.
func TestExampleHello(t *testing.T) {
	setup(t)
	exe := filepath.Join(tool.bin, "hello")
	out, err := exec.Command(filepath.Join(tool.prefix, "bin", "mpicc"), "-o", exe, "../../examples/c/hello.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	r := run(t, 4, exe)
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	require.Contains(t, r.stdout, "hello from rank 0 of 4")
	require.Contains(t, r.stdout, "token 4, sum of ranks 6")
}

func TestUserOps(t *testing.T) {
	exe := compile(t, "userop.c")
	runOK(t, 3, exe, "userop ok")
	runOK(t, 1, exe, "userop ok")
}

// TestUserOpsDerived runs user ops over a vector and a type whose data
// starts inside its instances, in every reduction, on the world and on an
// intercommunicator of its halves (uneven at 3, even at 4).
func TestUserOpsDerived(t *testing.T) {
	exe := compile(t, "useropdt.c")
	runOK(t, 3, exe, "useropdt ok")
	runOK(t, 4, exe, "useropdt ok")
	runOK(t, 1, exe, "useropdt ok")
}

func TestCommAttributes(t *testing.T) {
	exe := compile(t, "attr.c")
	runOK(t, 2, exe, "attr ok")
}

func TestPackAttributesInfoGroups(t *testing.T) {
	exe := compile(t, "misc.c")
	runOK(t, 3, exe, "misc ok")
	runOK(t, 1, exe, "misc ok")
}

func TestDerivedDatatypes(t *testing.T) {
	exe := compile(t, "dtypes.c")
	runOK(t, 3, exe, "dtypes ok")
	runOK(t, 1, exe, "dtypes ok")
}

func TestDatatypeEngine(t *testing.T) {
	exe := compile(t, "dtypes2.c")
	runOK(t, 2, exe, "dtypes2 ok")
	runOK(t, 3, exe, "dtypes2 ok")
}

// TestPairTypes checks the MAXLOC/MINLOC pair types' sizes and every path
// that carries them.
func TestPairTypes(t *testing.T) {
	exe := compile(t, "pairs.c")
	runOK(t, 1, exe, "pairs ok")
	runOK(t, 4, exe, "pairs ok")
}

func TestNonblockingCollectives(t *testing.T) {
	exe := compile(t, "nbc.c")
	runOK(t, 1, exe, "nbc ok")
	runOK(t, 3, exe, "nbc ok")
	runOK(t, 4, exe, "nbc ok")
}

// TestOSU builds the OSU micro-benchmarks from OSU_SRC_DIR (an unpacked
// OMB 7.x source tree, not part of this repository) with ./configure
// CC=mpicc, the way an existing autotools project is built against
// gshmem, and runs each benchmark briefly on 2 processes. It is skipped
// when OSU_SRC_DIR is unset.
func TestOSU(t *testing.T) {
	src := os.Getenv("OSU_SRC_DIR")
	if src == "" {
		t.Skip("OSU_SRC_DIR is unset: set it to an OSU micro-benchmarks source tree to build and run it against libmpi_abi")
	}
	setup(t)
	dir := filepath.Join(tool.bin, "osu")
	// cp -a keeps the timestamps, so make does not rerun the autotools.
	out, err := exec.Command("cp", "-a", src, dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	bin := filepath.Join(tool.prefix, "bin")
	for _, step := range [][]string{
		{"./configure", "CC=" + filepath.Join(bin, "mpicc"), "CXX=" + filepath.Join(bin, "mpicxx")},
		{"make", "-j2"},
	} {
		cmd := exec.Command(step[0], step[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s\n%s", strings.Join(step, " "), out)
	}
	for _, b := range []string{
		"startup/osu_init", "startup/osu_hello",
		"pt2pt/standard/osu_latency", "pt2pt/standard/osu_bw", "pt2pt/persistent/osu_latency_persistent",
		"one-sided/osu_put_latency", "one-sided/osu_get_latency", "one-sided/osu_acc_latency",
		"one-sided/osu_fop_latency", "one-sided/osu_cas_latency", "one-sided/osu_put_bw",
		"collective/blocking/osu_barrier", "collective/blocking/osu_allreduce", "collective/blocking/osu_alltoallw",
		"collective/non_blocking/osu_iallreduce", "collective/non_blocking/osu_ibarrier",
	} {
		r := runArgs(t, 2, filepath.Join(dir, "c", "mpi", b), "-m", "1:1024", "-i", "20", "-x", "2")
		require.Equal(t, 0, r.code, "%s\nstdout:\n%s\nstderr:\n%s", b, r.stdout, r.stderr)
	}
}

func TestMatchedProbeAndIsendrecv(t *testing.T) {
	exe := compile(t, "mprobe.c")
	runOK(t, 2, exe, "mprobe ok")
	runOK(t, 3, exe, "mprobe ok")
}

func TestLargeCountForms(t *testing.T) {
	exe := compile(t, "largecount.c")
	runOK(t, 2, exe, "largecount ok")
}

func TestPersistentCollectives(t *testing.T) {
	exe := compile(t, "pcoll.c")
	runOK(t, 3, exe, "pcoll ok")
}

func TestNeighborhoodCollectives(t *testing.T) {
	exe := compile(t, "neighbor.c")
	runOK(t, 1, exe, "neighbor ok")
	runOK(t, 2, exe, "neighbor ok")
	runOK(t, 4, exe, "neighbor ok")
}

func TestCancelGrequestsAndStatusQueries(t *testing.T) {
	exe := compile(t, "requests.c")
	runOK(t, 1, exe, "requests ok")
	runOK(t, 2, exe, "requests ok")
}

func TestBufferedAndPartitionedModes(t *testing.T) {
	exe := compile(t, "modes.c", "-pthread")
	runOK(t, 1, exe, "modes ok")
	runOK(t, 2, exe, "modes ok")
	runOK(t, 3, exe, "modes ok")
}

// TestThreadMultiple runs testdata/threads.c: four threads per rank call
// MPI at once at MPI_THREAD_MULTIPLE (point-to-point with per-thread tags,
// MPI_ANY_SOURCE, matched probes, collectives on per-thread communicators,
// RMA on per-thread windows, requests completed by another thread).
func TestThreadMultiple(t *testing.T) {
	exe := compile(t, "threads.c", "-pthread")
	runOK(t, 2, exe, "threads ok")
	runOK(t, 3, exe, "threads ok")
}

// TestThreadWinLocks runs testdata/lockthreads.c: a thread per target
// locks its target of one window (shared and exclusive in turn) while the
// others lock theirs, and two threads locking one target at once get
// MPI_ERR_RMA_SYNC, never a second hold or a lock word left wrong.
func TestThreadWinLocks(t *testing.T) {
	exe := compile(t, "lockthreads.c", "-pthread")
	runOK(t, 2, exe, "lockthreads ok")
	runOK(t, 4, exe, "lockthreads ok")
}

// TestThreadIdup runs testdata/idupthreads.c: threads start MPI_Comm_idup
// of their own communicators at once (several outstanding each, beside an
// MPI_Comm_dup), then take turns at MPI_Comm_idup of one shared
// communicator; every new communicator is used and checked.
func TestThreadIdup(t *testing.T) {
	exe := compile(t, "idupthreads.c", "-pthread")
	runOK(t, 2, exe, "idupthreads ok")
	runOK(t, 3, exe, "idupthreads ok")
}

// TestThreadCommCreation runs testdata/commthreads.c: four threads per
// rank create communicators at once, each from its own parent (dup,
// split, create, create_group, an intercommunicator merged back), and
// use each one.
func TestThreadCommCreation(t *testing.T) {
	exe := compile(t, "commthreads.c", "-pthread")
	runOK(t, 2, exe, "commthreads ok")
	runOK(t, 3, exe, "commthreads ok")
}
