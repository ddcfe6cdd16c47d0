package shmem

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHostAreaFromEnv(t *testing.T) {
	o, err := optionsFromEnv(envOf(map[string]string{"GSHMEM_HEAP": "device", "GSHMEM_HOST_AREA": "16m"}))
	require.NoError(t, err)
	assert.Equal(t, uint64(16<<20), o.Device.HostArea)
	_, err = optionsFromEnv(envOf(map[string]string{"GSHMEM_HOST_AREA": "lots"}))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.Equal(t, uint64(4<<20), defaultHostArea(32<<20))
	assert.Equal(t, uint64(64<<20), defaultHostArea(4<<30))
}

// On a host heap AllocHost is Alloc, and the device-buffer calls answer
// that there is no device.
func TestAllocHostOnHostHeap(t *testing.T) {
	err := Run(2, func(w *World) error {
		s, err := CallocHost[uint64](w, 8)
		require.NoError(t, err)
		require.NotNil(t, s.Local())
		require.NoError(t, Put(s.At(w.MyPE()), []uint64{7}, 1-w.MyPE()))
		require.NoError(t, w.BarrierAll())
		assert.Equal(t, uint64(7), s.Local()[1-w.MyPE()])
		assert.Zero(t, w.HostAreaFree())
		p := uintptr(unsafe.Pointer(&s.Local()[0]))
		assert.False(t, w.IsDeviceMemory(p))
		_, ok := DeviceSym(w, p, 8)
		assert.False(t, ok)
		assert.ErrorIs(t, w.CopyDeviceToHost(make([]byte, 8), p), ErrUnsupported)
		assert.ErrorIs(t, w.CopyHostToDevice(p, make([]byte, 8)), ErrUnsupported)
		assert.ErrorIs(t, CopyFromDevice(s.Bytes(), p), ErrUnsupported)
		assert.ErrorIs(t, CopyToDevice(p, s.Bytes()), ErrUnsupported)
		require.NoError(t, w.BarrierAll())
		return Free(s)
	}, WithSymmetricSize(8<<20))
	require.NoError(t, err)
}

// A World with a host area (as a device World has, here on a host heap):
// AllocHost takes from it, Free returns to it, and PEs that mix AllocHost
// and Alloc all fail.
func TestHostAreaAllocator(t *testing.T) {
	err := Run(2, func(w *World) error {
		w.opts.Device.HostArea = 1 << 20
		require.NoError(t, w.reserveHostArea())
		free := w.HostAreaFree()
		assert.Equal(t, uint64(1<<20), free)
		s, err := CallocHost[byte](w, 1000)
		require.NoError(t, err)
		assert.True(t, w.inHostArea(s.Offset()))
		assert.Less(t, w.HostAreaFree(), free)
		assert.Equal(t, make([]byte, 1000), s.Local())
		d, err := Alloc[byte](w, 1000)
		require.NoError(t, err)
		assert.False(t, w.inHostArea(d.Offset()))
		require.NoError(t, Free(s))
		assert.Equal(t, free, w.HostAreaFree())
		require.NoError(t, Free(d))
		if w.MyPE() == 0 {
			_, err = AllocHost[byte](w, 64)
		} else {
			_, err = Alloc[byte](w, 64)
		}
		assert.ErrorIs(t, err, ErrSizeMismatch)
		assert.Contains(t, err.Error(), "AllocHost")
		_, err = AllocHost[byte](w, 2<<20)
		assert.ErrorIs(t, err, ErrHeapExhausted)
		return nil
	}, WithSymmetricSize(8<<20))
	require.NoError(t, err)
}
