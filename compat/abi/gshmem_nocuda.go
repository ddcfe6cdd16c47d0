//go:build !cuda

package main

import "github.com/gshmem/gshmem/shmem"

// cudaBuild: this library is the host build (no device heap, and the
// *_on_stream calls end the job saying so).
const cudaBuild = false

// devCopy is never reached in the host build: a heap is never device
// memory there.
func devCopy(*shmem.World, uintptr, uintptr, uint64, uintptr, bool) error {
	return shmem.ErrUnsupported
}
