package launcher

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuildDirSweptAfterSIGKILL: a launcher killed with SIGKILL leaves its
// build directory; the next launcher removes it, and leaves alone the
// directory of a launcher that still runs.
func TestBuildDirSweptAfterSIGKILL(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	root := filepath.Join(cache, "gshmem", "build")

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childModeVar+"=builddir")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	dead := strings.TrimSpace(line)
	assert.Equal(t, root, filepath.Dir(dead), "builds go under the user's cache, not /tmp")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.DirExists(t, dead, "SIGKILL ran no cleanup")

	live, cleanup, err := newBuildDir()
	require.NoError(t, err)
	assert.NoDirExists(t, dead, "the dead launcher's directory was swept")

	other, cleanup2, err := newBuildDir()
	require.NoError(t, err)
	assert.DirExists(t, live, "a live launcher's directory is kept")
	cleanup()
	cleanup2()
	assert.NoDirExists(t, live)
	assert.NoDirExists(t, other)
}
