//go:build cuda

package main

import (
	"github.com/gshmem/gshmem/internal/cudadrv"
	"github.com/gshmem/gshmem/shmem"
)

// devAlloc allocates n bytes of device memory in w's context (MPI_Alloc_mem).
func devAlloc(w *shmem.World, n int) (uintptr, error) {
	d, err := w.Device()
	if err != nil {
		return 0, err
	}
	p, err := cudadrv.ContextFromUintptr(d.Context()).MemAlloc(uint64(n))
	return uintptr(p), err
}

// devFree frees devAlloc memory.
func devFree(w *shmem.World, p uintptr) error {
	d, err := w.Device()
	if err != nil {
		return err
	}
	return cudadrv.ContextFromUintptr(d.Context()).MemFree(cudadrv.DevPtr(p))
}
