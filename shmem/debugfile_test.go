package shmem

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDebugFileIsPrivateAndNoSymlinkIsFollowed(t *testing.T) {
	dir := t.TempDir()

	name := filepath.Join(dir, "log")
	f, err := openDebugFile(name)
	require.NoError(t, err)
	_, err = f.WriteString("one\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	st, err := os.Stat(name)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	f, err = openDebugFile(name) // appends
	require.NoError(t, err)
	_, _ = f.WriteString("two\n")
	require.NoError(t, f.Close())
	got, _ := os.ReadFile(name)
	assert.Equal(t, "one\ntwo\n", string(got))

	// A link planted where the log will go is refused, and its target
	// left alone.
	target := filepath.Join(dir, "victim")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	link := filepath.Join(dir, "planted")
	require.NoError(t, os.Symlink(target, link))
	_, err = openDebugFile(link)
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "GSHMEM_DEBUG_FILE="+link)
	assert.Contains(t, err.Error(), "symbolic link")
	got, _ = os.ReadFile(target)
	assert.Equal(t, "keep", string(got))

	_, err = openDebugFile(filepath.Join(dir, "no-such-dir", "log"))
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "GSHMEM_DEBUG_FILE=")
}
