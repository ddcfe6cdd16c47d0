package windows

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/compat"
)

// writeRuns writes back only the bytes a reconciliation changed: a device
// window's public copy may be taking peers' puts meanwhile, and a byte
// nobody changed must not be rewritten from a stale read.
func TestWriteRunsWritesOnlyChangedBytes(t *testing.T) {
	was := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	now := []byte{0, 9, 9, 3, 4, 5, 9, 7, 8, 9}
	type run struct {
		off int
		b   string
	}
	var got []run
	require.NoError(t, writeRuns(was, now, func(off int, b []byte) error {
		got = append(got, run{off, string(b)})
		return nil
	}))
	assert.Equal(t, []run{{1, "\x09\x09"}, {6, "\x09"}}, got)

	got = nil
	require.NoError(t, writeRuns(was, was, func(off int, b []byte) error {
		got = append(got, run{off, string(b)})
		return nil
	}))
	assert.Empty(t, got, "nothing changed, nothing written")

	// A change at the end, and an error stops the writes.
	now = []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 1}
	require.NoError(t, writeRuns(was, now, func(off int, b []byte) error {
		got = append(got, run{off, string(b)})
		return nil
	}))
	assert.Equal(t, []run{{9, "\x01"}}, got)
	boom := assert.AnError
	assert.ErrorIs(t, writeRuns(was, []byte{1, 1, 2, 3, 4, 5, 6, 7, 8, 1}, func(int, []byte) error { return boom }), boom)
}

// The memory key is checked at creation and reported by Info.
func TestMemoryInfoKey(t *testing.T) {
	s := defaultSettings()
	require.NoError(t, s.apply(map[string]string{InfoMemory: " Device "}, true))
	assert.Equal(t, MemoryDevice, s.memory)
	assert.Equal(t, MemoryDevice, s.info()[InfoMemory])
	assert.Equal(t, MemoryHost, defaultSettings().info()[InfoMemory])
	assert.ErrorIs(t, s.apply(map[string]string{InfoMemory: "gpu"}, true), compat.ErrInfoValue)
	require.NoError(t, s.apply(map[string]string{InfoMemory: "host"}, false), "only at creation: ignored after")
	assert.Equal(t, MemoryDevice, s.memory)
}
