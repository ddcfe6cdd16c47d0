package settings

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the README's settings table from the table")

// The README's table, between these lines, is Markdown(): go test
// ./internal/settings -update rewrites it after a change to table.go.
const (
	tableStart = "<!-- settings table: generated from internal/settings/table.go; go test ./internal/settings -update -->\n"
	tableEnd   = "<!-- end of settings table -->\n"
)

func TestREADMETable(t *testing.T) {
	const path = "../../README.md"
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(b)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	require.True(t, i >= 0 && j > i, "README.md lacks the settings table's markers")
	want := s[:i+len(tableStart)] + Markdown() + s[j:]
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	assert.Equal(t, want, s, "README.md's settings table is not table.go's: go test ./internal/settings -update")
}

func TestRowsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range table {
		assert.True(t, strings.HasPrefix(v.Name, Prefix), v.Name)
		assert.False(t, seen[v.Name], "%s twice", v.Name)
		seen[v.Name] = true
		assert.NotEmpty(t, v.Help, v.Name)
		assert.NotEmpty(t, v.Reader, v.Name)
		assert.NotEmpty(t, v.Kind, v.Name)
		if v.Kind == Choice {
			assert.NotEmpty(t, v.Choices, v.Name)
		}
		// A documented one-word default is a value the row accepts.
		if d := v.Default; d != "" && !strings.ContainsAny(d, " (/") && d != "auto" && d != "policy" {
			assert.NoError(t, v.Check(d), "%s's default", v.Name)
		}
	}
}

func TestValuesNameTheVariable(t *testing.T) {
	get := func(env map[string]string) func(string) string { return func(k string) string { return env[k] } }
	size := Get("GSHMEM_SYMMETRIC_SIZE")
	for _, bad := range []string{"0", "1k", "lots", "100q"} {
		_, _, err := size.Size(get(map[string]string{size.Name: bad}))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), `GSHMEM_SYMMETRIC_SIZE="`+bad+`": want a size`)
	}
	n, ok, err := size.Size(get(map[string]string{size.Name: "1.5g"}))
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, uint64(3<<29), n)
	_, ok, err = size.Size(get(nil))
	assert.False(t, ok)
	assert.NoError(t, err)

	timeout := Get("GSHMEM_BOOTSTRAP_TIMEOUT")
	for _, bad := range []string{"0", "0s", "-5s", "-1", "soon"} {
		_, _, err := timeout.Duration(get(map[string]string{timeout.Name: bad}))
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "GSHMEM_BOOTSTRAP_TIMEOUT")
		assert.Contains(t, err.Error(), "above zero")
	}
	d, _, err := timeout.Duration(get(map[string]string{timeout.Name: "2.5"}))
	require.NoError(t, err)
	assert.Equal(t, 2500*time.Millisecond, d)

	heap := Get("GSHMEM_HEAP")
	c, err := heap.Choice(get(map[string]string{heap.Name: " GPU"}))
	require.NoError(t, err)
	assert.Equal(t, "device", c)
	_, err = heap.Choice(get(map[string]string{heap.Name: "disk"}))
	assert.EqualError(t, err, `GSHMEM_HEAP="disk": want host, device`)

	spin := Get("GSHMEM_SPIN")
	_, _, err = spin.Count(get(map[string]string{spin.Name: "-3"}))
	assert.Error(t, err)
}

func TestCheckEnv(t *testing.T) {
	bad, unknown := CheckEnv([]string{"PATH=/bin", "GSHMEM_SYMMETRIC_SIZE=0", "GSHMEM_MPI_WTIME=rdtsc",
		"GSHMEM_SYMETRIC_SIZE=2g", "GSHMEM_BIND=auto", "GSHMEM_NODE_ID=%r", "GSHMEM_PETEST_CHILD=1"})
	require.Len(t, bad, 2)
	assert.Contains(t, bad[0].Error(), "GSHMEM_SYMMETRIC_SIZE")
	assert.Contains(t, bad[1].Error(), "GSHMEM_MPI_WTIME")
	assert.Equal(t, []Unknown{{Name: "GSHMEM_PETEST_CHILD"}, {Name: "GSHMEM_SYMETRIC_SIZE", Closest: "GSHMEM_SYMMETRIC_SIZE"}}, unknown)
}

// TestNVSHMEMTwins: an NVSHMEM variable with a twin gives it its value
// (translated), gshmem's own name wins, a value the twin does not take is
// refused by the NVSHMEM name, and the others are named as ignored.
func TestNVSHMEMTwins(t *testing.T) {
	set, ignored, err := NVSHMEM([]string{"NVSHMEM_SYMMETRIC_SIZE=2G", "NVSHMEM_DEBUG=info", "NVSHMEM_INFO=1",
		"NVSHMEM_DISABLE_NVLS=1", "PATH=/bin"})
	require.NoError(t, err)
	require.Equal(t, []Translation{{"GSHMEM_SYMMETRIC_SIZE", "2G", "NVSHMEM_SYMMETRIC_SIZE"}, {"GSHMEM_DEBUG", "info", "NVSHMEM_DEBUG"}}, set)
	require.Len(t, ignored, 2)
	require.Contains(t, ignored[0], "NVSHMEM_DISABLE_NVLS")
	require.Contains(t, ignored[1], "NVSHMEM_INFO")

	set, _, err = NVSHMEM([]string{"NVSHMEM_SYMMETRIC_SIZE=2G", "GSHMEM_SYMMETRIC_SIZE=1g"})
	require.NoError(t, err)
	require.Empty(t, set)

	_, _, err = NVSHMEM([]string{"NVSHMEM_SYMMETRIC_SIZE=lots"})
	require.ErrorContains(t, err, "NVSHMEM_SYMMETRIC_SIZE")
	_, _, err = NVSHMEM([]string{"NVSHMEM_DEBUG=LOUD"})
	require.ErrorContains(t, err, "NVSHMEM_DEBUG")

	set, ignored, err = NVSHMEM([]string{"NVSHMEM_REMOTE_TRANSPORT=ibgda"})
	require.NoError(t, err)
	require.Empty(t, set)
	require.Len(t, ignored, 1)
}
