package shmem

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDeviceOptionsFromEnv(t *testing.T) {
	o, err := optionsFromEnv(envOf(nil))
	require.NoError(t, err)
	assert.Equal(t, DeviceOptions{Heap: HeapHost, Ordinal: -1}, o.Device)

	for v, want := range map[string]string{"device": HeapDevice, "GPU": HeapDevice, "cuda": HeapDevice, "host": HeapHost, " Host ": HeapHost} {
		o, err := optionsFromEnv(envOf(map[string]string{"GSHMEM_HEAP": v}))
		require.NoError(t, err, v)
		assert.Equal(t, want, o.Device.Heap, v)
	}
	o, err = optionsFromEnv(envOf(map[string]string{"GSHMEM_HEAP": "device", "GSHMEM_DEVICE": "3"}))
	require.NoError(t, err)
	assert.Equal(t, DeviceOptions{Heap: HeapDevice, Ordinal: 3}, o.Device)

	for _, bad := range []map[string]string{{"GSHMEM_HEAP": "nvram"}, {"GSHMEM_DEVICE": "-1"}, {"GSHMEM_DEVICE": "gpu0"}} {
		_, err := optionsFromEnv(envOf(bad))
		assert.ErrorIs(t, err, ErrInvalid, "%v", bad)
	}
}

func TestDeviceOptionFunctions(t *testing.T) {
	t.Setenv("GSHMEM_HEAP", "")
	t.Setenv("GSHMEM_DEVICE", "")
	o, err := buildOptions([]Option{WithDevice()})
	require.NoError(t, err)
	assert.Equal(t, DeviceOptions{Heap: HeapDevice, Ordinal: -1}, o.Device)
	o, err = buildOptions([]Option{WithDeviceOrdinal(1)})
	require.NoError(t, err)
	assert.Equal(t, DeviceOptions{Heap: HeapDevice, Ordinal: 1}, o.Device)
	t.Setenv("GSHMEM_HEAP", "device")
	o, err = buildOptions([]Option{WithHostHeap()})
	require.NoError(t, err)
	assert.Equal(t, HeapHost, o.Device.Heap)
	_, err = buildOptions([]Option{func(o *Options) { o.Device.Heap = "tape" }})
	assert.ErrorIs(t, err, ErrInvalid)
}

// Without a GPU (or without -tags cuda), asking for a device heap fails
// with ErrUnsupported and a message that says why, on every PE.
func TestDeviceHeapUnsupportedHere(t *testing.T) {
	if DeviceSupport() == nil {
		t.Skip("a GPU is usable here: the device tests (test/gpu, -tags cuda) cover it")
	}
	t.Setenv("GSHMEM_HEAP", "")
	err := Run(2, func(w *World) error { return nil }, WithDevice(), WithSymmetricSize(1<<20))
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.Contains(t, err.Error(), "GSHMEM_HEAP=device")
	t.Logf("as expected: %v", err)
	assert.True(t, errors.Is(DeviceSupport(), ErrUnsupported))
}

// The host heap has no Device, and the device-only calls say so.
func TestDeviceCallsOnHostHeap(t *testing.T) {
	t.Setenv("GSHMEM_HEAP", "")
	err := Run(2, func(w *World) error {
		assert.False(t, w.HeapOnDevice())
		_, err := w.Device()
		assert.ErrorIs(t, err, ErrUnsupported)
		s, err := Calloc[uint64](w, 4)
		require.NoError(t, err)
		src, err := Alloc[uint64](w, 4)
		require.NoError(t, err)
		_, err = DevicePtr(s, 0)
		assert.ErrorIs(t, err, ErrUnsupported)
		assert.ErrorIs(t, PutOnDeviceStream(0, s, src, 0), ErrUnsupported)
		assert.ErrorIs(t, SignalOnDeviceStream(0, s, 1, SignalSet, 0), ErrUnsupported)
		assert.ErrorIs(t, WaitUntilOnDeviceStream(0, s, CmpEQ, 1), ErrUnsupported)
		assert.ErrorIs(t, w.BarrierOnDeviceStream(0), ErrUnsupported)
		// PutSym and GetSym work on the host heap too.
		me, right := w.MyPE(), (w.MyPE()+1)%w.NPEs()
		for i := range src.Local() {
			src.Local()[i] = uint64(me*10 + i)
		}
		require.NoError(t, PutSym(s, src, right))
		require.NoError(t, w.BarrierAll())
		left := (me + w.NPEs() - 1) % w.NPEs()
		assert.Equal(t, []uint64{uint64(left * 10), uint64(left*10 + 1), uint64(left*10 + 2), uint64(left*10 + 3)}, s.Local())
		got, err := Alloc[uint64](w, 4)
		require.NoError(t, err)
		require.NoError(t, GetSym(got, src, right))
		assert.Equal(t, uint64(right*10+3), got.Local()[3])
		return w.BarrierAll()
	}, WithSymmetricSize(1<<20))
	require.NoError(t, err)
}
