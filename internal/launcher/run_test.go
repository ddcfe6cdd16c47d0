package launcher

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/gshmem/gshmem/internal/launchwire"
	"github.com/gshmem/gshmem/internal/placement"
)

type result struct {
	code                int
	err                 error
	stdout, stderr, log string
	took                time.Duration
}

// run runs the job described by cfg, filling in buffers for its output.
func run(t *testing.T, cfg Config) result {
	t.Helper()
	var stdout, stderr, log bytes.Buffer
	if cfg.Stdout == nil {
		cfg.Stdout = &stdout
	}
	cfg.Stderr, cfg.Log = &stderr, &log
	if cfg.Env == nil {
		cfg.Env = os.Environ()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	code, err := Run(ctx, cfg)
	r := result{code, err, stdout.String(), stderr.String(), log.String(), time.Since(start)}
	t.Logf("exit %d, err %v, took %v\nstdout:\n%s\nstderr:\n%s\nlog:\n%s", r.code, r.err, r.took, r.stdout, r.stderr, r.log)
	return r
}

// runMode runs n copies of this test binary acting as PEs in mode.
func runMode(t *testing.T, mode string, n int, cfg Config) result {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cfg.N, cfg.Argv = n, []string{exe}
	cfg.Env = childEnvFor(mode)
	return run(t, cfg)
}

// childEnvFor skips the race detector's one-second pause at exit, which
// would otherwise dominate the tests' run time.
func childEnvFor(mode string, extra ...string) []string {
	return append(append(os.Environ(), childModeVar+"="+mode, "GORACE=atexit_sleep_ms=0"), extra...)
}

func TestRunOK(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	// Values from an outer job must not leak into this one.
	env := childEnvFor("ok", launchwire.EnvRank+"=99", launchwire.EnvJobSecret+"=00", launchwire.EnvLocalAddr+"=@elsewhere", launchwire.EnvNPEs+"=1")
	r := run(t, Config{N: 4, Argv: []string{exe}, Env: env})
	require.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	sort.Strings(lines)
	assert.Equal(t, []string{"pe 0 of 4 ok", "pe 1 of 4 ok", "pe 2 of 4 ok", "pe 3 of 4 ok"}, lines)
	assert.Empty(t, r.log)
}

func TestRunFailureStopsOthers(t *testing.T) {
	t.Parallel()
	r := runMode(t, "exit3on1", 4, Config{})
	assert.NoError(t, r.err)
	assert.Equal(t, 3, r.code)
	assert.Regexp(t, `^gshmem run: PE 1 \(pid \d+\) exited with status 3; stopping the other 3 PEs\n$`, r.log)
	assert.Less(t, r.took, 5*time.Second)
}

func TestRunSigkilledPE(t *testing.T) {
	t.Parallel()
	r := runMode(t, "sigkill1", 3, Config{})
	assert.NoError(t, r.err)
	assert.Equal(t, 128+int(syscall.SIGKILL), r.code)
	assert.Regexp(t, `PE 1 \(pid \d+\) was killed by signal: killed; stopping the other 2 PEs`, r.log)
	assert.Less(t, r.took, 5*time.Second)
}

// TestRunKeepGoing: with KeepGoing (gshmem run --disable-auto-cleanup) a
// PE's death leaves the others running to their own exit, said once, and
// the job's status is the dead PE's.
func TestRunKeepGoing(t *testing.T) {
	t.Parallel()
	r := runMode(t, "survive", 3, Config{KeepGoing: true})
	assert.NoError(t, r.err)
	assert.Equal(t, 128+int(syscall.SIGKILL), r.code)
	assert.Regexp(t, `^gshmem run: PE 1 \(pid \d+\) was killed by signal: killed; the other 2 PEs go on \(--disable-auto-cleanup\)\n$`, r.log)
	assert.Contains(t, r.stdout, "pe 0 survived")
	assert.Contains(t, r.stdout, "pe 2 survived")
}

// TestRunKeepGoingStopped: a KeepGoing job whose survivors have exited
// kills the PE they left stopped, and says so.
func TestRunKeepGoingStopped(t *testing.T) {
	t.Parallel()
	r := runMode(t, "stop1", 3, Config{KeepGoing: true})
	assert.NoError(t, r.err)
	assert.Equal(t, 128+int(syscall.SIGKILL), r.code)
	assert.Regexp(t, `PE 1 \(pid \d+\) is stopped and every other PE has exited; killing it`, r.log)
	assert.Less(t, r.took, 10*time.Second)
}

func TestRunKillsAfterGrace(t *testing.T) {
	t.Parallel()
	// The PEs ignore SIGTERM, so only SIGKILL after the grace ends them.
	r := runMode(t, "stubborn", 3, Config{KillGrace: 300 * time.Millisecond})
	assert.NoError(t, r.err)
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.log, "PE 1 (pid ")
	assert.Less(t, r.took, 4*time.Second)
}

