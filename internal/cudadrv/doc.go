// Package cudadrv is gshmem's binding of the CUDA driver API, built with
// the `cuda` tag. It resolves libcuda.so.1 with dlopen at run time, so a
// binary built against Debian's CUDA headers starts anywhere: on a machine
// without the driver or without a GPU, Load reports ErrNoDriver or
// ErrNoDevice and the callers (the CUDA backend, the GPU tests) say so
// instead of dying in the dynamic loader or in a package initializer.
//
// Every call takes the Context it runs in and makes it current on the
// calling thread first, because Go moves goroutines between threads.
//
// gorgonia.org/cu is not used here: its package initializer calls cuInit
// and exits the process when that fails (as it does on a machine without a
// GPU), and it lacks CUDA IPC, the stream memory operations, host
// functions and cooperative launches, which this package provides.
package cudadrv

import "errors"

var (
	// ErrNoDriver: libcuda.so.1 is missing or unusable (no NVIDIA driver).
	ErrNoDriver = errors.New("cuda: no usable CUDA driver")
	// ErrNoDevice: the driver is there but sees no GPU.
	ErrNoDevice = errors.New("cuda: no GPU visible")
)
