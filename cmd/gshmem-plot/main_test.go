package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlotCurvesAndBars(t *testing.T) {
	dir := t.TempDir()
	rows := []Row{
		{Test: "put_bw", Kind: "bandwidth", Size: 8, LatencyUS: 0.01, BandwidthGBps: 0.8, PEs: 2},
		{Test: "put_bw", Kind: "bandwidth", Size: 1 << 20, LatencyUS: 50, BandwidthGBps: 21, PEs: 2},
	}
	file := filepath.Join(dir, "bw.png")
	require.NoError(t, Plot(file, rows))
	png, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG", string(png[:4]))
	fi, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "a plot is readable by others, as os.Create makes files")

	// A fixed-size test over several ops is drawn as bars.
	amo := []Row{
		{Test: "atomic_latency", Kind: "latency", Op: "fetch", Size: 8, LatencyUS: 0.02, PEs: 2},
		{Test: "atomic_latency", Kind: "latency", Op: "fetch_add", Size: 8, LatencyUS: 0.03, PEs: 2},
	}
	require.NoError(t, Plot(filepath.Join(dir, "amo.svg"), amo))

	// A barrier's row has size 0: a bar, not a point on a log axis.
	barrier := []Row{{Test: "barrier", Kind: "latency", Size: 0, LatencyUS: 3, PEs: 4}}
	require.NoError(t, Plot(filepath.Join(dir, "barrier.pdf"), barrier))

	// A zero-size row among others is left out of the curve.
	mixed := append([]Row{{Test: "put_latency", Kind: "latency", Size: 0, LatencyUS: 0.1, PEs: 2}},
		Row{Test: "put_latency", Kind: "latency", Size: 8, LatencyUS: 0.2, PEs: 2},
		Row{Test: "put_latency", Kind: "latency", Size: 64, LatencyUS: 0.3, PEs: 2})
	require.NoError(t, Plot(filepath.Join(dir, "mixed.png"), mixed))
}

func TestPlotFailuresLeaveNoFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		rows []Row
		want string
	}{
		{filepath.Join(dir, "x.png"), nil, "no rows"},
		{filepath.Join(dir, "x.gif"), []Row{{Test: "t", Size: 8, LatencyUS: 1}}, "extension"},
		{filepath.Join(dir, "nodir", "x.png"), []Row{{Test: "t", Size: 8, LatencyUS: 1}}, "does not exist"},
	} {
		err := Plot(c.file, c.rows)
		require.ErrorIs(t, err, errPlot)
		assert.Contains(t, err.Error(), c.want)
		assert.NoFileExists(t, c.file)
	}
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file left behind")
}

func TestRunReadsJSON(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "lat.svg")
	js := `[{"test":"put_latency","kind":"latency","size":8,"latency_us":0.5,"pes":2},
	        {"test":"put_latency","kind":"latency","size":64,"latency_us":0.7,"pes":2}]`
	require.NoError(t, run([]string{"-", out}, strings.NewReader(js)))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, bytes.Contains(b, []byte("<svg")))

	require.NoError(t, run([]string{"--check", out}, nil))
	assert.ErrorIs(t, run([]string{"--check", filepath.Join(dir, "a.jpeg")}, nil), errPlot)
	assert.ErrorIs(t, run([]string{"only-one"}, nil), errUsage)
	err = run([]string{"-", filepath.Join(dir, "bad.png")}, strings.NewReader("not json"))
	assert.ErrorIs(t, err, errPlot)
	assert.NoFileExists(t, filepath.Join(dir, "bad.png"))
}