func TestRunAbort(t *testing.T) {
	t.Parallel()
	r := runMode(t, "abort", 3, Config{})
	assert.NoError(t, r.err)
	assert.Equal(t, 7, r.code)
	assert.Equal(t, "gshmem run: PE 0 called global exit with code 7: boom\n", r.log)
	assert.Less(t, r.took, 5*time.Second)
}

func TestRunAbortZero(t *testing.T) {
	t.Parallel()
	r := runMode(t, "abort0", 3, Config{})
	assert.NoError(t, r.err)
	assert.Equal(t, 0, r.code, "global exit with 0 ends the job successfully")
	assert.Empty(t, r.log)
	assert.Less(t, r.took, 5*time.Second)
}

func TestRunExitWithoutFinalize(t *testing.T) {
	t.Parallel()
	r := runMode(t, "nobye", 3, Config{})
	assert.NoError(t, r.err)
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `PE 1 \(pid \d+\) exited with status 0 without finalizing`, r.log)
	assert.Less(t, r.took, 5*time.Second)
}

func TestRunTagOutput(t *testing.T) {
	t.Parallel()
	r := runMode(t, "output", 3, Config{TagOutput: true})
	require.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
	out := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	sort.Strings(out)
	assert.Equal(t, []string{
		"[pe 0] out 0", "[pe 0] partial", "[pe 0] second line",
		"[pe 1] out 1", "[pe 1] partial", "[pe 1] second line",
		"[pe 2] out 2", "[pe 2] partial", "[pe 2] second line",
	}, out)
	errs := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	sort.Strings(errs)
	assert.Equal(t, []string{"[pe 0] err 0", "[pe 1] err 1", "[pe 2] err 2"}, errs)
}

func TestRunUntaggedOutput(t *testing.T) {
	t.Parallel()
	r := runMode(t, "output", 2, Config{})
	require.NoError(t, r.err)
	assert.Equal(t, 2, strings.Count(r.stdout, "second line\n"))
	assert.Equal(t, 2, strings.Count(r.stdout, "partial"))
	assert.Equal(t, 2, strings.Count(r.stderr, "err "))
}

func TestRunPlainPrograms(t *testing.T) {
	t.Parallel()
	r := run(t, Config{N: 3, Argv: []string{"echo", "hi"}})
	require.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
	assert.Equal(t, "hi\nhi\nhi\n", r.stdout)

	r = run(t, Config{N: 2, Argv: []string{"sh", "-c", `echo "$GSHMEM_RANK/$GSHMEM_NPES $GSHMEM_BOOTSTRAP"; [ $GSHMEM_RANK = 0 ] || { sleep 0.5; exit 1; }`}, TagOutput: true})
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "[pe 0] 0/2 local\n")
	assert.Contains(t, r.stdout, "[pe 1] 1/2 local\n")
	assert.Regexp(t, `PE 1 \(pid \d+\) exited with status 1\n`, r.log)

	r = run(t, Config{N: 2, Argv: []string{"gshmem-no-such-program"}})
	assert.Equal(t, 127, r.code)
	assert.ErrorIs(t, r.err, exec.ErrNotFound)

	notExec := filepath.Join(t.TempDir(), "data.txt")
	require.NoError(t, os.WriteFile(notExec, []byte("x"), 0o644))
	// NumCPU+1 PEs: the keeper's fork fails, and the launcher says so
	// alike.
	for _, n := range []int{2, runtime.NumCPU() + 1} {
		r = run(t, Config{N: n, Argv: []string{notExec}})
		assert.Equal(t, 126, r.code, "%d PEs", n)
		assert.ErrorIs(t, r.err, os.ErrPermission, "%d PEs", n)
	}

	r = run(t, Config{N: 0, Argv: []string{"true"}})
	assert.Error(t, r.err)
}

