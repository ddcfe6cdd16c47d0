// Package cuda is the CUDA backend of package shmem (built with the `cuda`
// tag): each PE's symmetric heap in device memory, the peers' heaps mapped
// into the PE's context (the same pointer for a PE of this process, CUDA
// IPC for another process, peer access for another GPU of the node), the
// host-initiated operations on those heaps, and the transport that the
// core's RMA, atomics and waits run over.
//
// Every PE of a process that uses one GPU shares that GPU's primary
// context, so the kernels of in-process PEs run concurrently without MPS.
package cuda
