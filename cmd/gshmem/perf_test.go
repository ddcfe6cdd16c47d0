package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/cmd/gshmem/internal/perf"
)

// The test binary is gshmem itself when this variable is set: the perf
// command re-executes its own binary as the PEs, and they must run main.
const asGshmemEnv = "GSHMEM_CMD_TEST_AS_GSHMEM"

func init() {
	if os.Getenv(asGshmemEnv) == "1" {
		main()
		os.Exit(0)
	}
}

// gshmem runs this test binary as `gshmem args...`.
func gshmem(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), asGshmemEnv+"=1", "GORACE=atexit_sleep_ms=0", "GSHMEM_SYMMETRIC_SIZE=64m")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// goExe is the go command, found before any test narrows PATH.
var goExe, _ = exec.LookPath("go")

// buildPlotter builds gshmem-plot into a directory and puts it first in
// PATH, where --plot looks for it.
func buildPlotter(t *testing.T) {
	t.Helper()
	bin := t.TempDir()
	build := exec.Command(goExe, "build", "-o", filepath.Join(bin, "gshmem-plot"), "../gshmem-plot")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestPerfStartsItsOwnPEs(t *testing.T) {
	buildPlotter(t)
	dir := t.TempDir()
	js, png := filepath.Join(dir, "rows.json"), filepath.Join(dir, "lat.png")
	stdout, stderr, err := gshmem(t, "perf", "put_latency", "--min_size", "8", "--max_size", "64", "--step", "8",
		"--iters", "50", "-n", "2", "--json", js, "--plot", png)
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "# put_latency, 2 PEs, int64")
	assert.Regexp(t, `size \(B\)\s+latency \(us\)\s+bandwidth \(GB/s\)\s+messages/s`, stdout)
	assert.Equal(t, 1, strings.Count(stdout, "# put_latency"), "only PE 0 prints")

	f, err := os.Open(js)
	require.NoError(t, err)
	defer f.Close()
	rows, err := perf.ReadJSON(f)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.Equal(t, []int{8, 64}, []int{rows[0].Size, rows[1].Size})
	for _, r := range rows {
		assert.Equal(t, "put_latency", r.Test)
		assert.Equal(t, 2, r.PEs)
		assert.Positive(t, r.LatencyUS)
	}
	img, err := os.ReadFile(png)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(img, []byte("\x89PNG")))
}

func TestPerfUnderRun(t *testing.T) {
	stdout, stderr, err := gshmem(t, "run", "-n", "3", os.Args[0], "perf", "signal_latency", "--iters", "20")
	require.NoError(t, err, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "# signal_latency, 3 PEs")
}

func TestPerfErrors(t *testing.T) {
	_, stderr, err := gshmem(t, "perf", "no_such_test")
	assert.Error(t, err)
	assert.Contains(t, stderr, `unknown test "no_such_test"`)
	assert.Contains(t, stderr, "put_bw")

	_, stderr, err = gshmem(t, "perf", "put_bw", "--datatype", "int8")
	assert.Error(t, err)
	assert.Contains(t, stderr, `datatype "int8"`)

	_, stderr, err = gshmem(t, "perf", "atomic_latency", "--op", "fetch_sub", "--iters", "5")
	assert.Error(t, err, "a PE fails and the job with it")
	assert.Contains(t, stderr, "fetch_sub")
}

func TestPerfHelp(t *testing.T) {
	var out bytes.Buffer
	c := perfCmd()
	c.SetOut(&out)
	c.SetArgs([]string{"--help"})
	require.NoError(t, c.Execute())
	for _, name := range perf.Names() {
		assert.Contains(t, out.String(), "\n  "+name+": ")
	}
	for _, flag := range []string{"--min_size", "--max_size", "--step", "--iters", "--warmup_iters", "--datatype",
		"--op", "--window", "--json", "--plot", "-n, --npes"} {
		assert.Contains(t, out.String(), flag)
	}
}

// TestPerfPlotCheckedFirst: a --plot that cannot be written is refused
// before anything runs (the PEs are never started), and leaves no file.
func TestPerfPlotCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir) // no gshmem-plot anywhere
	_, stderr, err := gshmem(t, "perf", "put_latency", "--plot", filepath.Join(dir, "x.png"))
	require.Error(t, err)
	assert.Contains(t, stderr, "go install github.com/gshmem/gshmem/cmd/gshmem-plot@latest")

	buildPlotter(t)
	for file, want := range map[string]string{
		filepath.Join(dir, "x.gif"):         "extension",
		filepath.Join(dir, "none", "x.png"): "does not exist",
	} {
		stdout, stderr, err := gshmem(t, "perf", "put_latency", "--plot", file)
		require.Error(t, err)
		assert.Contains(t, stderr, want)
		assert.NotContains(t, stdout, "# put_latency", "nothing was measured")
		assert.NoFileExists(t, file)
	}
}

// TestLauncherDeps keeps the plotting library out of the gshmem binary:
// installing or go-running the launcher must not fetch it.
func TestLauncherDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "github.com/spf13/cobra", "the list is the real one")
	assert.NotContains(t, string(out), "gonum.org/v1/plot")

	out, err = exec.Command("go", "list", "-deps", "../gshmem-plot").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "gonum.org/v1/plot")
}

func TestHeapNeed(t *testing.T) {
	assert.Equal(t, uint64(64*(4<<20)+64<<20), heapNeed(perf.Config{Window: 64, MaxSize: 4 << 20}))
}

// TestPerfHelpExamples runs every example of the help as a user would, and
// logs how long each took (the help promises seconds on 2 CPUs; timings
// are not asserted, as the machine may be loaded).
func TestPerfHelpExamples(t *testing.T) {
	buildPlotter(t)
	dir := t.TempDir()
	for _, line := range strings.Split(perfExamples, "\n") {
		args := strings.Fields(line)
		require.Equal(t, "gshmem", args[0])
		args = args[1:]
		for i, a := range args {
			if a == "gshmem" { // the program gshmem run starts
				args[i] = os.Args[0]
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), asGshmemEnv+"=1", "GORACE=atexit_sleep_ms=0")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		cancel()
		require.NoError(t, err, "%s:\n%s", line, out)
		t.Logf("%v: %s", time.Since(start).Round(time.Millisecond), line)
		assert.Contains(t, string(out), "# "+args[slices.Index(args, "perf")+1]+", ", line)
	}
	assert.FileExists(t, filepath.Join(dir, "put_bw.json"))
	assert.FileExists(t, filepath.Join(dir, "put_bw.png"))
}

func TestPerfWithoutTestLists(t *testing.T) {
	stdout, stderr, err := gshmem(t, "perf")
	require.NoError(t, err, stderr)
	for _, name := range perf.Names() {
		assert.Contains(t, stdout, "\n  "+name+" ")
	}
	assert.Contains(t, stdout, "usage: gshmem perf TEST")
}
