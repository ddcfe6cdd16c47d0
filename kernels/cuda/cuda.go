// Package cuda holds gshmem's CUDA device library: the header gshmem.cuh
// that kernels include to put, get, signal, wait and synchronize from
// inside a kernel, and the self-test kernel, compiled to PTX and embedded
// here. The state table layout the header describes and the backend's
// built-in kernels belong to the core and live in internal/devstate; the
// test here holds the header to that layout. It is pure Go and builds
// without CUDA; loading and launching needs the `cuda` build tag (see
// package kernels and the CUDA backend in shmem).
//
// The PTX is regenerated from the .cu sources with nvcc (Debian's
// nvidia-cuda-toolkit, CUDA 11.8, emits PTX 7.8 for sm_90):
//
//	go generate ./kernels/cuda ./internal/devstate
package cuda

import _ "embed"

//go:generate nvcc -arch=sm_90 -ptx -O3 -I. selftest.cu -o selftest.ptx

// Header is the device library, gshmem.cuh.
//
//go:embed gshmem.cuh
var Header string

// SelfTestPTX holds gshmemt_ops (selftest.cu), a kernel that runs every
// device operation of the header across the PEs for the GPU tests.
//
//go:embed selftest.ptx
var SelfTestPTX string
