package launcher

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Builds of Go package directories go under the user's cache
// (os.UserCacheDir()/gshmem/build), one directory per launcher. A launcher
// killed by SIGKILL runs no cleanup, so each directory holds a lock file
// that its launcher keeps flock'ed for as long as it lives: the kernel
// drops the lock when the process dies, however it dies, and the next
// launcher removes every directory whose lock it can take.

// buildRoot is where the build directories live; tests point it elsewhere.
var buildRoot = func() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a directory for the build (set HOME or XDG_CACHE_HOME): %w", err)
	}
	return filepath.Join(cache, "gshmem", "build"), nil
}

const buildLock = ".lock"

// newBuildDir sweeps the directories of dead launchers and makes this
// launcher's own, locked until cleanup is called.
func newBuildDir() (dir string, cleanup func(), err error) {
	root, err := buildRoot()
	if err != nil {
		return "", nil, err
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", nil, err
	}
	sweepBuildDirs(root)
	dir, err = os.MkdirTemp(root, "run-")
	if err != nil {
		return "", nil, err
	}
	lock, err := os.OpenFile(filepath.Join(dir, buildLock), os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err == nil {
		if err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			lock.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("locking the build directory %s: %w", dir, err)
	}
	return dir, func() {
		os.RemoveAll(dir)
		lock.Close()
	}, nil
}

// sweepBuildDirs removes the build directories no live launcher holds.
// A directory without a lock file yet may belong to a launcher between
// MkdirTemp and taking its lock, so only directories with one are judged.
func sweepBuildDirs(root string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		f, err := os.OpenFile(filepath.Join(dir, buildLock), os.O_RDWR, 0)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			os.RemoveAll(dir) // its launcher is gone
		}
		f.Close()
	}
}
