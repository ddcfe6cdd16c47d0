// Package gpu holds the GPU tests of the CUDA backend (build tag cuda):
// every host-initiated, stream and kernel-initiated operation on device
// heaps, with PEs as goroutines sharing one CUDA context and as processes
// mapping each other's heaps by CUDA IPC, plus the measurements of issues 9
// and 21 (compat_test.go: compat's collectives on device buffers) and 22
// (p2p_test.go: compat's point-to-point and windows on device buffers).
// They skip, saying why, where no GPU is usable. run.sh builds the test
// binary on a machine with Go and runs it on the GPU machine:
//
//	test/gpu/run.sh build   # here: gpu-bin/ (test binary, gshmem)
//	test/gpu/run.sh run     # there: correctness in both modes, benchmarks, NVSHMEM reference
//	test/gpu/run.sh p2p     # there: compat's point-to-point and windows on device buffers
//	test/gpu/run.sh compat  # there: compat on device buffers; run.sh abi: the C ABI's
//	test/gpu/run.sh cjacobi # there: the C Jacobi ladder (examples/c/jacobi-gpu) against examples/jacobi
//	test/gpu/run.sh nvjacobi DIR MGPM # there: NVIDIA's mpi and mpi_overlap Jacobi under gshmem run
package gpu