func TestRunGoPackage(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := filepath.Join(t.TempDir(), "hello")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module tmpprog\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(`package main

import "os"

func main() { os.Stdout.WriteString("hello from " + os.Getenv("GSHMEM_RANK") + " as " + os.Args[0] + "\n") }
`), 0o644))
	r := run(t, Config{N: 2, Argv: []string{dir}, TagOutput: true})
	require.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
	// Like go run, the PEs see the built binary as os.Args[0], so
	// programs that re-execute themselves work.
	assert.Regexp(t, `\[pe 0\] hello from 0 as /\S+/hello\n`, r.stdout)
	assert.Regexp(t, `\[pe 1\] hello from 1 as /\S+/hello\n`, r.stdout)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { nope }\n"), 0o644))
	r = run(t, Config{N: 2, Argv: []string{dir}})
	assert.Equal(t, 1, r.code)
	assert.ErrorContains(t, r.err, "building "+dir)
	assert.Contains(t, r.stderr, "undefined: nope")
}

func TestRunContextCancel(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var log bytes.Buffer
	start := time.Now()
	_, err = Run(ctx, Config{N: 2, Argv: []string{exe}, Env: childEnvFor("sleep"), Log: &log, Stderr: &log})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 4*time.Second)
	assert.Contains(t, log.String(), "stopping 2 PEs")
}

// readyWriter signals once n lines of "ready" were written.
type readyWriter struct {
	mu    sync.Mutex
	n     int
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n > 0 {
		if w.n -= bytes.Count(p, []byte("ready\n")); w.n <= 0 {
			close(w.ready)
		}
	}
	return len(p), nil
}

// Not parallel: it signals the test process itself.
func TestRunForwardsSignals(t *testing.T) {
	w := &readyWriter{n: 3, ready: make(chan struct{})}
	done := make(chan result, 1)
	go func() { done <- runMode(t, "signal", 3, Config{Stdout: w}) }()
	select {
	case <-w.ready:
	case <-time.After(15 * time.Second):
		t.Fatal("PEs did not start")
	}
	// The launcher has had SIGUSR1 under signal.Notify since before the
	// PEs started, so this cannot kill the test binary.
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGUSR1))
	r := <-done
	assert.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
	assert.Less(t, r.took, 10*time.Second)
}

func TestRunBackgroundChildHoldsOutput(t *testing.T) {
	t.Parallel()
	// The background sleep keeps the output pipe open after the PE exits;
	// the launcher must not wait for it.
	r := run(t, Config{N: 2, Argv: []string{"sh", "-c", "sleep 3 & echo started"}, TagOutput: true})
	require.NoError(t, r.err)
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "[pe 0] started\n")
	assert.Contains(t, r.stdout, "[pe 1] started\n")
	assert.Less(t, r.took, 2*time.Second)
}

// A PE that exits with a failure status just before another PE is killed
// by a signal (as a survivor that saw its peer vanish does) is not the one
// named: the launcher names the PE killed by the signal and exits with its
// code. A failure with no signal death behind it is still named, after
// the short grace.
func TestRunNamesTheKilledPE(t *testing.T) {
	t.Parallel()
	// PE 1 dies right after PE 0's exit, which it sees through a file.
	mark := filepath.Join(t.TempDir(), "pe0-exits")
	script := `if [ "$GSHMEM_RANK" = 0 ]; then touch "$1"; exit 2; fi
while [ ! -e "$1" ]; do sleep 0.01; done; sleep 0.01; kill -9 $$`
	r := run(t, Config{N: 2, Argv: []string{"/bin/sh", "-c", script, "sh", mark}})
	require.NoError(t, r.err)
	assert.Equal(t, 128+9, r.code)
	assert.Contains(t, r.log, "PE 1")
	assert.Contains(t, r.log, "killed by signal")
	assert.NotContains(t, r.log, "PE 0")

	script = `if [ "$GSHMEM_RANK" = 0 ]; then exit 3; else sleep 30; fi`
	r = run(t, Config{N: 2, Argv: []string{"/bin/sh", "-c", script}})
	require.NoError(t, r.err)
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.log, "PE 0")
	assert.Contains(t, r.log, "exited with status 3")
	assert.Less(t, r.took, 10*time.Second, "the sleeper was stopped")
}

