//go:build cuda

package gpu_test

import (
	"os"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/internal/devcopy"
	"github.com/gshmem/gshmem/internal/memkind"
	"github.com/gshmem/gshmem/shmem"
)

// Device detection per allocation (internal/memkind): a buffer seen once
// is told by a lookup, host and device alike; an allocation freed and
// allocated again is exported with its new bounds and buffer id; and what
// one cuPointerGetAttributes call costs on this GPU, on a host pointer and
// a device pointer, beside the cached lookup (BENCH lines).
func TestGPUMemKind(t *testing.T) {
	needGPU(t)
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", "64m")
	err := shmem.Run(1, func(w *shmem.World) error {
		d := must(w.Device())
		ctx := cudadrv.ContextFromUintptr(d.Context())
		a := must(ctx.MemAlloc(1 << 20))
		host := make([]byte, 1<<16)
		hp := uintptr(unsafe.Pointer(&host[0]))

		// The kinds, and repeated lookups that do not ask the driver.
		assert.True(t, w.IsDeviceMemory(uintptr(a)+4096))
		assert.False(t, w.IsDeviceMemory(hp))
		const iters = 100000
		for _, c := range []struct {
			name string
			p    uintptr
			dev  bool
		}{{"host", hp, false}, {"device", uintptr(a) + 100, true}} {
			before, t0 := shmem.DeviceProbes(), time.Now()
			for range iters {
				if w.IsDeviceMemory(c.p) != c.dev {
					t.Errorf("%s pointer: wrong kind", c.name)
					break
				}
			}
			el := time.Since(t0)
			probes := shmem.DeviceProbes() - before
			// One probe per TTL at most (the loop may span several).
			assert.LessOrEqual(t, probes, uint64(el/memkind.TTL)+1, "%s: %d driver calls in %d lookups", c.name, probes, iters)
			t0 = time.Now()
			for range iters {
				cudadrv.PointerInfo(c.p)
			}
			drv := time.Since(t0)
			logf("BENCH memkind %s pointer: cuPointerGetAttributes %.0f ns per call, cached IsDeviceMemory %.1f ns per call (%d driver calls in %d lookups)",
				c.name, float64(drv.Nanoseconds())/iters, float64(el.Nanoseconds())/iters, probes, iters)
		}

		// Freed and allocated again: the export names the new allocation.
		x1, off, ok := w.ExportDevice(uintptr(a)+64, 128)
		require.True(t, ok)
		assert.Equal(t, uint64(64), off)
		assert.Equal(t, uint64(a), x1.Base)
		assert.GreaterOrEqual(t, x1.Size, uint64(1<<20))
		require.NoError(t, ctx.MemFree(a))
		b := must(ctx.MemAlloc(3 << 20))
		x2, off, ok := w.ExportDevice(uintptr(b)+8, 8)
		require.True(t, ok)
		assert.Equal(t, uint64(8), off)
		assert.Equal(t, uint64(b), x2.Base)
		assert.GreaterOrEqual(t, x2.Size, uint64(3<<20))
		assert.NotEqual(t, x1.ID, x2.ID, "a new allocation has a new buffer id")
		logf("memkind: freed 1 MiB at %#x, 3 MiB allocated at %#x; buffer ids %d then %d", uintptr(a), uintptr(b), x1.ID, x2.ID)
		_, _, ok = w.ExportDevice(uintptr(b)+uintptr(x2.Size)-4, 8)
		assert.False(t, ok, "a range past the allocation's end is not exported")
		_, _, ok = w.ExportDevice(hp, 8)
		assert.False(t, ok, "host memory is not exported")
		require.NoError(t, ctx.MemFree(b))
		return nil
	}, shmem.WithDevice())
	require.NoError(t, err)
}

// What the steps of a device message cost on this GPU (BENCH lines), the
// new eager copies beside the old ones: where an 8-byte device-to-device
// message's time goes. Set GSHMEM_GPU_P2P_BENCH=1.
func TestGPUCopyCosts(t *testing.T) {
	needGPU(t)
	if os.Getenv("GSHMEM_GPU_P2P_BENCH") != "1" {
		t.Skip("set GSHMEM_GPU_P2P_BENCH=1 to measure")
	}
	t.Setenv("GSHMEM_SYMMETRIC_SIZE", "64m")
	err := shmem.Run(1, func(w *shmem.World) error {
		d := must(w.Device())
		ctx := cudadrv.ContextFromUintptr(d.Context())
		a := uintptr(must(ctx.MemAlloc(1 << 20)))
		defer func() { _ = ctx.MemFree(cudadrv.DevPtr(a)) }()
		h := make([]byte, 8)
		const iters = 2000
		for _, c := range []struct {
			name string
			f    func() error
		}{
			{"ToHostAfterCaller 8 B (pinned bounce, legacy stream; eager send)", func() error { return devcopy.ToHostAfterCaller(w, h, a) }},
			{"FromHost 8 B (pinned bounce, PE stream; eager receive)", func() error { return devcopy.FromHost(w, a, h) }},
			{"CopyDeviceToHost 8 B (pageable, PE stream; before)", func() error { return w.CopyDeviceToHost(h, a) }},
			{"CopyHostToDevice 8 B (pageable, PE stream + Quiet; before)", func() error { return w.CopyHostToDevice(a, h) }},
			{"DeviceAfterDefaultStream (event on legacy, PE stream waits)", w.DeviceAfterDefaultStream},
			{"SyncCaller (legacy stream, idle)", func() error { return devcopy.SyncCaller(w) }},
			{"devcopy.Copy 8 B device to device (PE stream + sync)", func() error { return devcopy.Copy(w, a+4096, a, 8) }},
			{"devcopy.Copy 1 MiB - 4 KiB device to device", func() error { return devcopy.Copy(w, a+4096, a, 1<<20-4096) }},
		} {
			for range 100 {
				require.NoError(t, c.f())
			}
			t0 := time.Now()
			for range iters {
				if err := c.f(); err != nil {
					return err
				}
			}
			logf("BENCH copycost%s %s: %.2f us", mpsTag(), c.name, float64(time.Since(t0).Nanoseconds())/iters/1e3)
		}
		return nil
	}, shmem.WithDevice())
	require.NoError(t, err)
}
