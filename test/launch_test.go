package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// build compiles the gshmem command and the ring example once per test.
func build(t *testing.T) (gshmem, ring string) {
	t.Helper()
	dir := t.TempDir()
	gshmem, ring = filepath.Join(dir, "gshmem"), filepath.Join(dir, "ring")
	for out, pkg := range map[string]string{gshmem: "../cmd/gshmem", ring: "../examples/ring"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "go build %s: %s", pkg, b)
	}
	return gshmem, ring
}

func shmFiles(t *testing.T) []string {
	entries, err := os.ReadDir("/dev/shm")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// children returns the PIDs of pid's direct children, whichever of its
// threads started them, but for gshmem run's keepers (the holders of the
// sessions of PEs that share a CPU, which are no PEs).
func children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var pids []int
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			argv, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if p, err := strconv.Atoi(f); err == nil && !strings.HasPrefix(string(argv), "gshmem-keeper\x00") {
				pids = append(pids, p)
			}
		}
	}
	return pids
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// A zombie has exited; only its parent's wait is missing.
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

func TestRunPutblockFromPackageDir(t *testing.T) {
	gshmem, _ := build(t)
	cmd := exec.Command(gshmem, "run", "-n", "4", "../examples/putblock")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "verified on 4 of 4 PEs")
}

func TestKilledPEStopsJob(t *testing.T) {
	gshmem, ring := build(t)
	before := shmFiles(t)
	var out bytes.Buffer
	cmd := exec.Command(gshmem, "run", "-n", "4", ring, "-laps", "1000000000")
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Whatever happens below, the job does not outlive the test: the
	// launcher's PEs die with it (parent-death signal, or their keeper).
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	var pes []int
	require.Eventually(t, func() bool {
		pes = children(cmd.Process.Pid)
		return len(pes) == 4
	}, 20*time.Second, 20*time.Millisecond, "the launcher never had 4 PEs")
	time.Sleep(300 * time.Millisecond) // let the job get going
	victim := pes[2]
	require.NoError(t, syscall.Kill(victim, syscall.SIGKILL))
	killed := time.Now()

	select {
	case err := <-done:
		elapsed := time.Since(killed)
		require.Error(t, err, "the launcher must fail: %s", out.String())
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		assert.NotZero(t, ee.ExitCode())
		assert.Less(t, elapsed, 5*time.Second)
		assert.Regexp(t, `PE \d \(pid `+strconv.Itoa(victim)+`\).*killed`, out.String())
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("launcher still running 10 s after a PE was killed; output:\n%s", out.String())
	}
	for _, p := range pes {
		assert.False(t, alive(p), "PE process %d outlived the job", p)
	}
	// Only new names count: other programs' files may come and go meanwhile.
	had := map[string]bool{}
	for _, f := range before {
		had[f] = true
	}
	for _, f := range shmFiles(t) {
		assert.True(t, had[f], "the job left %s in /dev/shm", f)
	}
}

func TestExitStatusAndNonShmemProgram(t *testing.T) {
	gshmem, _ := build(t)
	out, err := exec.Command(gshmem, "run", "-n", "3", "--tag-output", "sh", "-c", `echo "pe $GSHMEM_RANK of $GSHMEM_NPES"; [ "$GSHMEM_RANK" != 1 ] || exit 5`).CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 5, ee.ExitCode())
	assert.Contains(t, string(out), "[pe 1] pe 1 of 3")
	assert.Contains(t, string(out), "PE 1")
}
