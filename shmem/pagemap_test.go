package shmem

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// dataRuns finds the written pages of an anonymous mapping, and every page
// of a file mapping (whose untouched pages hold the file's data).
func TestDataRuns(t *testing.T) {
	page := int(osPage)
	m, err := unix.Mmap(-1, 0, 64*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	defer unix.Munmap(m)
	at := uintptr(unsafe.Pointer(&m[0]))
	require.Empty(t, dataRuns(at, 64*page))
	m[3*page] = 1
	for p := 10; p < 13; p++ {
		m[p*page+5] = 2
	}
	m[63*page+page-1] = 3
	require.Equal(t, []span{{3 * page, page}, {10 * page, 3 * page}, {63 * page, page}}, dataRuns(at, 64*page))
	require.Equal(t, []span{{0, page}, {7 * page, 3 * page}}, dataRuns(at+3*uintptr(page), 13*page))

	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, make([]byte, 8*page), 0o600))
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	fm, err := unix.Mmap(int(f.Fd()), 0, 8*page, unix.PROT_READ, unix.MAP_PRIVATE)
	require.NoError(t, err)
	defer unix.Munmap(fm)
	require.Equal(t, []span{{0, 8 * page}}, dataRuns(uintptr(unsafe.Pointer(&fm[0])), 8*page))
}
