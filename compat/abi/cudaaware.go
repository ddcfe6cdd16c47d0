//go:build cgo && cuda

package main

// #cgo CFLAGS: -DGSHMEM_ABI_CUDA=1
import "C"

// The library built with -tags cuda is CUDA-aware: env.c's
// MPIX_Query_cuda_support asks abiint_cuda_aware, and `gshmem abi install`
// installs mpi-ext.h with MPIX_CUDA_AWARE_SUPPORT 1 when this file is part
// of the build.

// abiint_cuda_aware is 1 unless MPI runs on a World whose heap is host
// memory: there compat cannot tell device buffers from host ones (it never
// asks the driver), so they are not supported.
//
//export abiint_cuda_aware
func abiint_cuda_aware() C.int {
	env.mu.Lock()
	defer env.mu.Unlock()
	if env.e != nil && !env.e.World().HeapOnDevice() {
		return 0
	}
	return 1
}
