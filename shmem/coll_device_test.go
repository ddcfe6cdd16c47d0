package shmem

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The element type codes the device reduction kernels switch on
// (internal/devstate/coll.cuh: GSHMEMI_T_*).
func TestDeviceTypeCodes(t *testing.T) {
	type myFloat float32
	require.Equal(t, 0, devType[int8]())
	require.Equal(t, 1, devType[int16]())
	require.Equal(t, 2, devType[int32]())
	require.Equal(t, 3, devType[int64]())
	require.Equal(t, 3, devType[int]())
	require.Equal(t, 4, devType[uint8]())
	require.Equal(t, 5, devType[uint16]())
	require.Equal(t, 6, devType[uint32]())
	require.Equal(t, 7, devType[uint64]())
	require.Equal(t, 7, devType[uint]())
	require.Equal(t, 7, devType[uintptr]())
	require.Equal(t, 8, devType[float32]())
	require.Equal(t, 8, devType[myFloat]())
	require.Equal(t, 9, devType[float64]())
}

// On a host heap the device collectives are refused with ErrUnsupported,
// and the host collectives are untouched.
func TestDeviceCollectivesNeedDeviceHeap(t *testing.T) {
	err := Run(2, func(w *World) error {
		tm := w.TeamWorld()
		src, err := Calloc[float32](w, 4)
		if err != nil {
			return err
		}
		dst, err := Calloc[float32](w, 8)
		if err != nil {
			return err
		}
		for _, e := range []error{
			ReduceOnDeviceStream(0, tm, ReduceSum, dst.Slice(0, 4), src, 4),
			ReduceScatterOnDeviceStream(0, tm, ReduceSum, dst.Slice(0, 2), src, 2),
			BroadcastOnDeviceStream(0, tm, dst.Slice(0, 4), src, 4, 0),
			FCollectOnDeviceStream(0, tm, dst, src, 4),
			AlltoallOnDeviceStream(0, tm, dst.Slice(0, 4), src, 2),
			tm.SyncOnDeviceStream(0),
			func() error { _, err := tm.DeviceHandle(); return err }(),
		} {
			if !errors.Is(e, ErrUnsupported) {
				return errf(ErrInvalid, "want ErrUnsupported, got %v", e)
			}
		}
		if tm.onDevice() {
			return errf(ErrInvalid, "a host heap's team runs its collectives as kernels")
		}
		copy(src.Local(), []float32{1, 2, 3, float32(w.MyPE())})
		if err := Reduce(tm, ReduceSum, dst.Slice(0, 4), src, 4); err != nil {
			return err
		}
		if got := dst.Local()[:4]; got[0] != 2 || got[3] != 1 {
			return errf(ErrInvalid, "host Reduce gave %v", got)
		}
		return nil
	})
	require.NoError(t, err)
}