// Every PE leads a session of its own (its session id is its pid), apart
// from the launcher's and from each other's, unless it will share its CPU:
// then it shares a session with the PEs on that CPU and no other (a
// keeper's, whose id is no PE's pid). Either way it is the launcher's
// child. See start and keeper.go.
func TestRunSessions(t *testing.T) {
	t.Parallel()
	sid, err := unix.Getsid(0)
	require.NoError(t, err)
	allowed, err := placement.Allowed()
	require.NoError(t, err)
	for _, n := range []int{2, runtime.NumCPU() + 1, 2*runtime.NumCPU() + 1} {
		r := run(t, Config{N: n, Argv: []string{"sh", "-c", `echo "$GSHMEM_RANK $$ $(cut -d' ' -f4,6 /proc/$$/stat)"`}})
		require.NoError(t, r.err)
		require.Equal(t, 0, r.code)
		f := strings.Fields(r.stdout)
		require.Len(t, f, 4*n)
		pid, session := map[int]int{}, map[int]int{}
		for i := 0; i < len(f); i += 4 {
			v := make([]int, 4)
			for k := range v {
				v[k], err = strconv.Atoi(f[i+k])
				require.NoError(t, err)
			}
			pid[v[0]], session[v[0]] = v[1], v[3]
			assert.Equal(t, os.Getpid(), v[2], "%d PEs: PE %d's parent", n, v[0])
			assert.NotEqual(t, sid, v[3], "%d PEs: PE %d in the launcher's session", n, v[0])
		}
		require.Len(t, pid, n)
		group := map[int]int{} // rank -> its group's first rank
		for _, g := range placement.Shared(os.Getenv("GSHMEM_BIND"), allowed, n) {
			for _, r := range g {
				group[r] = g[0]
			}
		}
		if n > len(allowed) && len(allowed) > 1 && os.Getenv("GSHMEM_BIND") != "none" {
			require.NotEmpty(t, group, "%d PEs on %d CPUs", n, len(allowed))
		}
		for a := range n {
			for b := range n {
				ga, sharedA := group[a]
				gb, sharedB := group[b]
				same := a == b || sharedA && sharedB && ga == gb
				assert.Equal(t, same, session[a] == session[b], "%d PEs: PEs %d and %d", n, a, b)
			}
			if _, ok := group[a]; ok {
				assert.NotEqual(t, pid[a], session[a], "%d PEs: PE %d leads its shared session", n, a)
			} else {
				assert.Equal(t, pid[a], session[a], "%d PEs: PE %d", n, a)
			}
		}
	}
}

// A launcher killed by SIGKILL takes its PEs with it: those it started
// through their Pdeathsig, those in a keeper's session through the keeper.
func TestRunLauncherDeathEndsPEs(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, n := range []int{2, runtime.NumCPU() + 1} {
		cmd := exec.Command(exe)
		cmd.Env = childEnvFor("launch", "GSHMEM_TEST_LAUNCH_N="+strconv.Itoa(n))
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		var pids []int
		sc := bufio.NewScanner(out)
		for len(pids) < n && sc.Scan() {
			p, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
			require.NoError(t, err)
			pids = append(pids, p)
		}
		require.Len(t, pids, n)
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		require.Eventually(t, func() bool {
			for _, p := range pids {
				if alive(p) {
					return false
				}
			}
			return true
		}, 10*time.Second, 20*time.Millisecond, "%d PEs: pids %v outlived their launcher", n, pids)
	}
}

// alive says whether pid runs (a zombie does not).
func alive(pid int) bool {
	st := procState(pid)
	return st != 0 && st != 'Z' && st != 'X'
}
