//go:build cuda

package devcopy

import (
	"fmt"

	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// Copy copies n bytes between device addresses of this process on the
// PE's stream, after its earlier device work, and waits: the copy engine
// moves the bytes, the host only waits.
func Copy(w *shmem.World, dst, src uintptr, n int) error {
	if n <= 0 {
		return nil
	}
	d, err := w.Device()
	if err != nil {
		return err
	}
	ctx, s := cudadrv.ContextFromUintptr(d.Context()), cudadrv.StreamFromUintptr(d.Stream())
	if err := ctx.CopyDtoDAsync(cudadrv.DevPtr(dst), cudadrv.DevPtr(src), uint64(n), s); err != nil {
		return fmt.Errorf("device-to-device copy of %d bytes: %w", n, err)
	}
	if err := ctx.StreamSynchronize(s); err != nil {
		return fmt.Errorf("device-to-device copy of %d bytes: %w", n, err)
	}
	return nil
}

// Sync waits for the PE's stream: after shmem.World.DeviceAfterDefaultStream,
// for the work the caller queued on the CUDA default stream too.
func Sync(w *shmem.World) error {
	d, err := w.Device()
	if err != nil {
		return err
	}
	return cudadrv.ContextFromUintptr(d.Context()).StreamSynchronize(cudadrv.StreamFromUintptr(d.Stream()))
}
