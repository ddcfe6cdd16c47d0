//go:build cuda

package compat

import (
	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// devCopy copies n bytes between device addresses of this process (its
// own memory, a peer's heap mapped by IPC, another in-process PE's
// buffer) on the PE's stream, after its earlier device work, and waits:
// the copy engine moves the bytes, the host only waits.
func devCopy(w *shmem.World, dst, src uintptr, n int) error {
	d, err := w.Device()
	if err != nil {
		return err
	}
	ctx, s := cudadrv.ContextFromUintptr(d.Context()), cudadrv.StreamFromUintptr(d.Stream())
	if err := ctx.CopyDtoDAsync(cudadrv.DevPtr(dst), cudadrv.DevPtr(src), uint64(n), s); err != nil {
		return wrap(err, "device-to-device copy of %d bytes", n)
	}
	return wrap(ctx.StreamSynchronize(s), "device-to-device copy of %d bytes", n)
}

// devSync waits for the PE's stream: with DeviceAfterDefaultStream before
// it, for the caller's default-stream work too.
func devSync(w *shmem.World) error {
	d, err := w.Device()
	if err != nil {
		return err
	}
	return cudadrv.ContextFromUintptr(d.Context()).StreamSynchronize(cudadrv.StreamFromUintptr(d.Stream()))
}
