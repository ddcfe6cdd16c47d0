//go:build cuda

package main

import (
	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// cudaBuild: this library is built with -tags cuda (gshmem.h's heap may be
// device memory, and the *_on_stream calls work).
const cudaBuild = true

// devCopy copies n bytes between device addresses of this process (the
// heap, a peer's heap mapped by CUDA IPC, cudaMalloc memory) with the copy
// engine on stream, and waits for it when wait is set.
func devCopy(w *shmem.World, dst, src uintptr, n uint64, stream uintptr, wait bool) error {
	if n == 0 {
		return nil
	}
	dev, err := w.Device()
	if err != nil {
		return err
	}
	ctx, s := cudadrv.ContextFromUintptr(dev.Context()), cudadrv.StreamFromUintptr(stream)
	if err := ctx.CopyDtoDAsync(cudadrv.DevPtr(dst), cudadrv.DevPtr(src), n, s); err != nil {
		return err
	}
	if wait {
		return ctx.StreamSynchronize(s)
	}
	return nil
}
